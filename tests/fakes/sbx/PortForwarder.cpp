#include "PortForwarder.h"

#include "FsOps.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace fakesbx {

int openListener(const QString &ip, int port, int *actualPort, QString *error)
{
    struct sockaddr_in addr;
    std::memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (::inet_pton(AF_INET, ip.toLatin1().constData(), &addr.sin_addr) != 1) {
        *error = QStringLiteral("invalid host address %1").arg(ip);
        return -1;
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return -1;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<struct sockaddr *>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0 ||
        ::getsockname(fd, reinterpret_cast<struct sockaddr *>(&addr), &len) != 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        ::close(fd);
        return -1;
    }
    *actualPort = ntohs(addr.sin_port);
    return fd;
}

bool spawnForwarder(const QString &selfExe, const QString &runtime, const QString &sandboxDir,
                    int listenFd, int sandboxPort, QString *error)
{
    std::vector<std::string> argStore = {selfExe.toStdString(), "__forward", runtime.toStdString(),
                                         sandboxDir.toStdString(), std::to_string(sandboxPort)};
    std::vector<std::string> envStore = {"FAKE_SBX_SANDBOX=" + runtime.toStdString(),
                                         "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
    for (const char *keep : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
        if (const char *v = ::getenv(keep))
            envStore.push_back(std::string(keep) + "=" + v);
    }
    std::vector<char *> argv, envp;
    for (std::string &s : argStore)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    for (std::string &s : envStore)
        envp.push_back(s.data());
    envp.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) {
        *error = QStringLiteral("fork failed: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (pid == 0) {
        ::setsid();
        if (listenFd == 3)
            ::fcntl(3, F_SETFD, 0);
        else if (::dup2(listenFd, 3) != 3)
            ::_exit(127);
        const int devNull = ::open("/dev/null", O_RDWR);
        ::dup2(devNull, 0);
        ::dup2(devNull, 1);
        ::dup2(devNull, 2);
        closeDescriptorsFrom(4);
        if (::chdir("/") != 0)
            ::_exit(127);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    // Not waited for: the forwarder outlives this process and is re-parented.
    return true;
}

int runForwarder(int argc, char **argv, const QStringList &args)
{
    if (args.size() != 4)
        return 2;
    QCoreApplication app(argc, argv);
    const QString sandboxDir = args.at(2);
    const quint16 target = args.at(3).toUShort();
    QTcpServer server;
    if (!server.setSocketDescriptor(3))
        return 1;
    QObject::connect(&server, &QTcpServer::newConnection, &server, [&server, target] {
        while (QTcpSocket *accepted = server.nextPendingConnection()) {
            QPointer<QTcpSocket> client(accepted);
            QPointer<QTcpSocket> upstream(new QTcpSocket);
            QObject::connect(client, &QTcpSocket::readyRead, client, [client, upstream] {
                if (upstream)
                    upstream->write(client->readAll());
            });
            QObject::connect(upstream, &QTcpSocket::readyRead, upstream, [client, upstream] {
                if (client)
                    client->write(upstream->readAll());
            });
            QObject::connect(client, &QTcpSocket::disconnected, client, [client, upstream] {
                if (upstream)
                    upstream->disconnectFromHost();
                client->deleteLater();
            });
            QObject::connect(upstream, &QTcpSocket::disconnected, upstream, [client, upstream] {
                if (client)
                    client->disconnectFromHost();
                upstream->deleteLater();
            });
            QObject::connect(upstream, &QTcpSocket::errorOccurred, upstream, [client, upstream] {
                if (upstream->state() == QAbstractSocket::UnconnectedState) {
                    if (client)
                        client->disconnectFromHost();
                    upstream->deleteLater();
                }
            });
            upstream->connectToHost(QStringLiteral("127.0.0.1"), target);
        }
    });
    QTimer watchdog;
    QObject::connect(&watchdog, &QTimer::timeout, &app, [&sandboxDir] {
        if (!QFileInfo::exists(sandboxDir + QStringLiteral("/meta.json")))
            QCoreApplication::quit();
    });
    watchdog.start(1000);
    return app.exec();
}

} // namespace fakesbx
