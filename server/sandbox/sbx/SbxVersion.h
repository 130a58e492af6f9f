#pragma once

#include <QByteArray>
#include <QString>

namespace chat2sbx {

// sbx-contract.md, behaviour 6: the features chat2sbx uses need sbx v0.43 or newer.
constexpr int kMinSbxMajor = 0;
constexpr int kMinSbxMinor = 43;
QString minimumSbxVersionText();   // "v0.43"

// client.version of `sbx version --json` ("v0.47.0" or "0.47.0"); empty when absent or malformed.
// Leading daemon start-up lines are skipped (parseSbxJson).
QString parseSbxVersionJson(const QByteArray &stdoutBytes);
// The first "[v]N.N[.N…]" in free text (plain `sbx version` output); empty when none.
QString findSbxVersion(const QString &text);
// true when `version` ("v0.47.0", "0.43", "1.2.3-rc1") is at least the minimum; false when unparsable.
bool sbxVersionSupported(const QString &version);

} // namespace chat2sbx
