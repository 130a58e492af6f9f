#pragma once

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "runtime/Clock.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <memory>

class QHttpServer;

namespace chat2sbx {

class Database;
class PidFile;
class TunnelSupervisor;

// Wires the services and owns the start-up order: config → database → reconciliation → listen →
// tunnel. Shutdown runs the other way. The tray and `serve` both drive one Controller.
class Controller : public QObject {
    Q_OBJECT
public:
    enum class State { Stopped, Starting, Running, Stopping, Failed };
    Q_ENUM(State)

    explicit Controller(const Config &config, QObject *parent = nullptr);
    ~Controller() override;

    // Asynchronous: emits started() once the endpoint listens, or failed(reason).
    void start();
    // Asynchronous: emits stopped() when every child process is gone.
    void stop();

    State state() const { return m_state; }
    const Config &config() const { return m_config; }
    Database &database();
    QHttpServer &http();
    quint16 listeningPort() const { return m_listeningPort; }
    qint64 uptimeMs() const { return m_uptime.isValid() ? m_uptime.elapsed() : 0; }
    Clock &clock() const { return *m_clock; }
    // The tools the MCP endpoint serves; tool families register theirs before the endpoint listens.
    ToolRegistry &tools() { return m_tools; }
    void setClock(Clock *clock) { m_clock = clock; }
    // tunnel: the Secure MCP Tunnel client's supervisor; started after listen when Config::enableTunnel.
    // Exists from construction, so the MCP endpoint can call setLocalToken() before start().
    TunnelSupervisor &tunnel() { return *m_tunnel; }

signals:
    void started();
    void failed(const QString &reason);
    void stopped();
    void stateChanged(chat2sbx::Controller::State state);

private:
    void setState(State s);
    bool openDatabase(QString &error);
    bool listen(QString &error);
    void fail(const QString &reason);
    void finishStop();   // tunnel: the rest of stop() once the tunnel client is gone

    Config m_config;
    State m_state = State::Stopped;
    Clock *m_clock = &Clock::system();
    std::unique_ptr<Database> m_db;
    ToolRegistry m_tools;
    std::unique_ptr<QHttpServer> m_http;
    std::unique_ptr<PidFile> m_pidFile;
    std::unique_ptr<TunnelSupervisor> m_tunnel;   // tunnel
    quint16 m_listeningPort = 0;
    QElapsedTimer m_uptime;
};

} // namespace chat2sbx
