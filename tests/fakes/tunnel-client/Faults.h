// Fault injection and test hooks, read from FAKE_TUNNEL_* environment variables (README.md).
#pragma once

#include <QProcessEnvironment>
#include <QString>

namespace faketunnel {

struct Faults
{
    bool exitAtOnce = false;     // FAKE_TUNNEL_EXIT_AT_ONCE=<code>
    int exitAtOnceCode = 0;
    qint64 exitAfterMs = -1;     // FAKE_TUNNEL_EXIT_AFTER_S=<seconds, fractional> -> exit 3
    bool ignoreSigterm = false;  // FAKE_TUNNEL_IGNORE_SIGTERM=1
    int stopDelayMs = 0;         // FAKE_TUNNEL_STOP_DELAY_MS: a graceful stop takes this long
    // FAKE_TUNNEL_PROBE_FAILURES_FILE: a file holding a count n; while n > 0 each start-up probe
    // attempt decrements it and fails the way FAKE_TUNNEL_PROBE_FAILURE says (shared across processes).
    QString probeFailuresFile;
    QString probeFailure = QStringLiteral("refused");   // refused | http | timeout
    int pollStatus = 0;          // FAKE_TUNNEL_POLL_STATUS: every control-plane poll fails with it (401, 403, 500 ...)
    int pollMs = 1000;           // FAKE_TUNNEL_POLL_MS: length of one successful (long) poll
    bool noDoctor = false;       // FAKE_TUNNEL_NO_DOCTOR=1: an older client without `doctor`
    QString eventLogPath;        // FAKE_TUNNEL_LOG
    // FAKE_TUNNEL_HEALTH_DETAILS=1: the /health routes of clients newer than v0.0.14 (else 404, as v0.0.14).
    bool healthDetails = false;
    // FAKE_TUNNEL_DELIVERY_DEGRADED=<reason code>: the response-delivery component reports degraded.
    QString deliveryDegraded;
};

// Returns false with *error naming the variable when a value is malformed.
bool readFaults(const QProcessEnvironment &env, Faults *faults, QString *error);

} // namespace faketunnel
