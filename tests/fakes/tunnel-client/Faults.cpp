#include "Faults.h"

#include <cmath>

namespace faketunnel {
namespace {

bool isOn(const QProcessEnvironment &env, const char *name)
{
    const QString v = env.value(QLatin1String(name)).trimmed().toLower();
    return v == QLatin1String("1") || v == QLatin1String("true") || v == QLatin1String("yes");
}

// An integer variable within [min, max]; absent leaves *out unchanged.
bool readInt(const QProcessEnvironment &env, const char *name, int min, int max, int *out, QString *error)
{
    const QString text = env.value(QLatin1String(name)).trimmed();
    if (text.isEmpty())
        return true;
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < min || value > max) {
        *error = QStringLiteral("%1 must be an integer %2-%3").arg(QLatin1String(name)).arg(min).arg(max);
        return false;
    }
    *out = value;
    return true;
}

} // namespace

bool readFaults(const QProcessEnvironment &env, Faults *faults, QString *error)
{
    if (!env.value(QStringLiteral("FAKE_TUNNEL_EXIT_AT_ONCE")).trimmed().isEmpty()) {
        faults->exitAtOnce = true;
        if (!readInt(env, "FAKE_TUNNEL_EXIT_AT_ONCE", 0, 255, &faults->exitAtOnceCode, error))
            return false;
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
    if (!readInt(env, "FAKE_TUNNEL_STOP_DELAY_MS", 0, 600000, &faults->stopDelayMs, error)
        || !readInt(env, "FAKE_TUNNEL_POLL_STATUS", 100, 599, &faults->pollStatus, error)
        || !readInt(env, "FAKE_TUNNEL_POLL_MS", 10, 600000, &faults->pollMs, error))
        return false;
    faults->probeFailuresFile = env.value(QStringLiteral("FAKE_TUNNEL_PROBE_FAILURES_FILE"));
    faults->healthDetails = env.value(QStringLiteral("FAKE_TUNNEL_HEALTH_DETAILS")) == QLatin1String("1");
    faults->deliveryDegraded = env.value(QStringLiteral("FAKE_TUNNEL_DELIVERY_DEGRADED")).trimmed().left(64);
    const QString kind = env.value(QStringLiteral("FAKE_TUNNEL_PROBE_FAILURE")).trimmed().toLower();
    if (!kind.isEmpty()) {
        if (kind != QLatin1String("refused") && kind != QLatin1String("http") && kind != QLatin1String("timeout")) {
            *error = QStringLiteral("FAKE_TUNNEL_PROBE_FAILURE must be refused, http or timeout");
            return false;
        }
        faults->probeFailure = kind;
    }
    faults->ignoreSigterm = isOn(env, "FAKE_TUNNEL_IGNORE_SIGTERM");
    faults->noDoctor = isOn(env, "FAKE_TUNNEL_NO_DOCTOR");
    faults->eventLogPath = env.value(QStringLiteral("FAKE_TUNNEL_LOG"));
    return true;
}

} // namespace faketunnel
