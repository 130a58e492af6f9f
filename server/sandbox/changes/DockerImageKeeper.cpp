#include "sandbox/changes/DockerImageKeeper.h"

#include "sandbox/sbx/InVmScript.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QRegularExpression>

namespace chat2sbx {

namespace {

// vm/docker-images.sh <op> <checkpoint id> [image]...
QStringList script(const char *op, const QString &checkpointId, const QStringList &images = {})
{
    return QStringList{QStringLiteral("bash"), QStringLiteral("-c"), inVmScript(QStringLiteral("docker-images.sh")),
                       QStringLiteral("chat2sbx-docker"), QString::fromLatin1(op), checkpointId}
           + images;
}

QString outputFirstLine(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes).trimmed().section(QLatin1Char('\n'), 0, 0).left(300);
}

} // namespace

DockerImageKeeper::DockerImageKeeper(SbxDriver &sbx, QObject *parent) : QObject(parent), m_sbx(sbx)
{
}

QString DockerImageKeeper::invalid(const QStringList &images)
{
    if (images.size() > kMaxImages)
        return QStringLiteral("at most %1 Docker images can be kept with a checkpoint").arg(kMaxImages);
    // A docker reference (the distribution grammar): [host[:port]/]path[:tag][@sha256:digest], the host
    // a DNS name or IPv4 address (or localhost), each path component lower-case alphanumerics joined
    // by one '.', one or two '_' or dashes.
    static const QRegularExpression host(QStringLiteral("^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                                                        "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::[0-9]{1,5})?$"));
    static const QRegularExpression path(QStringLiteral("^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
                                                        "(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
                                                        "(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$"));
    for (const QString &image : images) {
        const QString first = image.section(QLatin1Char('/'), 0, 0);
        // The first component is a registry host when it has a dot or a port, or is localhost.
        const bool hasHost = image.contains(QLatin1Char('/'))
                             && (first.contains(QLatin1Char('.')) || first.contains(QLatin1Char(':')) || first == QLatin1String("localhost"));
        const QString rest = hasHost ? image.section(QLatin1Char('/'), 1) : image;
        if (image.size() > 300 || (hasHost && !host.match(first).hasMatch()) || !path.match(rest).hasMatch()) {
            // Echoed without control characters: the text goes to the agent and into logs.
            QString shown = image.left(100);
            for (QChar &c : shown)
                if (!c.isPrint())
                    c = QChar(0xFFFD);
            return QStringLiteral("'%1' is not a Docker image reference ([registry/]name[:tag], e.g. myapp:dev)").arg(shown);
        }
    }
    return {};
}

void DockerImageKeeper::save(const QString &runtimeName, const QString &checkpointId, const QStringList &images,
                             std::function<void(bool, qint64, const QString &)> done)
{
    SbxExecSpec spec;
    spec.runtimeName = runtimeName;
    spec.command = script("save", checkpointId, images);
    m_sbx.exec(spec, [done](const SbxResult &r) {
        bool number = false;
        const qint64 bytes = r.out.trimmed().toLongLong(&number);
        if (!r.ok || !number)
            return done(false, 0, QStringLiteral("docker save of the images failed: %1").arg(r.ok ? QStringLiteral("no size came back")
                                                                                               : outputFirstLine(r.err.isEmpty() ? r.out : r.err)));
        done(true, bytes, QString());
    }, kTimeoutMs);
}

void DockerImageKeeper::load(const QString &runtimeName, const QString &checkpointId, std::function<void(bool, const QString &)> done)
{
    SbxExecSpec spec;
    spec.runtimeName = runtimeName;
    spec.command = script("load", checkpointId);
    m_sbx.exec(spec, [done](const SbxResult &r) {
        done(r.ok, r.ok ? QString()
                        : QStringLiteral("docker load of the kept images failed: %1").arg(outputFirstLine(r.err.isEmpty() ? r.out : r.err)));
    }, kTimeoutMs);
}

void DockerImageKeeper::drop(const QString &runtimeName, const QString &checkpointId, std::function<void(bool, const QString &)> done)
{
    SbxExecSpec spec;
    spec.runtimeName = runtimeName;
    spec.command = script("drop", checkpointId);
    m_sbx.exec(spec, [done](const SbxResult &r) { done(r.ok, r.ok ? QString() : outputFirstLine(r.err)); }, 120000);
}

} // namespace chat2sbx
