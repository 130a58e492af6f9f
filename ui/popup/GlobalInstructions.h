#pragma once

#include <QString>

namespace chat2sbx::ui {

// <data root>/AGENTS.md, created from the bundled example (:/AGENTS.md.example) when missing. Returns
// false with `error` set when it can not be created; never overwrites an existing file.
bool ensureGlobalInstructions(const QString &path, QString &error);

} // namespace chat2sbx::ui
