#include "sandbox/present/SandboxSleepJson.h"

#include "core/Clock.h"

namespace chat2sbx {

void insertSleepFields(QJsonObject &summary, const SandboxView &view)
{
    const SandboxRecord &r = view.record;
    if (r.sleptAt > 0)
        summary.insert(QStringLiteral("slept_at"), isoTime(r.sleptAt));
    if (r.wokeAt > 0)
        summary.insert(QStringLiteral("woke_at"), isoTime(r.wokeAt));
    if (r.state != SandboxState::Stopped)
        return;
    if (r.idleDeadline > 0)
        summary.insert(QStringLiteral("idle_deadline"), isoTime(r.idleDeadline));
    QString note = QStringLiteral("asleep");
    if (!r.sleepReason.isEmpty())
        note += QStringLiteral(": ") + r.sleepReason;
    note += QStringLiteral(". Files and installed packages are kept; its processes ended (bash sessions that were running "
                           "are lost). The next tool call on it wakes it, and takes a few seconds longer.");
    if (!view.ports.isEmpty())
        note += QStringLiteral(" Its exposed ports stay published: sbx forwards them again when it wakes, but the servers "
                               "behind them ended and must be started again.");
    summary.insert(QStringLiteral("sleep_note"), note);
}

QJsonObject sleepSchemaProperties()
{
    auto text = [](const QString &description) {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}, {QStringLiteral("description"), description}};
    };
    return {{QStringLiteral("slept_at"), text(QStringLiteral("ISO-8601 UTC; when its VM last stopped (asleep)"))},
            {QStringLiteral("woke_at"), text(QStringLiteral("ISO-8601 UTC; when a tool call last woke it"))},
            {QStringLiteral("sleep_note"), text(QStringLiteral("For a stopped sandbox: why, what is kept, and that the next tool call wakes it"))}};
}

} // namespace chat2sbx
