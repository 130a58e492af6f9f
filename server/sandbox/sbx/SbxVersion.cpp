#include "sandbox/sbx/SbxVersion.h"

#include "sandbox/sbx/SbxJson.h"

#include <QJsonObject>
#include <QRegularExpression>

namespace chat2sbx {

QString minimumSbxVersionText()
{
    return QStringLiteral("v%1.%2").arg(kMinSbxMajor).arg(kMinSbxMinor);
}

QString parseSbxVersionJson(const QByteArray &stdoutBytes)
{
    const QJsonObject o = parseSbxJson(stdoutBytes).object();
    QString v = o.value(QStringLiteral("client")).toObject().value(QStringLiteral("version")).toString();
    if (v.isEmpty())
        v = o.value(QStringLiteral("version")).toString();
    return findSbxVersion(v.left(100));
}

QString findSbxVersion(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("v?[0-9]{1,6}\\.[0-9]{1,6}(?:\\.[0-9]{1,6})?(?:[-+][0-9A-Za-z.-]{1,40})?"));
    return re.match(text.left(4096)).captured(0);
}

bool sbxVersionSupported(const QString &version)
{
    static const QRegularExpression re(QStringLiteral("^v?([0-9]{1,6})\\.([0-9]{1,6})"));
    const QRegularExpressionMatch m = re.match(version);
    if (!m.hasMatch())
        return false;
    const int major = m.captured(1).toInt();
    const int minor = m.captured(2).toInt();
    return major > kMinSbxMajor || (major == kMinSbxMajor && minor >= kMinSbxMinor);
}

} // namespace chat2sbx
