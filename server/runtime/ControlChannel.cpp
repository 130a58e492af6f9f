#include "runtime/ControlChannel.h"

#include <QFile>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QPointer>
#include <QTimer>

#include <sys/socket.h>
#include <unistd.h>

namespace chat2sbx {

namespace {

// The user id of the process at the other end, or -1 when the kernel does not say.
qint64 peerUid(QLocalSocket *socket)
{
    struct ucred cred {};
    socklen_t length = sizeof cred;
    if (::getsockopt(static_cast<int>(socket->socketDescriptor()), SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0)
        return -1;
    return static_cast<qint64>(cred.uid);
}

void send(QLocalSocket *socket, const QJsonObject &reply)
{
    socket->write(QJsonDocument(reply).toJson(QJsonDocument::Compact) + '\n');
    socket->disconnectFromServer();   // after the bytes are written
}

} // namespace

ControlChannel::ControlChannel(const QString &path, QObject *parent) : QObject(parent), m_path(path) {}

ControlChannel::~ControlChannel()
{
    close();
}

QJsonObject ControlChannel::refusal(const QString &why)
{
    return {{QStringLiteral("exit"), 1}, {QStringLiteral("stdout"), QString()}, {QStringLiteral("stderr"), QStringLiteral("chat2sbx: ") + why + QLatin1Char('\n')}};
}

bool ControlChannel::listen(QString &error)
{
    m_server = std::make_unique<QLocalServer>();
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    m_server->setMaxPendingConnections(64);
    // The caller holds the server's lock: a socket file there is one a server that is gone left.
    QLocalServer::removeServer(m_path);
    if (!m_server->listen(m_path)) {
        error = QStringLiteral("cannot listen on %1: %2").arg(m_path, m_server->errorString());
        m_server.reset();
        return false;
    }
    QFile::setPermissions(m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    connect(m_server.get(), &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket *socket = m_server->nextPendingConnection())
            accept(socket);
    });
    return true;
}

void ControlChannel::close()
{
    if (!m_server)
        return;
    m_server->close();
    m_server.reset();
    QFile::remove(m_path);
}

bool ControlChannel::isListening() const
{
    return m_server && m_server->isListening();
}

void ControlChannel::accept(QLocalSocket *socket)
{
    connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
    if (peerUid(socket) != static_cast<qint64>(::geteuid())) {
        send(socket, refusal(QStringLiteral("the control channel answers only the user running the server")));
        return;
    }
    auto *deadline = new QTimer(socket);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, socket, [socket] {
        send(socket, refusal(QStringLiteral("no request within %1 s").arg(kRequestTimeoutMs / 1000)));
    });
    deadline->start(kRequestTimeoutMs);
    connect(socket, &QLocalSocket::readyRead, this, [this, socket, deadline] {
        if (!deadline->isActive())
            return;   // answered (or refused) already
        if (!socket->canReadLine()) {
            if (socket->bytesAvailable() > kMaxRequestBytes) {
                deadline->stop();
                send(socket, refusal(QStringLiteral("the request is larger than %1 bytes").arg(kMaxRequestBytes)));
            }
            return;
        }
        deadline->stop();
        const QByteArray line = socket->readLine(kMaxRequestBytes + 1);
        QJsonParseError parse{};
        const QJsonDocument doc = QJsonDocument::fromJson(line, &parse);
        if (parse.error != QJsonParseError::NoError || !doc.isObject() || !m_handler) {
            send(socket, refusal(QStringLiteral("not a request: %1").arg(parse.error != QJsonParseError::NoError ? parse.errorString()
                                                                                                            : QStringLiteral("no handler"))));
            return;
        }
        QPointer<QLocalSocket> alive(socket);
        m_handler(doc.object(), [alive](const QJsonObject &reply) {
            // The client may have gone meanwhile: what was done is done, its answer goes nowhere.
            if (alive && alive->state() == QLocalSocket::ConnectedState)
                send(alive, reply);
        });
    });
}

} // namespace chat2sbx
