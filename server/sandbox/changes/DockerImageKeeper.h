#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace chat2sbx {

class SbxDriver;

// The sandbox's own Docker images an agent asks a checkpoint to keep. A template never
// holds /var/lib/docker, so before the VM is saved `docker save` writes the named images into HOME
// (~/.chat2sbx/docker-images/<checkpoint id>.tar), which the template keeps; once the template is made
// the archive leaves the source sandbox again, and a restore or fork `docker load`s it into its new
// VM's engine and removes it. Every step is one `sbx exec` (SbxDriver) of a fixed script whose
// inputs are arguments, never shell text.
class DockerImageKeeper : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxImages = 10;
    static constexpr int kTimeoutMs = 30 * 60 * 1000;   // docker save/load of a few GB

    explicit DockerImageKeeper(SbxDriver &sbx, QObject *parent = nullptr);

    // Empty when `images` may be asked for (at most kMaxImages docker references); else why not.
    static QString invalid(const QStringList &images);

    void save(const QString &runtimeName, const QString &checkpointId, const QStringList &images,
              std::function<void(bool ok, qint64 bytes, const QString &error)> done);
    void load(const QString &runtimeName, const QString &checkpointId, std::function<void(bool ok, const QString &error)> done);
    void drop(const QString &runtimeName, const QString &checkpointId, std::function<void(bool ok, const QString &error)> done);

private:
    SbxDriver &m_sbx;
};

} // namespace chat2sbx
