// Fault injection and test hooks, read from FAKE_TUNNEL_* environment variables.
#pragma once

#include <QProcessEnvironment>
#include <QString>

namespace faketunnel {

struct Faults
{
    bool exitAtOnce = false;     // FAKE_TUNNEL_EXIT_AT_ONCE=<code>
    int exitAtOnceCode = 0;
    qint64 exitAfterMs = -1;     // FAKE_TUNNEL_EXIT_AFTER_S=<seconds, fractional> -> exit 3
    bool neverReady = false;     // FAKE_TUNNEL_NEVER_READY=1
    bool ignoreSigterm = false;  // FAKE_TUNNEL_IGNORE_SIGTERM=1
    bool strictApiKey = false;   // FAKE_TUNNEL_STRICT_API_KEY=1: reject a literal key like the real client
    bool textHealth = false;     // FAKE_TUNNEL_HEALTH_BODY=text: real client's text/plain bodies
    int retryMs = 1000;          // FAKE_TUNNEL_RETRY_MS: delay between initialize attempts
    QString eventLogPath;        // FAKE_TUNNEL_LOG
};

// Returns false with *error naming the variable when a value is malformed.
bool readFaults(const QProcessEnvironment &env, Faults *faults, QString *error);

} // namespace faketunnel
