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

// JSON-schema fragments every tool definition is written with. An input schema is the one statement
// of its arguments' rules: SchemaValidator checks it before the handler runs.
namespace schema {
QJsonObject str(const QString &description, int maxLength = 0);
QJsonObject integer(const QString &description, qint64 min, qint64 max);
QJsonObject boolean(const QString &description);
// A string that is one of `values`.
QJsonObject oneOf(const QStringList &values, const QString &description);
// A value of `type` with no further rule (output schemas).
QJsonObject typed(const QString &type, const QString &description = QString());
// `property` that may also be null.
QJsonObject nullable(QJsonObject property);
QJsonObject arrayOf(const QJsonObject &items, const QString &description = QString());
QJsonObject object(const QJsonObject &properties, const QStringList &required);
// An output schema: like object() but open, so a later field does not break clients.
QJsonObject result(const QJsonObject &properties, const QStringList &required);
// An id of the form <prefix> + 24 lower-case hex digits (core/Ids.h), e.g. sbx_, ws_, bash_.
QJsonObject id(const QString &prefix, const QString &description);
QJsonObject sandboxIdProperty();
} // namespace schema

} // namespace chat2sbx
