#pragma once

#include "config/Config.h"

#include <QProcessEnvironment>

namespace chat2sbx {

// Builds a Config from defaults, config.json and the environment. Any invalid value is an
// error naming the setting and the value; nothing is silently replaced by a default.
class ConfigLoader {
public:
    // homeDir: the user's home (tests pass a temporary one).
    static bool load(const QProcessEnvironment &env, const QString &homeDir, Config &out, QString &error);
    static bool loadFromProcess(Config &out, QString &error);
};

} // namespace chat2sbx
