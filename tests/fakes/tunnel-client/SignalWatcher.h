// SIGTERM/SIGINT delivered into the event loop through a self-pipe and a QSocketNotifier.
#pragma once

#include <QObject>

class QSocketNotifier;

namespace faketunnel {

class SignalWatcher : public QObject
{
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;
    bool ok() const { return m_notifier != nullptr; }

    static const char *signalName(int signo);

signals:
    void signalReceived(int signo);

private:
    void drain();
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace faketunnel
