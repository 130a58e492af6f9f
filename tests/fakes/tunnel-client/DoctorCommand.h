// `tunnel-client doctor [--explain] [--json] [run flags]` as cmd/client/doctor_command.go: checks the
// configuration the daemon would use, that the MCP target answers (GET, 2 s), OAuth discovery and the
// health listener; prints "CHECK <id> <PASS|FAIL|SKIP> <summary>" lines and "RESULT ok|fail"; exit 0
// or 2. Like the real one it never contacts the control plane: a refused key still passes.
#pragma once

#include <QStringList>

namespace faketunnel {

int doctorCommand(const QStringList &args);

} // namespace faketunnel
