#pragma once

#include "sandbox/sbx/SbxCloud.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <functional>

class QProcess;

namespace chat2sbx {

// The outcome of one `sbx` invocation.
struct SbxResult {
    bool ok = false;          // exit code 0, not timed out, started
    int exitCode = -1;
    bool timedOut = false;    // ran into its deadline: "sbx did not answer", not a refusal
    bool notRun = false;      // sbx was not answering and this call's deadline passed while it waited in line
    bool updatePending = false;   // sbx asked to restart its daemon after an update (never answered)
    QByteArray out;           // stdout
    QByteArray err;           // stderr
    QString error;            // one readable line when !ok: "sbx create failed: <stderr trimmed>"
};

struct SbxRuntimeInfo {
    QString name;
    QString status;
};

struct SbxPortMapping {
    QString hostIp;
    int hostPort = 0;
    int sandboxPort = 0;
    QString protocol;
};

struct SbxCreateSpec {
    QString runtimeName;
    QString templateRef;      // repository:tag; empty: the stock shell template (setup's builder)
    QString memory;           // empty: sbx default
    bool clone = false;
    QString workspaceRoot;    // absolute host path
};

struct SbxExecSpec {
    QString runtimeName;
    QStringList command;      // argv inside the VM; never a shell string built from input
    bool interactive = false; // -i
    bool asRoot = false;      // -u root
    QStringList envNames;     // -e NAME (values come from the child environment)
    QString workdir;          // -w DIR
    QByteArray stdinData;     // written then stdin closed; exec() adds -i when there is any
    // A cloud sandbox (`sbx --cloud exec`, runtimeName its sbx_ id): -u is rejected there, so asRoot
    // runs the command under `sudo -n` in the VM instead.
    bool cloud = false;
};

// The ONLY code that starts `sbx`. Every call is an argv list with a timeout, runs on the event loop
// (through core/ChildProcess) and reports through its callback exactly once; the child dies with the
// server. When sbx answers none of kStallAfter commands in a row within their deadlines (a daemon
// stuck on a lock hangs every command), new commands wait in one line and run one at a time until
// sbx answers one again: a hung sbx does not pile up processes. An `exec` that runs into its
// deadline does not count (its time is the command's inside the VM).
class SbxDriver : public QObject {
    Q_OBJECT
public:
    static constexpr int kStallAfter = 3;
    static constexpr int kMaxWaiting = 256;
    struct Timeouts {
        int createMs = 300000;        // the first create pulls the image: minutes (sbx-contract.md)
        int removeMs = 120000;
        int otherMs = 30000;
        int templateSaveMs = 900000;  // saving a multi-GB image may take minutes
    };
    using Callback = std::function<void(const SbxResult &)>;
    // What is kept of each of stdout and stderr (`sbx policy log --limit`, a template build's log).
    static constexpr qsizetype kMaxOutputBytes = 16 * 1024 * 1024;

    // Every child gets sbxEnvironment(the server's environment as it is then, passedVariables): see
    // SbxEnvironment.h.
    SbxDriver(const QString &sbxPath, const QStringList &passedVariables, QObject *parent = nullptr);
    ~SbxDriver() override;

    // False once sbx answered none of the last kStallAfter commands (see the class comment).
    bool answering() const { return m_unansweredInRow < kStallAfter; }
    // The last command's answer asked to restart sbx's daemon after an update; cleared by any
    // command that sbx answered without asking.
    bool updatePending() const { return m_updatePending; }
    // What the user should know and do while sbx does not answer / asks to restart (empty when not).
    QString notAnsweringAdvice() const;
    static QString updatePendingAdvice();

    void setTimeouts(const Timeouts &t) { m_timeouts = t; }
    const Timeouts &timeouts() const { return m_timeouts; }
    QString sbxPath() const { return m_sbxPath; }
    // Another sbx program (the user chose one in the tray's guide): used by every command from now on.
    void setSbxPath(const QString &sbxPath) { m_sbxPath = sbxPath; }

    void version(Callback done);
    // `sbx version --json` (v0.42+): stdout carries client.version (see SbxVersion.h).
    void versionJson(Callback done);
    // `sbx stop <name>`: every process in the VM ends, files stay.
    void stop(const QString &runtimeName, Callback done);
    void templateList(std::function<void(const SbxResult &, const QStringList &refs)> done);
    // `template ls` with each template's `size` in bytes (-1 where sbx gave none that reads as a size).
    void templateSizes(std::function<void(const SbxResult &, const QHash<QString, qint64> &bytesByRef)> done);
    void templateSave(const QString &runtimeName, const QString &templateRef, Callback done);
    // `sbx template rm <repo:tag>`: a saved template goes (a checkpoint's, when it is deleted).
    void templateRemove(const QString &templateRef, Callback done);
    void create(const SbxCreateSpec &spec, Callback done);
    void list(std::function<void(const SbxResult &, const QList<SbxRuntimeInfo> &)> done);
    void exec(const SbxExecSpec &spec, Callback done, int timeoutMs = -1);
    void ports(const QString &runtimeName, std::function<void(const SbxResult &, const QList<SbxPortMapping> &)> done);
    // `hostIp`: an IPv4 address the caller validated (127.0.0.1 unless the user allowed the LAN).
    void publish(const QString &runtimeName, const QString &hostIp, int hostPort, int sandboxPort, Callback done);
    void remove(const QString &runtimeName, Callback done);
    // `sbx daemon stop`: every running sandbox stops (files kept); the next command starts the daemon
    // again, at the installed version. Only `chat2sbx sbx restart` runs it, after the user confirmed.
    void daemonStop(Callback done);

    // Network policy (SbxPolicy.h builds the argv): `sbx policy allow network [--sandbox RT] HOSTS`,
    // `sbx policy rm network --resource HOST [--sandbox RT]`, `sbx policy log [RT] --json --limit N`.
    // An empty runtime name: a global rule / every sandbox's log.
    // `cloud`: a cloud sandbox's rule, in the cloud's own store (`sbx --cloud policy …`, one pattern
    // per call: the page documents one PATTERN).
    void policyAllow(const QString &runtimeName, const QStringList &hosts, Callback done, bool cloud = false);
    void policyRemove(const QString &runtimeName, const QString &host, Callback done, bool cloud = false);
    void policyLog(const QString &runtimeName, int limit, Callback done, bool cloud = false);

    // Cloud sandboxes (`sbx --cloud …`, reference/sbx-cloud.md; SbxDriverCloud.cpp). Never a
    // local-only flag, never a command that prompts (rm gets --force).
    void cloudCreate(const SbxCloudCreateSpec &spec, std::function<void(const SbxResult &, const QString &id)> done);
    // `run --detached --name`: starts a stopped cloud sandbox again (the same id).
    void cloudResume(const QString &name, std::function<void(const SbxResult &, const QString &id)> done);
    void cloudList(std::function<void(const SbxResult &, const QList<SbxCloudInfo> &)> done);
    void cloudStop(const QString &id, Callback done);
    void cloudRemove(const QString &id, Callback done);
    // Shows the expiry (extendSeconds 0) or extends it by extendSeconds.
    void cloudTtl(const QString &id, qint64 extendSeconds, std::function<void(const SbxResult &, const SbxCloudTtl &)> done);
    void cloudPublish(const QString &id, int port, std::function<void(const SbxResult &, const QString &url)> done);
    void cloudUnpublish(const QString &id, int port, Callback done);
    // One side "<id>:/absolute/path" in the VM, the other a host path.
    void cloudCopy(const QString &from, const QString &to, Callback done);
    void cloudDiagnose(Callback done);
    // Cloud templates (§2.11, §7): `template save ID NAME --capture-mode disk|all` of a running sandbox
    // (it stays running; "several minutes"), `template rm NAME --force`, `template ls --json`.
    void cloudTemplateSave(const QString &id, const QString &name, bool withMemory, Callback done);
    void cloudTemplateRemove(const QString &name, Callback done);
    void cloudTemplateList(std::function<void(const SbxResult &, const QList<SbxCloudTemplate> &)> done);
    // `sbx move … --force`: `warnings` are the lines sbx warned with. The destination is read back from
    // `ls` / `--cloud ls` by its name (the output's format is UNKNOWN, §10.10).
    void move(const SbxMoveSpec &spec, std::function<void(const SbxResult &, const QStringList &warnings)> done);
    static constexpr int kMoveTimeoutMs = 60 * 60 * 1000;   // a GiB-sized capture and transfer takes minutes

    // Starts a long-lived `sbx exec -i ...` child (the sandbox control channel) in `process`, which the
    // caller created and owns; it watches the child and applies its own per-request timeouts.
    void startInteractive(const SbxExecSpec &spec, QProcess &process);

    // The argv (after the sbx path) each typed call runs; exposed for tests and logs.
    static QStringList createArgs(const SbxCreateSpec &spec);
    static QStringList execArgs(const SbxExecSpec &spec);

    // Parsers for the JSON outputs of sbx-contract.md. Return false on malformed output.
    static bool parseTemplates(const QByteArray &json, QStringList &refs, QHash<QString, qint64> *bytesByRef = nullptr);
    // A template's `size`: a number of bytes, or text such as "734003200", "1.2GB", "700 MB", "1.5GiB"
    // (docker's units: kB/MB/GB decimal, KiB/MiB/GiB binary); -1 when it reads as neither.
    static qint64 parseSize(const QJsonValue &size);
    static bool parseList(const QByteArray &json, QList<SbxRuntimeInfo> &out);
    static bool parsePorts(const QByteArray &json, QList<SbxPortMapping> &out);

signals:
    // answering() or updatePending() changed.
    void conditionChanged();

private:
    struct Call {
        QString what;
        QStringList args;
        int timeoutMs = 0;
        QByteArray input;
        Callback done;
        qint64 queuedAtMs = 0;   // m_sinceStart's time when it joined the line
    };
    void run(const QString &what, const QStringList &args, int timeoutMs, const QByteArray &stdinData, Callback done);
    void launch(Call call);
    void answered(const Call &call, const SbxResult &r);
    void startNextWaiting();
    void expireWaiting();

    QString m_sbxPath;
    QStringList m_passedVariables;
    Timeouts m_timeouts;
    int m_unansweredInRow = 0;
    bool m_updatePending = false;
    QList<Call> m_waiting;
    bool m_lineRunning = false;   // while not answering: the one command of the line that runs
    QTimer *m_expiry = nullptr;
    QElapsedTimer m_sinceStart;
};

} // namespace chat2sbx
