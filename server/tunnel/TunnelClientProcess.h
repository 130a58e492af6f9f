#pragma once

#include "tunnel/TunnelClientOutput.h"

#include <QList>
#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTimer>

class QProcess;

namespace chat2sbx {

// The one owner of `tunnel-client run`'s QProcess (TunnelSupervisor drives it): starts it with an
// argv list, an explicit environment, stdin from /dev/null and, on Linux, SIGTERM when chat2sbx dies;
// reads its merged output as lines (bounded, the secrets masked, parsed as TunnelClientLine); stops it
// with SIGTERM, then SIGKILL after a grace; and says once per launch when it is gone.
class TunnelClientProcess : public QObject {
    Q_OBJECT
public:
    explicit TunnelClientProcess(QObject *parent = nullptr);
    // A child still running is killed, never left behind.
    ~TunnelClientProcess() override;

    // Replaced by *** in every line read and in mask() (the tunnel key, the local token).
    void setSecrets(const QStringList &secrets) { m_secrets = secrets; }
    QString mask(QString text) const;

    // No-op while a child exists.
    void launch(const QString &program, const QStringList &arguments, const QProcessEnvironment &environment);
    // SIGTERM now (once it runs), SIGKILL after `graceMs`; finished() follows.
    void terminate(int graceMs);

    bool exists() const { return m_process != nullptr; }   // starting, running or exiting
    bool isRunning() const;
    qint64 pid() const;
    QString program() const { return m_program; }

    static constexpr int kMaxLineChars = 400;

signals:
    void started(qint64 pid);
    // The lines one read brought (complete lines only), in order.
    void linesRead(const QList<chat2sbx::TunnelClientLine> &lines);
    // Once per launch, after the last lines: why it ended ("tunnel-client exited with code 1").
    void finished(const QString &why);

private:
    void readOutput();
    void end(const QString &why);

    QProcess *m_process = nullptr;
    QString m_program;
    QStringList m_secrets;
    QByteArray m_buffer;
    bool m_terminating = false;
    QTimer m_killTimer;
};

} // namespace chat2sbx
