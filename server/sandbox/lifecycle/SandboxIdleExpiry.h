#pragma once

#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <functional>

namespace chat2sbx {

class SandboxDestroyer;
class SandboxReconciler;
class SandboxRuntimeOps;

// Idle expiry: a timer (started by reconciliation) destroys running sandboxes past their idle
// deadline, the DestroyGuard keeping their work first. When the work cannot be kept the sandbox is
// left in place, its expiry postponed by a full period, and the tray warned.
class SandboxIdleExpiry : public QObject {
    Q_OBJECT
public:
    SandboxIdleExpiry(SandboxRuntimeOps &ops, const SandboxReconciler &reconciler, SandboxDestroyer &destroyer,
                      QObject *parent = nullptr);

    // Every quarter of the idle period (0.5 s to 60 s) unless set.
    void setIdleCheckIntervalMs(int ms) { m_timer.setInterval(ms); }
    void start() { m_timer.start(); }
    void stop() { m_timer.stop(); }
    // Destroys running sandboxes past their idle deadline (the timer calls it; tests may too).
    void checkIdle();
    // Runs before an expired sandbox is destroyed (checkpointBeforeExpiry): `proceed` destroys it,
    // with `note` added to the reason it is destroyed for. Unset: destroyed at once.
    using BeforeExpiry = std::function<void(const QString &sandboxId, std::function<void(const QString &note)> proceed)>;
    void setBeforeExpiry(BeforeExpiry hook) { m_beforeExpiry = std::move(hook); }

signals:
    // The sandbox's work could not be kept, so it was left in place (tray warning).
    void workNotKept(const QString &sandboxId, const QString &message);

private:
    void postponeIdleExpiry(const QString &sandboxId, const QString &why);

    // Outlive this: SandboxService declares them first.
    SandboxRuntimeOps &m_ops;
    const SandboxReconciler &m_reconciler;
    SandboxDestroyer &m_destroyer;
    QTimer m_timer;
    BeforeExpiry m_beforeExpiry;
    QSet<QString> m_preparing;   // the hook runs for these: not expired twice
};

} // namespace chat2sbx
