#pragma once

#include <QByteArray>
#include <QString>

namespace chat2sbx {

// What one `sbx ls` that left sandboxes out says about why, told to the user and the agent. sbx
// leaves sandboxes out of its list when the Docker session expired (it then starts a sign-in) or
// its daemon lost the sandbox executor; both pass and the sandboxes come back as they were.
struct ListingDiagnosis {
    int missing = 0;          // how many of chat2sbx's sandboxes it left out
    QString why;              // for every sandbox left out; empty when none was
};

// `lsErr`: what `sbx ls` printed on stderr; `listedOfOurs`: how many of chat2sbx's sandboxes (running
// or stopped records) it listed; `missing`: how many it left out; `recheckSeconds`: how often
// chat2sbx lists again while any is left out.
ListingDiagnosis diagnoseListing(const QByteArray &lsErr, int listedOfOurs, int missing, int recheckSeconds);

// The error a tool call on an unreachable sandbox answers: what is known and what brings it back.
QString unreachableError(const QString &sandboxId, const QString &why, qint64 sinceMs, int lists);

} // namespace chat2sbx
