#include "Secrets.h"

#include <QFile>
#include <QRegularExpression>

namespace faketunnel {
namespace {

Secret failure(const QString &error)
{
    Secret s;
    s.error = error;
    return s;
}

Secret success(Secret::Kind kind, const QByteArray &value)
{
    Secret s;
    s.ok = true;
    s.kind = kind;
    s.value = value;
    return s;
}

bool readFile(const QString &path, QByteArray *data, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return false;
    }
    *data = file.readAll();
    return true;
}

} // namespace

Secret resolveApiKeyFlag(const QString &raw, const QProcessEnvironment &env)
{
    if (raw.startsWith(QLatin1String("env:"))) {
        const QString name = raw.mid(4);
        if (name.isEmpty())
            return failure(QStringLiteral("invalid control-plane.api-key: environment variable name is required after env:"));
        if (!env.contains(name))
            return failure(QStringLiteral("environment variable %1 referenced by --control-plane.api-key is not set").arg(name));
        const QByteArray value = env.value(name).toUtf8();
        if (value.isEmpty())
            return failure(QStringLiteral("environment variable %1 referenced by --control-plane.api-key is empty").arg(name));
        return success(Secret::Kind::Env, value);
    }
    if (raw.startsWith(QLatin1String("file:"))) {
        const QString path = raw.mid(5);
        if (path.isEmpty())
            return failure(QStringLiteral("invalid control-plane.api-key: file path is required after file:"));
        QByteArray data;
        QString why;
        if (!readFile(path, &data, &why))
            return failure(QStringLiteral("read control-plane api key file %1: %2").arg(path, why));
        data = data.trimmed();
        if (data.isEmpty())
            return failure(QStringLiteral("file %1 referenced by --control-plane.api-key is empty").arg(path));
        return success(Secret::Kind::File, data);
    }
    return success(Secret::Kind::Literal, raw.toUtf8());
}

QString checkApiKeyShape(const QByteArray &key)
{
    static const QRegularExpression pattern(QStringLiteral("^[0-9A-Za-z_-]+$"));
    if (key.isEmpty())
        return QStringLiteral("control plane API key is required; set --control-plane.api-key (env:/file:) or CONTROL_PLANE_API_KEY or OPENAI_API_KEY");
    if (!pattern.match(QString::fromUtf8(key)).hasMatch())
        return QStringLiteral("control plane API key is malformed");
    return QString();
}

Secret resolveHeaderValue(const QString &source, const QString &raw, const QProcessEnvironment &env)
{
    static const QRegularExpression envName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    const QString text = raw.trimmed();
    const QString lower = text.toLower();
    Secret::Kind kind = Secret::Kind::Literal;
    QByteArray value;
    if (lower.startsWith(QLatin1String("env:"))) {
        kind = Secret::Kind::Env;
        const QString name = text.mid(4).trimmed();
        if (!envName.match(name).hasMatch())
            return failure(QStringLiteral("invalid %1 reference: environment variable name \"%2\" is invalid").arg(source, name));
        if (!env.contains(name))
            return failure(QStringLiteral("invalid %1 reference: environment variable \"%2\" is not set").arg(source, name));
        value = env.value(name).toUtf8().trimmed();
    } else if (lower.startsWith(QLatin1String("file:"))) {
        kind = Secret::Kind::File;
        const QString path = text.mid(5).trimmed();
        if (path.isEmpty())
            return failure(QStringLiteral("invalid %1 reference: file path is required").arg(source));
        QString why;
        if (!readFile(path, &value, &why))
            return failure(QStringLiteral("read %1 header value file %2: %3").arg(source, path, why));
        if (value.endsWith("\r\n"))
            value.chop(2);
        else if (value.endsWith('\n'))
            value.chop(1);
    } else {
        value = text.toUtf8();
    }
    if (value.trimmed().isEmpty())
        return failure(QStringLiteral("invalid %1 reference: resolved value is empty").arg(source));
    for (const char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && u != '\t') || u == 0x7f)
            return failure(QStringLiteral("%1 contains an invalid HTTP header value").arg(source));
    }
    return success(kind, value);
}

} // namespace faketunnel
