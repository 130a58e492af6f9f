#pragma once

#include "state/PublicPortRepository.h"
#include "state/SandboxRepository.h"

#include <QObject>
#include <QSet>

#include <functional>
#include <optional>

namespace chat2sbx {

class Clock;
class Database;
class SbxDriver;

// A cloud sandbox's port on the internet (`sbx --cloud ports --publish`: a public HTTPS URL anyone
// can open) only with the local user's approval. sandbox_expose asks request(); the user decides in
// the tray, from a notification or with `chat2sbx approval approve|reject <pub_…>`; an approval
// publishes at once and the agent's next sandbox_expose of the port gets the URL. Nothing is
// decided by a timeout; every change is committed before a method returns or a signal is emitted.
class PublicPorts : public QObject {
    Q_OBJECT
public:
    PublicPorts(Database &db, Clock &clock, SbxDriver &sbx, QObject *parent = nullptr);

    struct Ask {
        enum class Status { Published, Waiting, Publishing, Rejected, Failed, Refused };
        Status status = Status::Refused;
        PublicPortRequest request;
        QString reason;   // Refused: one sentence
    };
    // The port of a running cloud sandbox (`runtimeName` its cloud name): published → its URL;
    // a live request → the same request; a rejection or failure of the last kRetellMs → told;
    // otherwise a new pending request, recorded before this returns.
    Ask request(const QString &sandboxId, int port, const QString &clientName);
    static constexpr int kMaxPending = 10;
    static constexpr qint64 kRetellMs = 10 * 60 * 1000;

    // The user's decision. Approving publishes it at once (a sandbox no longer in the cloud is an
    // error): requestsChanged when the URL (or the failure) is recorded.
    std::optional<PublicPortRequest> approve(const QString &id, const QString &decidedBy, QString &error);
    bool reject(const QString &id, const QString &decidedBy, QString &error);
    // Takes a published port off the internet; `done(error)` (empty: done) runs once, later.
    void unpublish(const QString &sandboxId, const QString &runtimeName, int port, std::function<void(const QString &error)> done);

    std::optional<PublicPortRequest> find(const QString &id) const;
    QList<PublicPortRequest> pending() const;
    QList<PublicPortRequest> list() const;   // oldest first
    QList<PublicPortRequest> published(const QString &sandboxId) const;
    // Closes the live requests of sandboxes `isGone` names (destroyed): their URLs went with their VM.
    void forgetSandboxes(const std::function<bool(const QString &sandboxId)> &isGone);

signals:
    void requestsChanged();
    void portRequested(const QString &id);

private:
    Clock &m_clock;
    SbxDriver &m_sbx;
    PublicPortRepository m_repo;
    SandboxRepository m_sandboxes;
    QSet<QString> m_unpublishing;   // "id:port"
};

} // namespace chat2sbx
