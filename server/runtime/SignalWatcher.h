#pragma once

#include <QObject>

class QSocketNotifier;

namespace chat2sbx {

// Turns SIGINT/SIGTERM into a Qt signal delivered on the event loop (self-pipe), so shutdown runs
// as ordinary event-loop work.
class SignalWatcher : public QObject {
    Q_OBJECT
public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

signals:
    void terminationRequested(int signalNumber);

private:
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace chat2sbx
