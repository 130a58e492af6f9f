#pragma once

#include "state/SandboxRepository.h"

#include <QJsonObject>

namespace chat2sbx {

// How sleep shows in a sandbox's JSON (sandbox_get, sandbox_list, `chat2sbx sandbox list --json`):
// slept_at / woke_at when it ever slept or woke, and for a stopped sandbox its idle deadline and a
// sleep_note saying what is kept, what ended and that the next tool call wakes it.
void insertSleepFields(QJsonObject &summary, const SandboxView &view);
QJsonObject sleepSchemaProperties();

} // namespace chat2sbx
