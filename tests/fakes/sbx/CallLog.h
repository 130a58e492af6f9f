// $FAKE_SBX_STATE/calls.log: one compact JSON array of the arguments (argv[1..]) per invocation.
#pragma once

#include <QString>
#include <QStringList>

namespace fakesbx {

// One O_APPEND write per line, so concurrent fakes never interleave within a line.
void appendCall(const QString &logPath, const QStringList &args);

} // namespace fakesbx
