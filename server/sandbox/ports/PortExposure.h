#pragma once

#include "state/SandboxRepository.h"

#include <QHash>
#include <QObject>

#include <functional>

namespace chat2sbx {

class Database;
class SandboxResolver;
class SbxDriver;

// sandbox_expose: publishes a sandbox port on the host through `sbx ports --publish` (or returns
// the mapping sbx already has) and records it. Concurrent requests for the same port share one
// publish. Everything runs on the event loop thread.
class PortExposure : public QObject {
    Q_OBJECT
public:
    struct Request {
        int sandboxPort = 0;
        QString hostIp = QStringLiteral("127.0.0.1");   // validated IPv4 address
        int hostPort = 0;                                // 0: any free port
        bool hostIpGiven = false;                        // the caller asked for hostIp explicitly
    };
    struct Outcome {
        bool ok = false;
        QString error;
        SandboxPortRecord port;
        bool existing = false;
    };
    using Done = std::function<void(const Outcome &)>;

    PortExposure(Database &db, SandboxResolver &resolver, SbxDriver &sbx, QObject *parent = nullptr);

    // Publishes (or returns the existing mapping of) a sandbox port; a different host address or
    // port than an existing mapping has is an error that says which one exists.
    void expose(const QString &sandboxId, const Request &request, Done done);

signals:
    void portsChanged();

private:
    SandboxRepository m_repo;
    SandboxResolver &m_resolver;
    SbxDriver &m_sbx;
    QHash<QString, QList<Done>> m_exposing;   // "id:port" -> callers waiting for the same publish
};

} // namespace chat2sbx
