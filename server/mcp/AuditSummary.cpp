#include "mcp/AuditSummary.h"

#include <QJsonValue>

namespace chat2sbx {

namespace {

// Newlines and tabs become spaces so one call stays one line; cut with an ellipsis.
QString oneLine(const QString &s, int max)
{
    QString t = s;
    for (QChar &c : t)
        if (c == QLatin1Char('\n') || c == QLatin1Char('\r') || c == QLatin1Char('\t'))
            c = QLatin1Char(' ');
    t = t.trimmed();
    return t.size() > max ? t.left(max - 1) + QChar(0x2026) : t;
}

QString stringArg(const QJsonObject &args, const char *name, int max = 300)
{
    const QJsonValue v = args.value(QLatin1String(name));
    return v.isString() ? oneLine(v.toString(), max) : QString();
}

QString intArg(const QJsonObject &args, const char *name)
{
    const QJsonValue v = args.value(QLatin1String(name));
    return v.isDouble() ? QString::number(static_cast<qint64>(v.toDouble())) : QString();
}

} // namespace

QString auditSummary(const QString &tool, const QJsonObject &a)
{
    if (tool == QLatin1String("bash"))
        return stringArg(a, "command", kMaxAuditCommandChars);
    if (tool == QLatin1String("bash_poll") || tool == QLatin1String("bash_stop") || tool == QLatin1String("bash_write"))
        return stringArg(a, "session_id", 64);
    if (tool == QLatin1String("read") || tool == QLatin1String("write") || tool == QLatin1String("edit")
        || tool == QLatin1String("list") || tool == QLatin1String("view_image") || tool == QLatin1String("export_file"))
        return stringArg(a, "path");
    if (tool == QLatin1String("search")) {
        const QString path = stringArg(a, "path");
        return path.isEmpty() ? QStringLiteral("(workspace)") : path;
    }
    if (tool == QLatin1String("sandbox_expose")) {
        QString s = QStringLiteral("port ") + intArg(a, "port");
        const QString host = stringArg(a, "host", 64);
        const QString hostPort = intArg(a, "host_port");
        if (!host.isEmpty() || !hostPort.isEmpty())
            s += QStringLiteral(" on %1:%2").arg(host.isEmpty() ? QStringLiteral("127.0.0.1") : host,
                                                hostPort.isEmpty() ? QStringLiteral("*") : hostPort);
        return s;
    }
    if (tool == QLatin1String("workspace_request")) {
        const QString mode = stringArg(a, "mode", 16);
        return stringArg(a, "host_path") + QStringLiteral(" (%1)").arg(mode.isEmpty() ? QStringLiteral("clone") : mode);
    }
    if (tool == QLatin1String("import_file")) {
        // The attachment's name (never its link: the signature in it is a credential) and where it goes.
        const QJsonObject file = a.value(QLatin1String("file")).toObject();
        QString name = stringArg(file, "file_name", 200);
        if (name.isEmpty())
            name = stringArg(file, "file_id", 100);
        const QString destination = stringArg(a, "destination");
        if (name.isEmpty())
            name = QStringLiteral("(attachment)");
        return destination.isEmpty() ? name : name + QStringLiteral(" \u2192 ") + destination;
    }
    if (tool == QLatin1String("sandbox_create")) {
        QStringList parts;
        const QString ws = stringArg(a, "workspace_id", 32);
        parts << (ws.isEmpty() ? QStringLiteral("new managed workspace") : ws);
        const QString memory = stringArg(a, "memory", 16);
        if (!memory.isEmpty())
            parts << QStringLiteral("memory ") + memory;
        // Where it was asked to run (a create without placement goes where defaultPlacement says;
        // the sandbox's own placement is in its record, `sandbox list`).
        if (stringArg(a, "placement", 8) == QLatin1String("cloud")) {
            QString cloud = QStringLiteral("in Docker's cloud");
            const QString size = stringArg(a, "size", 8);
            const QString ttl = stringArg(a, "ttl", 16);
            if (!size.isEmpty())
                cloud += QLatin1Char(' ') + size;
            if (!ttl.isEmpty())
                cloud += QStringLiteral(" for ") + ttl;
            parts << cloud;
        } else if (stringArg(a, "placement", 8) == QLatin1String("local")) {
            parts << QStringLiteral("on this computer");
        }
        return parts.join(QStringLiteral(", "));
    }
    return {};
}

QString shortSessionId(const QString &sessionId)
{
    return sessionId.left(8);
}

} // namespace chat2sbx
