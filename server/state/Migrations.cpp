#include "state/Migrations.h"

namespace chat2sbx {

const QList<QStringList> &schemaMigrations()
{
    static const QList<QStringList> migrations = {
        // 1: the core tables.
        {
            QStringLiteral("CREATE TABLE workspaces ("
                           " id TEXT PRIMARY KEY,"
                           " mode TEXT NOT NULL CHECK (mode IN ('managed','clone','direct')),"
                           " host_path TEXT,"
                           " display_name TEXT NOT NULL,"
                           " created_at INTEGER NOT NULL,"
                           " last_used_at INTEGER NOT NULL,"
                           " trashed_at INTEGER)"),
            QStringLiteral("CREATE TABLE sandboxes ("
                           " id TEXT PRIMARY KEY,"
                           " workspace_id TEXT NOT NULL REFERENCES workspaces(id),"
                           " runtime_name TEXT NOT NULL UNIQUE,"
                           " state TEXT NOT NULL CHECK (state IN ('creating','running','destroying','failed','destroyed')),"
                           " memory TEXT,"
                           " failure_reason TEXT,"
                           " created_at INTEGER NOT NULL,"
                           " updated_at INTEGER NOT NULL,"
                           " last_activity_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE TABLE approvals ("
                           " id TEXT PRIMARY KEY,"
                           " host_path TEXT NOT NULL,"
                           " mode TEXT NOT NULL CHECK (mode IN ('clone','direct')),"
                           " state TEXT NOT NULL CHECK (state IN ('pending','approved','rejected')),"
                           " requested_at INTEGER NOT NULL,"
                           " decided_at INTEGER,"
                           " workspace_id TEXT REFERENCES workspaces(id))"),
            QStringLiteral("CREATE TABLE bash_sessions ("
                           " id TEXT PRIMARY KEY,"
                           " sandbox_id TEXT NOT NULL REFERENCES sandboxes(id),"
                           " command TEXT NOT NULL,"
                           " cwd TEXT,"
                           " status TEXT NOT NULL CHECK (status IN ('running','exited')),"
                           " exit_code INTEGER,"
                           " started_at INTEGER NOT NULL,"
                           " finished_at INTEGER,"
                           " read_offset INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("CREATE TABLE audit_log ("
                           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                           " at INTEGER NOT NULL,"
                           " tool TEXT NOT NULL,"
                           " sandbox_id TEXT,"
                           " duration_ms INTEGER NOT NULL,"
                           " outcome TEXT NOT NULL,"
                           " detail TEXT)"),
        },
        // 2: exposed ports, idle deadlines and the indexes the services query by.
        {
            QStringLiteral("CREATE TABLE sandbox_ports ("
                           " sandbox_id TEXT NOT NULL REFERENCES sandboxes(id),"
                           " sandbox_port INTEGER NOT NULL,"
                           " host_ip TEXT NOT NULL,"
                           " host_port INTEGER NOT NULL,"
                           " PRIMARY KEY (sandbox_id, sandbox_port))"),
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN idle_deadline INTEGER"),
            QStringLiteral("UPDATE sandboxes SET idle_deadline = last_activity_at + 86400000"),
            QStringLiteral("CREATE INDEX sandboxes_by_workspace ON sandboxes(workspace_id, state)"),
            QStringLiteral("CREATE INDEX bash_sessions_by_sandbox ON bash_sessions(sandbox_id)"),
            QStringLiteral("CREATE INDEX approvals_by_path ON approvals(host_path, mode, state)"),
            QStringLiteral("CREATE INDEX audit_log_by_time ON audit_log(at)"),
        },
        // 3: host directory identities (device/inode, to detect a swap between check and use),
        //    approval display names and who decided, at most one pending approval per path and mode.
        {
            QStringLiteral("ALTER TABLE workspaces ADD COLUMN host_device INTEGER"),
            QStringLiteral("ALTER TABLE workspaces ADD COLUMN host_inode INTEGER"),
            QStringLiteral("ALTER TABLE approvals ADD COLUMN display_name TEXT"),
            QStringLiteral("ALTER TABLE approvals ADD COLUMN decided_by TEXT"),
            QStringLiteral("ALTER TABLE approvals ADD COLUMN host_device INTEGER"),
            QStringLiteral("ALTER TABLE approvals ADD COLUMN host_inode INTEGER"),
            QStringLiteral("CREATE UNIQUE INDEX approvals_one_pending ON approvals(host_path, mode) WHERE state = 'pending'"),
            QStringLiteral("CREATE INDEX workspaces_by_host_path ON workspaces(host_path, mode)"),
        },
        // 4: the activity log says who called (MCP client name, short session id) and what the call
        //    was about (a one-line summary of its arguments); `detail` holds the error text.
        {
            QStringLiteral("ALTER TABLE audit_log ADD COLUMN client TEXT"),
            QStringLiteral("ALTER TABLE audit_log ADD COLUMN session TEXT"),
            QStringLiteral("ALTER TABLE audit_log ADD COLUMN summary TEXT"),
            QStringLiteral("CREATE INDEX audit_log_by_sandbox ON audit_log(sandbox_id, id)"),
        },
        // 5: why an agent asked for a host folder and which MCP client asked; host workspaces whose
        //    approval the user withdrew (revoked_at).
        {
            QStringLiteral("ALTER TABLE approvals ADD COLUMN reason TEXT"),
            QStringLiteral("ALTER TABLE approvals ADD COLUMN client_name TEXT"),
            QStringLiteral("ALTER TABLE workspaces ADD COLUMN revoked_at INTEGER"),
        },
        // 6: warm sandboxes (WarmPool): made ahead of need, not yet anyone's. The sandbox id and the managed
        //    workspace are reserved here; their rows are written when the sandbox is handed over.
        {
            QStringLiteral("CREATE TABLE warm_sandboxes ("
                           " runtime_name TEXT PRIMARY KEY,"
                           " sandbox_id TEXT NOT NULL UNIQUE,"
                           " workspace_id TEXT NOT NULL UNIQUE,"
                           " workspace_path TEXT NOT NULL,"
                           " template_ref TEXT NOT NULL,"
                           " state TEXT NOT NULL CHECK (state IN ('creating','ready','stale')),"
                           " created_at INTEGER NOT NULL)"),
        },
        // 7: the `stopped` state (a sleeping VM: files kept, processes gone) with when and why it last
        //    stopped and woke; why a bash session was lost. SQLite cannot change a CHECK constraint, so
        //    the sandboxes table is rebuilt (Database::migrate runs migrations with foreign keys off
        //    and checks them before committing).
        {
            QStringLiteral("CREATE TABLE sandboxes_v7 ("
                           " id TEXT PRIMARY KEY,"
                           " workspace_id TEXT NOT NULL REFERENCES workspaces(id),"
                           " runtime_name TEXT NOT NULL UNIQUE,"
                           " state TEXT NOT NULL CHECK (state IN ('creating','running','stopped','destroying','failed','destroyed')),"
                           " memory TEXT,"
                           " failure_reason TEXT,"
                           " created_at INTEGER NOT NULL,"
                           " updated_at INTEGER NOT NULL,"
                           " last_activity_at INTEGER NOT NULL,"
                           " idle_deadline INTEGER,"
                           " slept_at INTEGER,"
                           " woke_at INTEGER,"
                           " sleep_reason TEXT)"),
            QStringLiteral("INSERT INTO sandboxes_v7 (id, workspace_id, runtime_name, state, memory, failure_reason, created_at,"
                           " updated_at, last_activity_at, idle_deadline)"
                           " SELECT id, workspace_id, runtime_name, state, memory, failure_reason, created_at, updated_at,"
                           " last_activity_at, idle_deadline FROM sandboxes"),
            QStringLiteral("DROP TABLE sandboxes"),
            QStringLiteral("ALTER TABLE sandboxes_v7 RENAME TO sandboxes"),
            QStringLiteral("CREATE INDEX sandboxes_by_workspace ON sandboxes(workspace_id, state)"),
            QStringLiteral("ALTER TABLE bash_sessions ADD COLUMN lost_reason TEXT"),
        },
        // 8: network access: agents' requests for hosts (decided by the user) and the sbx allow rules
        //    chat2sbx added, so it can remove them when their sandbox is destroyed.
        {
            QStringLiteral("CREATE TABLE network_requests ("
                           " id TEXT PRIMARY KEY,"
                           " sandbox_id TEXT NOT NULL,"
                           " hosts TEXT NOT NULL,"
                           " reason TEXT,"
                           " client_name TEXT,"
                           " state TEXT NOT NULL CHECK (state IN ('pending','allowed','denied')),"
                           " always INTEGER NOT NULL DEFAULT 0,"
                           " requested_at INTEGER NOT NULL,"
                           " decided_at INTEGER,"
                           " decided_by TEXT)"),
            QStringLiteral("CREATE INDEX network_requests_by_state ON network_requests(state, requested_at)"),
            QStringLiteral("CREATE TABLE network_rules ("
                           " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                           " sandbox_id TEXT,"
                           " runtime_name TEXT,"
                           " host TEXT NOT NULL,"
                           " request_id TEXT,"
                           " added_at INTEGER NOT NULL)"),
        },
        // 9: which ChatGPT conversation (_meta "openai/session", an anonymised id) made each call; small
        //    named values the server keeps across restarts (the tool list ChatGPT last fetched).
        {
            QStringLiteral("ALTER TABLE audit_log ADD COLUMN conversation TEXT"),
            QStringLiteral("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL)"),
        },
        // 10: exports that wait for the user's approval (exportNeedsApproval, or over a budget).
        {
            QStringLiteral("CREATE TABLE export_requests ("
                           " id TEXT PRIMARY KEY,"
                           " sandbox_id TEXT NOT NULL,"
                           " path TEXT NOT NULL,"
                           " shown TEXT NOT NULL,"
                           " size INTEGER NOT NULL,"
                           " folder INTEGER NOT NULL DEFAULT 0,"
                           " why TEXT NOT NULL,"
                           " client_name TEXT,"
                           " state TEXT NOT NULL CHECK (state IN ('pending','approved','rejected','closed')),"
                           " requested_at INTEGER NOT NULL,"
                           " decided_at INTEGER,"
                           " decided_by TEXT)"),
            QStringLiteral("CREATE UNIQUE INDEX export_requests_one_pending ON export_requests(sandbox_id, path)"
                           " WHERE state = 'pending'"),
            QStringLiteral("CREATE INDEX export_requests_by_state ON export_requests(state, requested_at)"),
        },
        // 11: checkpoints of sandboxes, recorded before anything is acted on.
        {
            QStringLiteral("CREATE TABLE checkpoints ("
                           " id TEXT PRIMARY KEY,"
                           " sandbox_id TEXT NOT NULL,"
                           " label TEXT,"
                           " template_ref TEXT NOT NULL,"
                           " workspace_copy TEXT,"
                           " state TEXT NOT NULL CHECK (state IN ('saving','ready','failed')),"
                           " failure TEXT,"
                           " size_bytes INTEGER NOT NULL DEFAULT 0,"
                           " created_at INTEGER NOT NULL,"
                           " finished_at INTEGER,"
                           " pinned INTEGER NOT NULL DEFAULT 0)"),
            QStringLiteral("CREATE INDEX checkpoints_by_sandbox ON checkpoints(sandbox_id, created_at)"),
            QStringLiteral("CREATE INDEX checkpoints_by_state ON checkpoints(state)"),
        },
        // 12: a restore under way (one row per sandbox), written before its VM is removed: a restart
        //     finishes it from the checkpoint, and `undo_checkpoint_id` holds what was there before.
        {
            QStringLiteral("CREATE TABLE sandbox_restores ("
                           " sandbox_id TEXT PRIMARY KEY,"
                           " checkpoint_id TEXT NOT NULL,"
                           " undo_checkpoint_id TEXT NOT NULL,"
                           " started_at INTEGER NOT NULL)"),
        },
        // 13: sandboxes made from a checkpoint (sandbox_fork) and where they came from.
        {
            QStringLiteral("CREATE TABLE sandbox_forks ("
                           " sandbox_id TEXT PRIMARY KEY,"
                           " checkpoint_id TEXT NOT NULL,"
                           " parent_sandbox_id TEXT NOT NULL,"
                           " name TEXT,"
                           " created_at INTEGER NOT NULL)"),
            QStringLiteral("CREATE INDEX sandbox_forks_by_checkpoint ON sandbox_forks(checkpoint_id)"),
        },
        // 14: a clone sandbox's checkpoint keeps its git state (refs and a bundle) in this host folder;
        //     the Docker images a checkpoint keeps (docker save into its disk), one reference a line.
        {
            QStringLiteral("ALTER TABLE checkpoints ADD COLUMN clone_state TEXT"),
            QStringLiteral("ALTER TABLE checkpoints ADD COLUMN docker_images TEXT"),
        },
        // 15: a sandbox sbx stopped listing is unreachable, not gone: since when, in how many listings
        //     in a row, and what chat2sbx knows of why. Its state stays what it was. And its base template.
        {
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN unreachable_since INTEGER"),
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN unreachable_lists INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN unreachable_why TEXT"),
            // The template its VM was made from: sbx cannot save a sandbox whose base image is gone, so
            // a checkpoint that is one is kept while the sandbox lives (NULL: made by an older version).
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN template_ref TEXT"),
        },
        // 16: where a sandbox runs: this computer, or Docker's cloud (its compute size, and when its
        //     time-to-live ends and at the latest can end: 24 h from creation).
        {
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN placement TEXT NOT NULL DEFAULT 'local'"),
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN cloud_size TEXT"),
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN expires_at INTEGER"),
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN expires_ceiling_at INTEGER"),
        },
        // 17: sandbox_list pages, newest first: the live sandboxes in creation order.
        {
            QStringLiteral("CREATE INDEX sandboxes_by_creation ON sandboxes(created_at, id)"),
        },
        // 18: a cloud sandbox's port published on the internet waits for the user's approval.
        {
            QStringLiteral("CREATE TABLE public_port_requests ("
                           " id TEXT PRIMARY KEY,"
                           " sandbox_id TEXT NOT NULL,"
                           " port INTEGER NOT NULL,"
                           " client_name TEXT,"
                           " state TEXT NOT NULL CHECK (state IN ('pending','approved','rejected','published','failed','unpublished')),"
                           " url TEXT,"
                           " error TEXT,"
                           " requested_at INTEGER NOT NULL,"
                           " decided_at INTEGER,"
                           " decided_by TEXT)"),
            QStringLiteral("CREATE UNIQUE INDEX public_port_requests_one_live ON public_port_requests(sandbox_id, port)"
                           " WHERE state IN ('pending','approved','published')"),
            QStringLiteral("CREATE INDEX public_port_requests_by_state ON public_port_requests(state, requested_at)"),
        },
        // 19: cloud sandboxes made ahead of need (cloudWarmSandboxes), recorded before `sbx --cloud create`.
        {
            QStringLiteral("CREATE TABLE cloud_warm_sandboxes ("
                           " runtime_name TEXT PRIMARY KEY,"
                           " sandbox_id TEXT NOT NULL,"
                           " workspace_id TEXT NOT NULL,"
                           " workspace_path TEXT NOT NULL,"
                           " size TEXT NOT NULL,"
                           " state TEXT NOT NULL CHECK (state IN ('creating','ready')),"
                           " created_at INTEGER NOT NULL,"
                           " expires_at INTEGER NOT NULL DEFAULT 0)"),
        },
        // 20: moves between this computer and the cloud (`sbx move`), recorded before anything happens
        //     so that a start finishes or undoes one a crash interrupted; and a sandbox whose workspace
        //     is a folder of its VM on this computer (moved back from the cloud: no host mount).
        {
            QStringLiteral("ALTER TABLE sandboxes ADD COLUMN workspace_in_vm INTEGER NOT NULL DEFAULT 0"),
            QStringLiteral("CREATE TABLE sandbox_moves ("
                           " sandbox_id TEXT PRIMARY KEY,"
                           " to_placement TEXT NOT NULL CHECK (to_placement IN ('local','cloud')),"
                           " step TEXT NOT NULL CHECK (step IN ('moving','created','switched','source_left')),"
                           " source_runtime TEXT NOT NULL,"
                           " dest_prefix TEXT NOT NULL,"
                           " dest_runtime TEXT NOT NULL DEFAULT '',"
                           " ttl_seconds INTEGER NOT NULL DEFAULT 0,"
                           " source_workspace_in_vm INTEGER NOT NULL DEFAULT 0,"
                           " source_cloud_size TEXT NOT NULL DEFAULT '',"
                           " started_at INTEGER NOT NULL,"
                           " warnings TEXT NOT NULL DEFAULT '')"),
        },
        // 21: checkpoints of cloud sandboxes are templates in Docker's cloud (their own budget), some
        //     with memory and processes (`--capture-mode all`).
        {
            QStringLiteral("ALTER TABLE checkpoints ADD COLUMN placement TEXT NOT NULL DEFAULT 'local'"
                           " CHECK (placement IN ('local','cloud'))"),
            QStringLiteral("ALTER TABLE checkpoints ADD COLUMN keeps_memory INTEGER NOT NULL DEFAULT 0"),
        },
    };
    return migrations;
}

} // namespace chat2sbx
