// The ways the real sbx fails in the field (reference/sbx-contract.md, "How sbx fails in the
// field"), each a knob a test switches on in faults.env and off again: a lock that hangs every
// command, a save that wedged the daemon, the update prompt, an expired Docker session, no sandbox
// executor, and `sbx ls` leaving sandboxes out for a number of calls or seconds.
#pragma once

#include "Commands.h"

namespace fakesbx {

// Before any command runs (version included): the hub-refresh lock (FAKE_SBX_HANG_ALL) and the
// wedge a timed-out template save left (the `wedged` marker). Never returns while either holds.
void applyHangs(const Context &ctx);

// For a daemon command, after the sign-in check's place: the update prompt (FAKE_SBX_UPDATE_PENDING)
// and an expired session (FAKE_SBX_SESSION_EXPIRED; `ls` answers an empty list instead). -1 to go on.
int applyDaemonFaults(const Context &ctx, const QString &key);

// A command that starts a VM (create, exec or publish of a stopped sandbox): the executor is gone
// (FAKE_SBX_NO_EXECUTOR). -1 to go on.
int requireExecutor(const Context &ctx);

// Whether `sbx ls` leaves this sandbox out now (FAKE_SBX_LS_HIDE, bounded by FAKE_SBX_LS_HIDE_CALLS
// or FAKE_SBX_LS_HIDE_FOR_MS). Call once per ls: `beginListing` counts the call.
class ListHiding
{
public:
    explicit ListHiding(const Context &ctx);
    bool hides(const QString &name) const;
    // The session expired: the list is empty and a device-code sign-in is printed on stderr.
    bool sessionExpired() const { return m_expired; }

private:
    bool m_all = false;
    bool m_active = false;
    bool m_expired = false;
    QStringList m_names;
};

// `template save` with FAKE_SBX_TEMPLATE_SAVE_WEDGES=1: writes the `wedged` marker and hangs, as a
// save that timed out once left every later command hanging (a test removes the marker to end it).
void wedgeOnSave(const Context &ctx);

} // namespace fakesbx
