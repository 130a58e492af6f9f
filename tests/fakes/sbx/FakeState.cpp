#include "FakeState.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace fakesbx {

QJsonObject PortMapping::toJson() const
{
    return QJsonObject{{QStringLiteral("host_ip"), hostIp},
                       {QStringLiteral("host_port"), hostPort},
                       {QStringLiteral("sandbox_port"), sandboxPort},
                       {QStringLiteral("protocol"), protocol}};
}

PortMapping PortMapping::fromJson(const QJsonObject &o)
{
    PortMapping m;
    m.hostIp = o.value(QStringLiteral("host_ip")).toString();
    m.hostPort = o.value(QStringLiteral("host_port")).toInt();
    m.sandboxPort = o.value(QStringLiteral("sandbox_port")).toInt();
    m.protocol = o.value(QStringLiteral("protocol")).toString();
    return m;
}

QJsonObject SandboxMeta::toJson() const
{
    QJsonArray portArray;
    for (const PortMapping &p : ports)
        portArray.append(p.toJson());
    return QJsonObject{{QStringLiteral("name"), name},
                       {QStringLiteral("template"), templateRef},
                       {QStringLiteral("memory"), memory},
                       {QStringLiteral("clone"), clone},
                       {QStringLiteral("workspace"), workspace},
                       {QStringLiteral("mount_source"), mountSource},
                       {QStringLiteral("status"), status},
                       {QStringLiteral("created"), created},
                       {QStringLiteral("ports"), portArray}};
}

bool SandboxMeta::fromJson(const QJsonObject &o, SandboxMeta *meta)
{
    if (!o.value(QStringLiteral("name")).isString())
        return false;
    meta->name = o.value(QStringLiteral("name")).toString();
    meta->templateRef = o.value(QStringLiteral("template")).toString();
    meta->memory = o.value(QStringLiteral("memory")).toString();
    meta->clone = o.value(QStringLiteral("clone")).toBool();
    meta->workspace = o.value(QStringLiteral("workspace")).toString();
    meta->mountSource = o.value(QStringLiteral("mount_source")).toString();
    meta->status = o.value(QStringLiteral("status")).toString();
    meta->created = o.value(QStringLiteral("created")).toString();
    meta->ports.clear();
    const QJsonArray portArray = o.value(QStringLiteral("ports")).toArray();
    for (const QJsonValue &v : portArray)
        meta->ports << PortMapping::fromJson(v.toObject());
    return true;
}

StateDir::StateDir(const QString &root)
    : m_root(QDir::cleanPath(QFileInfo(root).absoluteFilePath()))
{
}

bool StateDir::ensure(QString *error) const
{
    if (!QDir().mkpath(sandboxesDir())) {
        *error = QStringLiteral("fake sbx: cannot create %1").arg(sandboxesDir());
        return false;
    }
    return true;
}

QStringList StateDir::sandboxNames() const
{
    QStringList names = QDir(sandboxesDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden);
    names.sort();
    return names;
}

bool StateDir::exists(const QString &name) const
{
    return isValidSandboxName(name) && QFileInfo(sandboxDir(name)).isDir();
}

bool StateDir::readMeta(const QString &name, SandboxMeta *meta) const
{
    if (!exists(name))
        return false;
    QFile file(sandboxDir(name) + QStringLiteral("/meta.json"));
    if (file.open(QIODevice::ReadOnly)) {
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
        if (doc.isObject() && SandboxMeta::fromJson(doc.object(), meta))
            return true;
    }
    *meta = SandboxMeta();
    meta->name = name;
    meta->status = QStringLiteral("creating");
    return true;
}

bool StateDir::writeMeta(const SandboxMeta &meta, QString *error) const
{
    QSaveFile file(sandboxDir(meta.name) + QStringLiteral("/meta.json"));
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write meta.json of %1: %2").arg(meta.name, file.errorString());
        return false;
    }
    file.write(QJsonDocument(meta.toJson()).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        *error = QStringLiteral("cannot write meta.json of %1: %2").arg(meta.name, file.errorString());
        return false;
    }
    return true;
}

StateLock::StateLock(const StateDir &state)
{
    const QByteArray lockPath = state.path(QStringLiteral("lock")).toLocal8Bit();
    m_fd = ::open(lockPath.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) {
        std::perror("fake sbx: cannot open lock");
        return;
    }
    while (::flock(m_fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            std::perror("fake sbx: flock");
            ::close(m_fd);
            m_fd = -1;
            return;
        }
    }
}

StateLock::~StateLock()
{
    if (m_fd >= 0)
        ::close(m_fd);  // releases the flock
}

bool isValidSandboxName(const QString &name)
{
    // sbx-contract.md (create row): letters, digits, '-', '.'; 2-63 characters; leading
    // alphanumeric; no trailing '-' or '.'.
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9.-]{0,61}[A-Za-z0-9]$"));
    return re.match(name).hasMatch();
}

} // namespace fakesbx
