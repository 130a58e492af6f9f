#pragma once

// What the Activity view shows: commands running now (with their last output lines) and the most
// recent tool calls; the widgets only know this adapter (ServiceActivityModel binds it to the server).

#include "models/TrayModels.h"

#include <QObject>
#include <QString>
#include <QStringList>

namespace chat2sbx::ui {

struct RunningCommandRow {
    QString sandboxId;
    QString sessionId;
    QString command;
    qint64 startedAtMs = 0;
    QStringList lastLines;
    QString sandboxName = {};   // sandboxShortName; empty: show the id
};

struct ToolCallRow {
    qint64 atMs = 0;
    QString client;
    QString tool;
    QString sandboxId;
    QString summary;
    QString outcome;        // ok, error, invalid, cancelled
    qint64 durationMs = 0;
    QString error;
    QString conversation = {};   // the ChatGPT conversation, shortened (AuditEntry::shortConversation); may be empty
    QString sandboxName = {};    // sandboxShortName; empty: show the id
};

class ActivityModel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual QList<RunningCommandRow> running() const = 0;
    // Newest first.
    virtual QList<ToolCallRow> recentCalls(int limit) const = 0;
    // Output tails refresh live only while someone watches (the popup is open).
    virtual void setWatching(bool watching) = 0;
    // Asynchronous; `done` runs once, later.
    virtual void stop(const QString &sandboxId, const QString &sessionId, ResultCallback done) = 0;

signals:
    void changed();        // running commands or their output
    void callsChanged();   // recent tool calls
};

} // namespace chat2sbx::ui
