// Resolution of secret references as the real client does them: "file:/path", "env:VAR", literal.
// Error messages name the file or variable, never the secret itself.
#pragma once

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>

namespace faketunnel {

struct Secret
{
    enum class Kind { File, Env, Literal };
    bool ok = false;
    Kind kind = Kind::Literal;
    QByteArray value;
    QString error;
};

// --control-plane.api-key value. File contents are trimmed; env values are taken as they are.
Secret resolveApiKeyFlag(const QString &raw, const QProcessEnvironment &env);
// The real client's key check (^[0-9A-Za-z_-]+$, no surrounding space). Returns an empty string
// when the key is acceptable, else a redacted error.
QString checkApiKeyShape(const QByteArray &key);
// Value of a --mcp.extra-headers entry (prefixes are case-insensitive there).
Secret resolveHeaderValue(const QString &source, const QString &raw, const QProcessEnvironment &env);

} // namespace faketunnel
