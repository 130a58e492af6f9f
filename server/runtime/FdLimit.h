#pragma once

namespace chat2sbx {

// Raises the soft limit on open files to the hard limit (Linux distributions start processes at
// 1,024). The server holds connections, sandbox channels and child pipes; the HTTP connection cap
// keeps clients well below this, the raise leaves room for everything else. Returns the soft limit
// now in force, or -1 when it cannot be read.
long raiseOpenFileLimit();

} // namespace chat2sbx
