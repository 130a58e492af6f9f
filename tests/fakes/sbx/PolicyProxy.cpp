#include "PolicyProxy.h"

#include "Lifecycle.h"
#include "Policy.h"
#include "PortForwarder.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QSaveFile>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <unistd.h>

namespace fakesbx {

namespace {

constexpr qsizetype kMaxHead = 64 * 1024;

QString recordFile(const StateDir &state, const QString &runtime)
{
    return state.sandboxDir(runtime) + QStringLiteral("/proxy");
}

void relay(QTcpSocket *client, QTcpSocket *upstream)
{
    QPointer<QTcpSocket> c(client), u(upstream);
    QObject::connect(c, &QTcpSocket::readyRead, c, [c, u] {
        if (u)
            u->write(c->readAll());
    });
    QObject::connect(u, &QTcpSocket::readyRead, u, [c, u] {
        if (c)
            c->write(u->readAll());
    });
    QObject::connect(c, &QTcpSocket::disconnected, c, [c, u] {
        if (u)
            u->disconnectFromHost();
        c->deleteLater();
    });
    QObject::connect(u, &QTcpSocket::disconnected, u, [c, u] {
        if (c)
            c->disconnectFromHost();
        u->deleteLater();
    });
}

void refuse(QTcpSocket *client, int code, const QByteArray &reason, const QByteArray &body)
{
    client->write("HTTP/1.1 " + QByteArray::number(code) + ' ' + reason + "\r\nContent-Type: text/plain; charset=utf-8\r\n"
                  "Content-Length: " + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    client->disconnectFromHost();
    QObject::connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
}

PolicyDecision decideAndLog(const StateDir &state, const QString &runtime, const QString &host, int port)
{
    const Faults faults = Faults::load(state.path(QStringLiteral("faults.env")));
    StateLock lock(state);
    PolicyStore store(state);
    QString error;
    if (!lock.ok() || !store.load(&error)) {
        PolicyDecision d;
        d.body = QStringLiteral("Blocked by network policy: domain %1:%2\n  detail: policy store unreadable\n").arg(host).arg(port);
        return d;
    }
    const bool approvals = faults.enabled(QStringLiteral("FAKE_SBX_APPROVALS"));
    const PolicyDecision d = store.decide(runtime, host, port, approvals, store.preset == QLatin1String("allow-all"));
    store.record(runtime, host, port, d);
    if (d.approvalQueued)
        store.queueApproval(runtime, host, port);
    store.save(&error);
    return d;
}

// One client connection: reads the request head, decides, then tunnels, forwards or refuses.
void serve(QTcpSocket *client, const StateDir &state, const QString &runtime)
{
    auto head = std::make_shared<QByteArray>();
    QObject::connect(client, &QTcpSocket::readyRead, client, [client, head, state, runtime] {
        head->append(client->readAll());
        const qsizetype end = head->indexOf("\r\n\r\n");
        if (end < 0) {
            if (head->size() > kMaxHead)
                refuse(client, 431, "Request Header Fields Too Large", "request head too large\n");
            return;
        }
        QObject::disconnect(client, &QTcpSocket::readyRead, nullptr, nullptr);
        const qsizetype lineEnd = head->indexOf("\r\n");
        const QList<QByteArray> parts = head->left(lineEnd).split(' ');
        if (parts.size() != 3)
            return refuse(client, 400, "Bad Request", "malformed request line\n");
        const bool connect = parts.at(0) == "CONNECT";
        QString host;
        int port = 0;
        QByteArray forwardHead;
        if (connect) {
            const QString target = QString::fromLatin1(parts.at(1));
            const qsizetype colon = target.lastIndexOf(QLatin1Char(':'));
            host = target.left(colon);
            port = colon > 0 ? target.mid(colon + 1).toInt() : 0;
        } else {
            const QUrl url(QString::fromLatin1(parts.at(1)));
            host = url.host();
            port = url.port(80);
            QByteArray path = url.path(QUrl::FullyEncoded).toLatin1();
            if (path.isEmpty())
                path = "/";
            if (url.hasQuery())
                path += '?' + url.query(QUrl::FullyEncoded).toLatin1();
            forwardHead = parts.at(0) + ' ' + path + ' ' + parts.at(2) + head->mid(lineEnd);
        }
        if (host.startsWith(QLatin1Char('[')))
            host = host.mid(1, host.size() - 2);
        if (host.isEmpty() || port <= 0 || port > 65535)
            return refuse(client, 400, "Bad Request", "no target host\n");
        const PolicyDecision d = decideAndLog(state, runtime, host, port);
        if (!d.allowed)
            return refuse(client, 403, "Forbidden", d.body.toUtf8());
        auto *upstream = new QTcpSocket;
        const QByteArray rest = connect ? head->mid(end + 4) : forwardHead;
        QObject::connect(upstream, &QTcpSocket::connected, upstream, [client, upstream, connect, rest] {
            upstream->setProperty("relaying", true);
            if (connect)
                client->write("HTTP/1.1 200 Connection established\r\n\r\n");
            if (!rest.isEmpty())
                upstream->write(rest);
            relay(client, upstream);
            if (client->bytesAvailable() > 0)
                upstream->write(client->readAll());
        });
        QObject::connect(upstream, &QTcpSocket::errorOccurred, upstream, [client, upstream] {
            if (upstream->state() != QAbstractSocket::UnconnectedState)
                return;
            if (client->state() == QAbstractSocket::ConnectedState && !upstream->property("relaying").toBool())
                refuse(client, 502, "Bad Gateway", "upstream unreachable\n");
            upstream->deleteLater();
        });
        upstream->connectToHost(host, quint16(port));
    });
}

} // namespace

int ensureProxy(const Context &ctx, const QString &runtime)
{
    const QString record = recordFile(ctx.state, runtime);
    QFile current(record);
    if (current.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> fields = current.readAll().trimmed().split(' ');
        if (fields.size() == 2 && identityAlive(QString::fromLatin1(fields.at(0))))
            return fields.at(1).toInt();
    }
    current.close();
    int port = 0;
    QString error;
    const int fd = openListener(QStringLiteral("127.0.0.1"), 0, &port, &error);
    if (fd < 0)
        return 0;
    const long pid = spawnDetached({ctx.selfExe.toStdString(), "__proxy", runtime.toStdString()},
                                   {"FAKE_SBX_STATE=" + ctx.state.root().toStdString(),
                                    "FAKE_SBX_SANDBOX=" + runtime.toStdString(),
                                    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
                                   fd);
    ::close(fd);
    if (pid <= 0)
        return 0;
    QSaveFile out(record);
    if (out.open(QIODevice::WriteOnly)) {
        out.write(identity(pid).toLatin1() + ' ' + QByteArray::number(port));
        out.commit();
    }
    return port;
}

int runProxy(int argc, char **argv, const QStringList &args)
{
    if (args.size() != 2)
        return 2;
    QCoreApplication app(argc, argv);
    const QString runtime = args.at(1);
    const StateDir state(qEnvironmentVariable("FAKE_SBX_STATE"));
    QTcpServer server;
    if (!server.setSocketDescriptor(3))
        return 1;
    QObject::connect(&server, &QTcpServer::newConnection, &server, [&server, &state, &runtime] {
        while (QTcpSocket *client = server.nextPendingConnection())
            serve(client, state, runtime);
    });
    QTimer watchdog;
    const QString meta = state.sandboxDir(runtime) + QStringLiteral("/meta.json");
    QObject::connect(&watchdog, &QTimer::timeout, &app, [&meta] {
        if (!QFileInfo::exists(meta))
            QCoreApplication::quit();
    });
    watchdog.start(1000);
    return app.exec();
}

} // namespace fakesbx
