#pragma once

namespace chat2sbx::ui {

// Registers the bundled icons and AGENTS.md example (idempotent).
void ensureResources();

} // namespace chat2sbx::ui
