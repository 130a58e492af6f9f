#pragma once

#include <QString>

namespace chat2sbx {

// A script chat2sbx runs in a VM (`sbx exec <vm> bash -c <script> <name> <args>...`): every one lives
// in a file of its room's vm/ folder, compiled in as a resource and checked by lint.shellcheck; no
// shell is written inline in C++ (the layering check refuses it). Arguments go as arguments, never
// into the script text. `name` is the file's name ("docker-images.sh"); an unknown name is a
// programming error and returns an empty script (which fails at once in the VM).
QString inVmScript(const QString &name);

} // namespace chat2sbx
