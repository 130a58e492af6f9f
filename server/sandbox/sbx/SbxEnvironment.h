#pragma once

#include <QProcessEnvironment>
#include <QStringList>

namespace chat2sbx {

// The environment every `sbx` child gets, built explicitly from the server's: what the CLI and its
// daemon need (PATH, HOME, locale, XDG folders, the session bus of the credential store, Docker's
// and sbx's own settings, proxies and certificates) plus the variables `extra` names (NAME or
// PREFIX*; Config::sbxEnv). Never the server's own CHAT2SBX_* variables (tokens, keys).
QProcessEnvironment sbxEnvironment(const QProcessEnvironment &parent, const QStringList &extra);

} // namespace chat2sbx
