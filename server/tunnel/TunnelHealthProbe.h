#pragma once

#include "tunnel/TunnelHealthDetails.h"

#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

class QNetworkReply;

namespace chat2sbx {

// What tunnel-client's own health listener says (reference/tunnel-client.md): where it listens (the
// loopback URL it writes to --health.url-file), /readyz, the control plane's poll gauge
// commands_poll_last_successful_timestamp_seconds in /metrics, and the components' view in
// /health?details=true where the client answers it (newer than v0.0.14; a 404 means an older one).
// One request at a time, each with a timeout and read bounded; an answer for an earlier client
// (before reset()) is dropped.
class TunnelHealthProbe : public QObject {
    Q_OBJECT
public:
    explicit TunnelHealthProbe(QObject *parent = nullptr);

    struct Evidence {
        bool readyzOk = false;
        QString readinessDetail;        // the last /readyz answer while not ready, else empty
        double lastPollSuccessS = 0;    // the gauge: Unix seconds of the last successful poll, 0 none
        std::optional<TunnelHealthDetails> details;
    };

    // A new client: nothing known yet (it may be another version); its URL file is `urlFile` (removed
    // here: a stale one from an earlier client must not be taken for this one's). `mask` hides secrets
    // in what the client answers.
    void reset(const QString &urlFile, std::function<QString(QString)> mask);
    // Drops the request under way and every later answer until the next reset().
    void abort();
    // One round: the URL file while the listener is unknown, /readyz, and once ready /metrics then the
    // details. Nothing while a request is under way.
    void probe();

    const Evidence &evidence() const { return m_evidence; }
    QString base() const { return m_base; }   // http://127.0.0.1:<port>, empty while unknown

signals:
    void listening();                          // base() is known
    void becameReady(const QString &body);     // /readyz turned 200
    // /readyz 503 with a failure this process never recovers from (pkg/runtimehealth/health.go).
    void cannotBecomeReady(const QString &body);
    void updated();                            // evidence() changed: judge the state again

private:
    bool readUrlFile();
    void onReadyz(int status, const QString &body, const QString &error);
    void onMetrics(const QByteArray &body);
    void readDetails();
    // GET `path`; `then` runs only for the client of this reset().
    void get(const QString &path, std::function<void(QNetworkReply *)> then);

    QString m_urlFile;
    std::function<QString(QString)> m_mask;
    QString m_base;
    Evidence m_evidence;
    enum class DetailsRoute { Unknown, Served, Absent } m_detailsRoute = DetailsRoute::Unknown;
    quint64 m_generation = 0;
    QNetworkAccessManager m_nam;
    QPointer<QNetworkReply> m_request;
};

} // namespace chat2sbx
