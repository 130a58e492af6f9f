#include "sandbox/changes/DockerImageKeeper.h"

#include "sandbox/sbx/SbxDriver.h"

#include <QRegularExpression>

namespace chat2sbx {

namespace {

// $1: the checkpoint id; the rest: image references. The archive appears under its name only whole.
const char kSave[] = "set -e; d=\"$HOME/.chat2sbx/docker-images\"; mkdir -p \"$d\"; f=\"$d/$1.tar\"; shift; "
                     "docker save -o \"$f.partial\" -- \"$@\" >/dev/null; mv -f \"$f.partial\" \"$f\"; stat -c %s \"$f\"";
const char kLoad[] = "f=\"$HOME/.chat2sbx/docker-images/$1.tar\"; "
                     "[ -f \"$f\" ] || { echo \"the saved Docker images are not in this sandbox's disk\" >&2; exit 3; }; "
                     "docker load -i \"$f\" && rm -f \"$f\"";
const char kDrop[] = "rm -f \"$HOME/.chat2sbx/docker-images/$1.tar\" \"$HOME/.chat2sbx/docker-images/$1.tar.partial\"";

QStringList script(const char *body, const QString &checkpointId, const QStringList &more = {})
{
    return QStringList{QStringLiteral("sh"), QStringLiteral("-c"), QString::fromLatin1(body), QStringLiteral("chat2sbx-docker"),
                       checkpointId}
           + more;
}

QString firstLine(const QByteArray &bytes)
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
    spec.command = script(kSave, checkpointId, images);
    m_sbx.exec(spec, [done](const SbxResult &r) {
        bool number = false;
        const qint64 bytes = r.out.trimmed().toLongLong(&number);
        if (!r.ok || !number)
            return done(false, 0, QStringLiteral("docker save of the images failed: %1").arg(r.ok ? QStringLiteral("no size came back")
                                                                                               : firstLine(r.err.isEmpty() ? r.out : r.err)));
        done(true, bytes, QString());
    }, kTimeoutMs);
}

void DockerImageKeeper::load(const QString &runtimeName, const QString &checkpointId, std::function<void(bool, const QString &)> done)
{
    SbxExecSpec spec;
    spec.runtimeName = runtimeName;
    spec.command = script(kLoad, checkpointId);
    m_sbx.exec(spec, [done](const SbxResult &r) {
        done(r.ok, r.ok ? QString()
                        : QStringLiteral("docker load of the kept images failed: %1").arg(firstLine(r.err.isEmpty() ? r.out : r.err)));
    }, kTimeoutMs);
}

void DockerImageKeeper::drop(const QString &runtimeName, const QString &checkpointId, std::function<void(bool, const QString &)> done)
{
    SbxExecSpec spec;
    spec.runtimeName = runtimeName;
    spec.command = script(kDrop, checkpointId);
    m_sbx.exec(spec, [done](const SbxResult &r) { done(r.ok, r.ok ? QString() : firstLine(r.err)); }, 120000);
}

} // namespace chat2sbx
