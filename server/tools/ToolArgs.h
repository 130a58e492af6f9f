#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>
#include <utility>

namespace chat2sbx {

// Reads of tool arguments that ToolCallRunner has already checked against the tool's input schema
// (schema:: below), which is the one statement of their rules: ranges, patterns, enums and unknown
// fields are not checked again here. A read fails with a readable message only when a value is
// missing or not of the type read (so a handler never misreads), or breaks a rule a JSON schema
// cannot state: a size in UTF-8 bytes, a NUL character, an empty required string.
class ToolArgs {
public:
    // Keeps its own (implicitly shared, so cheap) copy: a reader made from a temporary, e.g.
    // ToolArgs(entry.toObject()), stays valid.
    explicit ToolArgs(QJsonObject args) : m_args(std::move(args)) {}

    // What a string argument may be: Required strings must not be empty unless they may be
    // (bash_write's input, edit's new_string); an absent Optional one reads as empty.
    enum class Presence { Required, RequiredMayBeEmpty, Optional };

    bool string(const QString &name, QString &out, int maxBytes, Presence presence = Presence::Required);
    // Without `fallback` the integer is required.
    bool integer(const QString &name, qint64 &out, std::optional<qint64> fallback);
    bool boolean(const QString &name, bool &out, bool fallback);
    // The required sandbox_id (its form is schema::sandboxIdProperty()'s pattern).
    bool sandboxId(QString &out);

    const QString &error() const { return m_error; }

private:
    bool fail(const QString &message);

    const QJsonObject m_args;
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
// An output schema: like object() but open, so a later field does not break clients, and without
// "required": the MCP layer also puts {"error": ...} into structuredContent of isError results, and
// SDK clients validate that against the output schema.
QJsonObject result(const QJsonObject &properties);
// An id of the form <prefix> + 24 lower-case hex digits (core/Ids.h), e.g. sbx_, ws_, bash_.
QJsonObject id(const QString &prefix, const QString &description);
QJsonObject sandboxIdProperty();
} // namespace schema

} // namespace chat2sbx
