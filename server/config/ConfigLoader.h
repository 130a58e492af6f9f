#pragma once

#include "config/Config.h"

#include <QList>
#include <QPair>
#include <QProcessEnvironment>
#include <QString>

namespace chat2sbx {

// Builds a Config from defaults, config.json and the environment. Any invalid value is an
// error naming the setting and the value; nothing is silently replaced by a default.
class ConfigLoader {
public:
    // homeDir: the user's home (tests pass a temporary one).
    static bool load(const QProcessEnvironment &env, const QString &homeDir, Config &out, QString &error);
    static bool loadFromProcess(Config &out, QString &error);
    // Every setting the loader reads: its environment variable and its config.json key (empty for the
    // two read from the environment only, CHAT2SBX_DATA_ROOT and CHAT2SBX_CONFIG). What the guide,
    // the messages and the README name is checked against this list (unit.guide_settings).
    static QList<QPair<QString, QString>> settingNames();
};

} // namespace chat2sbx
