#pragma once

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QLocalServer;
class QLocalSocket;

namespace chat2sbx {

// The running server's local control channel: a Unix socket in the state directory (mode 0600, and a
// peer of another user is refused by its credentials as well) on which the CLI's verbs that change
// state arrive as requests, so that the one process holding the sandboxes, their holds and channels
// acts on them. One JSON object per line each way: the request, then the reply; then the connection
// closes. A request is bounded (kMaxRequestBytes) and must arrive within kRequestTimeoutMs.
//
// A Unix socket rather than the loopback endpoint with the local token: only this user can reach
// it (the file's mode and SO_PEERCRED), there is no port and no token to pass to the CLI, and a
// server that is gone leaves a socket nobody answers, which the CLI tells from a refused request.
class ControlChannel : public QObject {
    Q_OBJECT
public:
    using Reply = std::function<void(const QJsonObject &reply)>;
    using Handler = std::function<void(const QJsonObject &request, Reply reply)>;

    explicit ControlChannel(const QString &path, QObject *parent = nullptr);
    ~ControlChannel() override;

    void setHandler(Handler handler) { m_handler = std::move(handler); }
    // Listens at the path (a socket left by a server that is gone is replaced).
    bool listen(QString &error);
    void close();
    bool isListening() const;
    QString path() const { return m_path; }

    static constexpr qint64 kMaxRequestBytes = 64 * 1024;
    static constexpr int kRequestTimeoutMs = 10000;

    // A reply that says the request was refused, in the shape every reply has.
    static QJsonObject refusal(const QString &why);

private:
    void accept(QLocalSocket *socket);

    QString m_path;
    std::unique_ptr<QLocalServer> m_server;
    Handler m_handler;
};

} // namespace chat2sbx
