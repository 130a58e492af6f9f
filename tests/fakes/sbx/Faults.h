// Fault injection. Every FAKE_SBX_* setting is looked up in $FAKE_SBX_STATE/faults.env first
// (KEY=VALUE lines, re-read by every invocation) and then in the environment. An empty value
// means "not set", so a key written empty in faults.env switches an environment fault off.
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace fakesbx {

class Faults
{
public:
    static Faults load(const QString &faultsFile);

    QString value(const QString &key) const;
    bool enabled(const QString &key) const;     // set, and not "0"
    QStringList list(const QString &key) const; // comma separated, trimmed, empties dropped

private:
    QHash<QString, QString> m_file;
};

// The fault key of a command line: VERSION, TEMPLATE_LS, TEMPLATE_SAVE, CREATE, LS, EXEC,
// PORTS, PUBLISH, RM, STOP, POLICY_<ALLOW|DENY|RM|LS|LOG|CHECK|APPROVAL|INIT>; empty when the command line is not one of them.
QString commandKey(const QStringList &args);

// FAKE_SBX_HANG_<key> (never returns), FAKE_SBX_SLOW_<key>, FAKE_SBX_FAIL_<key>, in that order.
// Returns -1 to go on, otherwise the exit code.
int applyCommandFaults(const Faults &faults, const QString &key);

// A delay knob of the timing profile: the key's value in ms when set, else `realisticMs` under
// FAKE_SBX_PROFILE=realistic (the figures reported against real sbx), else 0.
long profileDelayMs(const Faults &faults, const QString &key, long realisticMs);

void sleepMs(long ms);
[[noreturn]] void hangForever();

} // namespace fakesbx
