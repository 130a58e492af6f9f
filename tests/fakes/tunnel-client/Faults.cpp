#include "Faults.h"

#include <cmath>

namespace faketunnel {
namespace {

bool isOn(const QProcessEnvironment &env, const char *name)
{
    const QString v = env.value(QLatin1String(name)).trimmed().toLower();
    return v == QLatin1String("1") || v == QLatin1String("true") || v == QLatin1String("yes");
}

} // namespace

bool readFaults(const QProcessEnvironment &env, Faults *faults, QString *error)
{
    const QString atOnce = env.value(QStringLiteral("FAKE_TUNNEL_EXIT_AT_ONCE")).trimmed();
    if (!atOnce.isEmpty()) {
        bool ok = false;
        const int code = atOnce.toInt(&ok);
        if (!ok || code < 0 || code > 255) {
            *error = QStringLiteral("FAKE_TUNNEL_EXIT_AT_ONCE must be an exit code 0-255");
            return false;
        }
        faults->exitAtOnce = true;
        faults->exitAtOnceCode = code;
    }
    const QString after = env.value(QStringLiteral("FAKE_TUNNEL_EXIT_AFTER_S")).trimmed();
    if (!after.isEmpty()) {
        bool ok = false;
        const double seconds = after.toDouble(&ok);
        if (!ok || !std::isfinite(seconds) || seconds < 0 || seconds > 86400.0 * 365) {
            *error = QStringLiteral("FAKE_TUNNEL_EXIT_AFTER_S must be a non-negative number of seconds");
            return false;
        }
        faults->exitAfterMs = std::llround(seconds * 1000.0);
    }
    const QString retry = env.value(QStringLiteral("FAKE_TUNNEL_RETRY_MS")).trimmed();
    if (!retry.isEmpty()) {
        bool ok = false;
        const int ms = retry.toInt(&ok);
        if (!ok || ms < 1 || ms > 600000) {
            *error = QStringLiteral("FAKE_TUNNEL_RETRY_MS must be 1-600000");
            return false;
        }
        faults->retryMs = ms;
    }
    faults->neverReady = isOn(env, "FAKE_TUNNEL_NEVER_READY");
    faults->ignoreSigterm = isOn(env, "FAKE_TUNNEL_IGNORE_SIGTERM");
    faults->strictApiKey = isOn(env, "FAKE_TUNNEL_STRICT_API_KEY");
    faults->textHealth = env.value(QStringLiteral("FAKE_TUNNEL_HEALTH_BODY")).trimmed().toLower() == QLatin1String("text");
    faults->eventLogPath = env.value(QStringLiteral("FAKE_TUNNEL_LOG"));
    return true;
}

} // namespace faketunnel
