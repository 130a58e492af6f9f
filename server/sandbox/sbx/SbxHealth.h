#pragma once

#include "sandbox/sbx/SbxStatus.h"

#include <QObject>
#include <QTimer>

namespace chat2sbx {

class SbxDriver;

// The server's cached SbxStatus. Checked at start, again after a create that found the template
// missing, and every few minutes (sooner while something is wrong, so a `chat2sbx setup` run in
// another terminal shows up within a minute). Never blocks: each check is a few sbx calls through
// SbxDriver, with its timeouts. The first result is logged once; later ones when the state changes.
class SbxHealth : public QObject {
    Q_OBJECT
public:
    SbxHealth(SbxDriver &sbx, const QString &templateRef, QObject *parent = nullptr);

    const SbxStatus &status() const { return m_status; }

    void start();
    void stop();
    // Asks again now (a check already running is followed by one more).
    void refresh();
    // What a sandbox create ended with (empty: it succeeded): a missing sign-in or network policy is
    // remembered until a create succeeds. (A missing template is SandboxService::templateMissing:
    // connect it to refresh().)
    void noteCreateResult(const QString &error);
    // Cloud sandboxes are on: each check asks `sbx --cloud diagnose` too (SbxStatus::cloudState).
    void setCloudCheck(bool on) { m_cloudCheck = on; }

    static constexpr int kReadyIntervalMs = 10 * 60 * 1000;
    static constexpr int kFailingIntervalMs = 60 * 1000;

signals:
    void changed();

private:
    void finished(const SbxStatus &status);
    // sbx answers nothing, or asks to restart after an update (SbxDriver): shown over the checks.
    SbxStatus withDriverCondition(const SbxStatus &checked) const;
    void driverConditionChanged();
    void publish(const SbxStatus &next);
    void schedule();
    void log(const SbxStatus &status) const;

    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    SbxDriver &m_sbx;
    QString m_templateRef;
    SbxStatus m_status;
    SbxStatus m_checked;   // what the last check found, before the driver's condition
    QTimer m_timer;
    bool m_running = false;
    bool m_cloudCheck = false;
    bool m_checking = false;
    bool m_again = false;
    quint64 m_generation = 0;   // a check started before stop() is ignored
};

} // namespace chat2sbx
