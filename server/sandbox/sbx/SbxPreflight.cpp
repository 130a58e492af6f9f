#include "sandbox/sbx/SbxPreflight.h"

namespace chat2sbx {

QString sbxPreflightAdvice(const QString &sbxError)
{
    const QString e = sbxError.toLower();
    if (e.contains(QLatin1String("sbx login")) || e.contains(QLatin1String("not signed in")) ||
        e.contains(QLatin1String("not logged in")))
        return QStringLiteral("sbx is not signed in: run `sbx login` (on a host without a browser, sign in with a personal "
                              "access token, see `sbx login --help`), then run `chat2sbx setup` again");
    if (e.contains(QLatin1String("sbx policy")) || e.contains(QLatin1String("network policy")))
        return QStringLiteral("sbx has no network policy: run `sbx policy init balanced` (or choose another policy), then "
                              "run `chat2sbx setup` again");
    return {};
}

} // namespace chat2sbx
