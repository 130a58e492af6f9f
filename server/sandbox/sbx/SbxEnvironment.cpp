#include "sandbox/sbx/SbxEnvironment.h"

namespace chat2sbx {
namespace {

const char *const kPassedNames[] = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR",
    "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
    "DBUS_SESSION_BUS_ADDRESS",
    "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR",
};

// LC_*: locale; DOCKER_*: the engine and config folder (DOCKER_SANDBOXES_* settings before v0.55);
// SBX_*: the CLI's own.
const char *const kPassedPrefixes[] = {"LC_", "DOCKER_", "SBX_"};

bool isOurs(const QString &name)
{
    return name.startsWith(QLatin1String("CHAT2SBX_"));
}

} // namespace

QProcessEnvironment sbxEnvironment(const QProcessEnvironment &parent, const QStringList &extra)
{
    QProcessEnvironment env;
    const QStringList names = parent.keys();
    for (const char *name : kPassedNames)
        if (parent.contains(QLatin1String(name)))
            env.insert(QLatin1String(name), parent.value(QLatin1String(name)));
    for (const QString &name : names)
        for (const char *prefix : kPassedPrefixes)
            if (name.startsWith(QLatin1String(prefix)))
                env.insert(name, parent.value(name));
    for (QString pattern : extra) {
        pattern = pattern.trimmed();
        const bool isPrefix = pattern.endsWith(QLatin1Char('*'));
        const QString stem = isPrefix ? pattern.chopped(1) : pattern;
        if (stem.isEmpty())
            continue;   // "*" alone would be the whole environment again
        for (const QString &name : names)
            if ((isPrefix ? name.startsWith(stem) : name == stem) && !isOurs(name))
                env.insert(name, parent.value(name));
    }
    if (!env.contains(QStringLiteral("PATH")))
        env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    return env;
}

} // namespace chat2sbx
