#pragma once

#include "config/Config.h"
#include "runtime/StatusReport.h"

#include <QObject>

#include <functional>

class QNetworkAccessManager;

namespace chat2sbx {

class SbxDriver;

// `chat2sbx status` from outside the server: asks a running server (PID file, GET /healthz, GET /mcp);
// for what it does not answer, reads the database read-only and checks sbx itself (SbxStatus).
// Asynchronous; `done` runs once.
class StatusProbe : public QObject {
    Q_OBJECT
public:
    explicit StatusProbe(const Config &config, QObject *parent = nullptr);
    ~StatusProbe() override;

    using Done = std::function<void(const StatusReport &)>;
    void run(Done done);

    static constexpr int kHttpTimeoutMs = 3000;
    static constexpr int kSbxTimeoutMs = 15000;   // each sbx call of the check

private:
    struct Answer {
        int status = 0;   // 0: no HTTP answer
        QByteArray body;
        QString error;
    };
    void get(const QString &path, const QList<QPair<QByteArray, QByteArray>> &headers, std::function<void(const Answer &)> done);
    void probeMcp();
    void checkCloud();
    void checkSbx();
    void finish();

    Config m_config;
    QString m_base;
    StatusReport m_report;
    Done m_done;
    QNetworkAccessManager *m_nam = nullptr;
    SbxDriver *m_sbx = nullptr;
};

} // namespace chat2sbx
