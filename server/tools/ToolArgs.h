#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

namespace chat2sbx {

// Defensive reads of already schema-validated tool arguments: each returns false with a readable
// message for the model when a value is missing, of the wrong type, out of range or too large.
class ToolArgs {
public:
    explicit ToolArgs(const QJsonObject &args) : m_args(args) {}

    bool string(const QString &name, QString &out, int maxBytes, bool required = true, bool allowEmpty = false);
    bool integer(const QString &name, qint64 &out, qint64 min, qint64 max, std::optional<qint64> fallback);
    bool boolean(const QString &name, bool &out, bool fallback);
    // A required sandbox_id of the form sbx_ + 24 hex characters.
    bool sandboxId(QString &out);

    const QString &error() const { return m_error; }

private:
    bool fail(const QString &message);

    const QJsonObject &m_args;
    QString m_error;
};

// JSON-schema fragments used by the in-sandbox tool definitions.
namespace schema {
QJsonObject str(const QString &description, int maxLength = 0);
QJsonObject integer(const QString &description, qint64 min, qint64 max);
QJsonObject boolean(const QString &description);
QJsonObject object(const QJsonObject &properties, const QStringList &required);
// An output schema: like object() but open, so a later field does not break clients.
QJsonObject result(const QJsonObject &properties, const QStringList &required);
QJsonObject sandboxIdProperty();
} // namespace schema

} // namespace chat2sbx
