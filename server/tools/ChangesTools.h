#pragma once

namespace chat2sbx {

class ChangesService;
class SandboxResolver;
class ToolRegistry;

// show_changes (review the work in a sandbox's git workspace) and export_changes (bring a clone
// sandbox's work home as a branch of the host repository).
void registerChangesTools(ToolRegistry &registry, SandboxResolver &resolver, ChangesService &changes);

// The family's tools, one file each (<Name>Tool.cpp: definition and handler).
void addShowChangesTool(ToolRegistry &registry, SandboxResolver &resolver, ChangesService &changes);
void addExportChangesTool(ToolRegistry &registry, ChangesService &changes);

} // namespace chat2sbx
