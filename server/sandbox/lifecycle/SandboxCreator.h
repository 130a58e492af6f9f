#pragma once

#include "sandbox/lifecycle/SandboxOutcome.h"
#include "sandbox/sbx/SbxCloud.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

namespace chat2sbx {

class CloneSeeder;
class SandboxReconciler;
class SandboxRuntimeOps;

// sandbox_create: reuses the running (or sleeping) sandbox of a workspace, takes a warm one for a new
// managed workspace, or creates one within maxActiveSandboxes (record persisted as creating before
// `sbx create`), attaches its control channel and makes it running. A failed create stays listed as
// failed; a missing pinned template leaves nothing listed. Callers asking for a sandbox that is
// still being created wait for the same create.
class SandboxCreator : public QObject {
    Q_OBJECT
public:
    SandboxCreator(SandboxRuntimeOps &ops, const SandboxReconciler &reconciler, QObject *parent = nullptr);

    void create(const SandboxCreateRequest &request, SandboxDone done);
    // What carries a clone workspace into a cloud sandbox; none: such a create is refused.
    void setCloneSeeder(CloneSeeder *seeder) { m_seeder = seeder; }
    bool isCreating(const QString &sandboxId) const { return m_creating.contains(sandboxId); }
    // "template missing: … (run `chat2sbx setup`)", the state sandbox_create reports when the pinned
    // template is absent.
    QString templateMissingMessage() const;

signals:
    // A create ended (error empty: it succeeded): SbxHealth learns missing sign-in or policy from it.
    void createFinished(const QString &error);
    // A create found the pinned template missing (SbxHealth checks again).
    void templateMissing();

private:
    QString limitError() const;
    // A new record, creating, for `workspaceId`, named with `runtimePrefix` and a random suffix.
    SandboxRecord newRecord(const QString &workspaceId, const QString &runtimePrefix) const;
    // placement "cloud" (SandboxCreatorCloud.cpp): refused with the setting that refuses it, else the
    // record first, `sbx --cloud create`, its time-to-live read back, then attached as any sandbox.
    void createInCloud(const SandboxCreateRequest &request, SandboxDone done);
    void createCloudRuntime(const QString &id, const SbxCloudCreateSpec &spec, bool retried);
    // The workspace's sandbox answers the create: renewed, the workspace touched, `reused` set.
    void answerReused(const QString &sandboxId, const QString &workspaceId, const SandboxDone &done);
    void attachCreated(const QString &id);
    void becomeRunning(const QString &id);
    void failCreate(const QString &id, const QString &reason);
    void dropForMissingTemplate(const QString &id, const QString &runtimeName);
    void finishCreate(const QString &id, const SandboxOutcome &outcome);

    // Outlive this: SandboxService declares them first.
    SandboxRuntimeOps &m_ops;
    const SandboxReconciler &m_reconciler;
    QHash<QString, QList<SandboxDone>> m_creating;   // sandbox id -> callers waiting for it (first: the creator)
    QHash<QString, decltype(SandboxCreateRequest::prepare)> m_prepare;   // sandbox id -> its request's prepare
    CloneSeeder *m_seeder = nullptr;
};

} // namespace chat2sbx
