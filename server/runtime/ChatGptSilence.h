#pragma once

#include <QObject>
#include <QString>

namespace chat2sbx {

class Clock;

// The stall users report with the Secure MCP Tunnel (reference/tunnel-client.md): after about 40-60
// minutes of a conversation ChatGPT stops sending calls while the tunnel stays healthy and its polls
// go on. Nothing here restarts anything: it only recognises "tunnel healthy, a conversation that was
// active for a while, nothing received since" and words the known workaround (a new chat).
class ChatGptSilence : public QObject {
    Q_OBJECT
public:
    static constexpr qint64 kActiveForMs = 20 * 60 * 1000;   // a conversation long enough to be hit
    static constexpr qint64 kSilentForMs = 5 * 60 * 1000;    // silence long enough to be more than a pause
    static constexpr qint64 kForgetAfterMs = 2 * 60 * 60 * 1000;   // by then the user has moved on

    explicit ChatGptSilence(const Clock &clock, QObject *parent = nullptr);

    // A tools/call of ChatGPT conversation `conversation` came in.
    void noteCall(const QString &conversation);
    // What to tell the user now, or empty: only while the tunnel is connected.
    QString notice(bool tunnelConnected) const;

private:
    const Clock &m_clock;
    QString m_conversation;
    qint64 m_firstMs = 0;
    qint64 m_lastMs = 0;
};

} // namespace chat2sbx
