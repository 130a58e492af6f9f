#pragma once

#include <QString>

namespace chat2sbx {

// The `instructions` of the initialize result. The first 512 characters alone describe the
// workflow (clients may truncate); the rest adds detail.
QString mcpInstructions();

} // namespace chat2sbx
