#pragma once

#include <QString>

namespace chat2sbx {

// pending → approved | rejected (the user) → closed (an approved one once its copy started, a
// rejected one once the agent was told).
enum class ExportRequestState { Pending, Approved, Rejected, Closed };

QString exportRequestStateName(ExportRequestState state);
bool parseExportRequestState(const QString &text, ExportRequestState &out);

// An export_file (or `chat2sbx sandbox export`) that waits for the user's approval: every export
// with exportNeedsApproval, one over a budget with exportOverBudget "ask". Decided once by the local
// user (tray, notification, CLI); the agent's next export_file of the same path learns the decision.
struct ExportRequest {
    QString id;                  // exp_ + random
    QString sandboxId;
    QString path;                // as the agent wrote it: the key of a repeated call
    QString shown;               // as results show it; its last part names the file
    qint64 size = 0;             // bytes (a folder: its .tar.gz) when asked; an approval covers at most this
    bool folder = false;
    QString why;                 // one sentence: which setting made it wait
    QString clientName;          // the MCP client that asked, may be empty
    ExportRequestState state = ExportRequestState::Pending;
    qint64 requestedAt = 0;
    qint64 decidedAt = 0;        // 0 while pending
    QString decidedBy;           // "cli", "tray", "notification"; empty while pending

    bool isPending() const { return state == ExportRequestState::Pending; }
    QString fileName() const { return shown.section(QLatin1Char('/'), -1, -1, QString::SectionSkipEmpty); }
};

} // namespace chat2sbx
