#include "sandbox/lifecycle/UnreachableDiagnosis.h"

#include "core/Clock.h"

namespace chat2sbx {
namespace {

bool asksToSignIn(const QByteArray &err)
{
    const QByteArray e = err.toLower();
    for (const char *needle : {"session has expired", "session expired", "sign in", "sbx login", "not signed in", "device code",
                               "/activate"})
        if (e.contains(needle))
            return true;
    return false;
}

} // namespace

ListingDiagnosis diagnoseListing(const QByteArray &lsErr, int listedOfOurs, int missing, int recheckSeconds)
{
    ListingDiagnosis d;
    d.missing = missing;
    if (missing <= 0)
        return d;
    const QString comesBack = QStringLiteral("Nothing was removed: the sandbox comes back as it was once sbx lists it again "
                                             "(chat2sbx asks every %1 s).").arg(recheckSeconds);
    if (asksToSignIn(lsErr))
        d.why = QStringLiteral("sbx asks you to sign in to Docker again (your Docker session expired) and lists no sandboxes "
                               "until you do: run `sbx login`. ") + comesBack;
    else if (listedOfOurs == 0)
        d.why = QStringLiteral("sbx lists none of chat2sbx's %1 sandboxes: its daemon may have lost its sandbox executor, or "
                               "your Docker session expired. Run `sbx login` if it asks you to sign in; otherwise restart "
                               "the daemon (`sbx daemon stop`, then any sbx command) or the computer. ").arg(missing)
                + comesBack;
    else
        d.why = QStringLiteral("sbx ls no longer lists this sandbox's VM while it lists the others. ") + comesBack
                + QStringLiteral(" If you removed it yourself with `sbx rm`, destroy it here to forget it.");
    return d;
}

QString unreachableError(const QString &sandboxId, const QString &why, qint64 sinceMs, int lists)
{
    return QStringLiteral("sandbox %1 is unreachable: sbx has not listed it since %2 (%3 %4 in a row). %5")
        .arg(sandboxId, isoTime(sinceMs))
        .arg(lists)
        .arg(lists == 1 ? QStringLiteral("listing") : QStringLiteral("listings"), why);
}

} // namespace chat2sbx
