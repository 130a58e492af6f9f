#include "popup/SandboxesSection.h"

#include <QClipboard>
#include <QDateTime>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QToolButton>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

namespace {

QString clockTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm"));
}

// The compact line: id and state, the workspace (a direct one marked), ports as links (LAN-wide ones
// marked), sleep or wake, running commands.
QString summaryHtml(const SandboxRow &row)
{
    QStringList parts;
    parts << QStringLiteral("<b>%1</b> — %2").arg((row.name.isEmpty() ? row.id : row.name).toHtmlEscaped(), row.state.toHtmlEscaped());
    // The line names the workspace only; its id is in the details.
    const qsizetype idAt = row.workspace.indexOf(QStringLiteral(" (ws_"));
    const QString folder = row.workspace.left(idAt < 0 ? row.workspace.size() : idAt);
    // The short name already starts with the workspace's folder name: it is not said twice.
    QStringList ws;
    if (row.workspace.isEmpty() && row.name.isEmpty())
        ws << QStringLiteral("—");
    else if (!folder.isEmpty() && !row.name.startsWith(folder) && row.workspaceMode != QLatin1String("managed"))
        ws << folder.toHtmlEscaped();
    if (row.workspaceMode == QLatin1String("direct"))
        ws << toneHtml(Tone::Warning, QStringLiteral("direct: writes to %1").arg(row.hostPath.toHtmlEscaped()));
    else if (!row.workspaceMode.isEmpty())
        ws << row.workspaceMode.toHtmlEscaped();
    if (!ws.isEmpty())
        parts << ws.join(QStringLiteral(" · "));
    // Billed while it runs, and gone or stopped when its time-to-live ends: both in view.
    if (!row.cloudSize.isEmpty())
        parts << toneHtml(Tone::Warning, row.expiresAtMs > 0 ? QStringLiteral("cloud %1 · until %2").arg(row.cloudSize.toHtmlEscaped(),
                                                                                                       clockTime(row.expiresAtMs))
                                                             : QStringLiteral("cloud %1").arg(row.cloudSize.toHtmlEscaped()));
    QStringList links;
    for (const PortLink &p : row.portLinks) {
        if (p.isPublic) {
            links << QStringLiteral("<a href=\"%1\">%2→public URL</a> ").arg(p.url.toHtmlEscaped()).arg(p.sandboxPort)
                         + toneHtml(Tone::Warning, QStringLiteral("anyone can open it"));
            continue;
        }
        QString link = QStringLiteral("<a href=\"%1\">%2→%3:%4</a>").arg(p.url.toHtmlEscaped()).arg(p.sandboxPort)
                           .arg(p.hostIp.toHtmlEscaped()).arg(p.hostPort);
        if (p.lanWide)
            link += QStringLiteral(" ") + toneHtml(Tone::Error, QStringLiteral("LAN-wide"));
        links << link;
    }
    if (!links.isEmpty())
        parts << QStringLiteral("ports ") + links.join(QStringLiteral(", "));
    if (row.state == QLatin1String("stopped") && row.sleptAtMs > 0)
        parts << QStringLiteral("asleep since %1, wakes on the next tool call").arg(clockTime(row.sleptAtMs));
    else if (row.state == QLatin1String("running") && row.wokeAtMs > 0)
        parts << QStringLiteral("woke at %1").arg(clockTime(row.wokeAtMs));
    if (row.runningCommands > 0)
        parts << QStringLiteral("%1 running").arg(row.runningCommands == 1 ? QStringLiteral("1 command") : QStringLiteral("%1 commands").arg(row.runningCommands));
    if (!row.forkedFrom.isEmpty())
        parts << QStringLiteral("fork of %1").arg(row.forkedFrom.toHtmlEscaped());
    if (row.movingTo == QLatin1String("cloud"))
        parts << toneHtml(Tone::Warning, QStringLiteral("moving to Docker's cloud…"));
    else if (row.movingTo == QLatin1String("local"))
        parts << toneHtml(Tone::Warning, QStringLiteral("moving to this computer…"));
    if (!row.restoringTo.isEmpty())
        parts << toneHtml(Tone::Warning, QStringLiteral("restoring a checkpoint…"));
    else if (!row.checkpoints.isEmpty())
        parts << (row.checkpoints.size() == 1 ? QStringLiteral("1 checkpoint") : QStringLiteral("%1 checkpoints").arg(row.checkpoints.size()));
    return parts.join(QStringLiteral(" · "));
}

// The expander's lines: workspace, memory and idle deadline, mode, ports, conversations, reason.
QString detailText(const SandboxRow &row)
{
    QStringList lines;
    lines << QStringLiteral("id: %1").arg(row.id);
    lines << QStringLiteral("workspace: %1").arg(row.workspace.isEmpty() ? QStringLiteral("—") : row.workspace);
    QString memory = QStringLiteral("memory: %1").arg(row.memory.isEmpty() ? QStringLiteral("default") : row.memory);
    if (row.idleDeadlineMs > 0)
        memory += QStringLiteral(" · destroyed %1 if left idle").arg(formatTime(row.idleDeadlineMs));
    lines << memory;
    if (row.workspaceMode == QLatin1String("direct"))
        lines << QStringLiteral("mode: direct — writes to %1 on this computer").arg(row.hostPath);
    else if (row.workspaceMode == QLatin1String("clone"))
        lines << QStringLiteral("mode: clone of %1 (work comes home as a branch)").arg(row.hostPath);
    else if (!row.workspaceMode.isEmpty())
        lines << QStringLiteral("mode: %1").arg(row.workspaceMode);
    lines << QStringLiteral("ports: %1").arg(row.ports.isEmpty() ? QStringLiteral("none") : row.ports.join(QStringLiteral(", ")));
    if (!row.createdByConversation.isEmpty() && row.lastConversation != row.createdByConversation)
        lines << QStringLiteral("ChatGPT conversation: %1 (created it), %2 (last used it)")
                     .arg(row.createdByConversation, row.lastConversation);
    else if (!row.lastConversation.isEmpty())
        lines << QStringLiteral("ChatGPT conversation: %1").arg(row.lastConversation);
    if (!row.reason.isEmpty())
        lines << QStringLiteral("reason: %1").arg(row.reason);
    return lines.join(QLatin1Char('\n'));
}

QString checkpointLine(const CheckpointRow &c)
{
    QStringList parts{c.label.isEmpty() ? c.id : c.label};
    if (c.state == QLatin1String("saving"))
        parts << QStringLiteral("saving…");
    else
        parts << formatTime(c.createdAtMs)
              << QLocale::system().formattedDataSize(c.sizeBytes, 1, QLocale::DataSizeIecFormat);
    if (c.inCloud)
        parts << (c.keepsMemory ? QStringLiteral("in the cloud, with memory") : QStringLiteral("in the cloud"));
    if (c.pinned)
        parts << QStringLiteral("pinned");
    return parts.join(QStringLiteral(" · "));
}

// The workspace a sandbox works in, as its group's header says it: "thesis — clone".
QString groupOf(const SandboxRow &row)
{
    const qsizetype idAt = row.workspace.indexOf(QStringLiteral(" (ws_"));
    QString folder = row.workspace.left(idAt < 0 ? row.workspace.size() : idAt);
    if (folder.isEmpty())
        folder = QStringLiteral("no workspace");
    return row.workspaceMode.isEmpty() ? folder : QStringLiteral("%1 — %2").arg(folder, row.workspaceMode);
}

bool matches(const SandboxRow &row, const QString &filter)
{
    if (filter.isEmpty())
        return true;
    for (const QString *field : {&row.name, &row.id, &row.workspace, &row.hostPath, &row.state, &row.createdByConversation,
                                 &row.lastConversation, &row.forkedFrom})
        if (field->contains(filter, Qt::CaseInsensitive))
            return true;
    return false;
}

} // namespace

SandboxesSection::SandboxesSection(SandboxesModel &model, QWidget *parent)
    : CardList({QStringLiteral("sandboxes"), QStringLiteral("Sandboxes"), QStringLiteral("Sandboxes (%1)"),
                QStringLiteral("No sandboxes.")}, parent), m_model(model)
{
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("sandboxFilter"));
    m_filter->setPlaceholderText(QStringLiteral("Filter by name, workspace, conversation or state"));
    m_filter->setAccessibleName(QStringLiteral("Filter the sandboxes"));
    m_filter->setClearButtonEnabled(true);
    m_filter->hide();
    addAboveCards(m_filter);
    connect(m_filter, &QLineEdit::textChanged, this, &SandboxesSection::rebuild);
    follow(m_model, &SandboxesModel::changed, [this] { return addCards(); });
}

int SandboxesSection::addCards()
{
    const QList<SandboxRow> rows = m_model.sandboxes();
    const QString filter = m_filter->text().trimmed();
    m_filter->setVisible(rows.size() > kFilterFrom || !filter.isEmpty());
    if (!m_filter->isHidden())
        addFocus(m_filter);
    // Grouped by workspace, in the model's order within each group (and of the groups' first rows).
    QList<QString> groups;
    QHash<QString, QList<const SandboxRow *>> byGroup;
    int kept = 0;
    for (const SandboxRow &row : rows) {
        if (!matches(row, filter))
            continue;
        const QString group = groupOf(row);
        if (!byGroup.contains(group))
            groups << group;
        byGroup[group] << &row;
        ++kept;
    }
    const bool headers = groups.size() > 1 || kept > kFilterFrom;
    int shown = 0;
    for (const QString &group : std::as_const(groups)) {
        if (shown >= kMaxCards)
            break;
        const QList<const SandboxRow *> &members = byGroup.value(group);
        if (headers) {
            QLabel *header = makeLabel(QStringLiteral("%1 (%2)").arg(group).arg(members.size()), this, true);
            header->setObjectName(QStringLiteral("group"));
            header->setTextFormat(Qt::PlainText);
            addCard(header, {});
        }
        for (const SandboxRow *row : members) {
            if (shown >= kMaxCards)
                break;
            addSandboxCard(*row);
            ++shown;
        }
    }
    if (kept > shown) {
        QLabel *more = makeLabel(QStringLiteral("%1 more not shown: type in the filter to find one.").arg(kept - shown), this);
        more->setObjectName(QStringLiteral("moreSandboxes"));
        addCard(more, {});
    } else if (kept == 0 && !rows.isEmpty()) {
        QLabel *none = makeLabel(QStringLiteral("No sandbox matches “%1”.").arg(filter), this);
        none->setObjectName(QStringLiteral("noMatch"));
        none->setTextFormat(Qt::PlainText);
        addCard(none, {});
    }
    return static_cast<int>(rows.size());
}

void SandboxesSection::addSandboxCard(const SandboxRow &row)
{
    const bool expanded = m_expanded.contains(row.id);
    QWidget *card = makeCard(this, QStringLiteral("sandbox:") + row.id);
    auto *column = new QVBoxLayout(card);
    column->setSpacing(2);
    auto *line = new QHBoxLayout;
    auto *toggle = new QToolButton(card);
    toggle->setObjectName(QStringLiteral("expand:") + row.id);
    toggle->setArrowType(expanded ? Qt::DownArrow : Qt::RightArrow);
    toggle->setAutoRaise(true);
    const QString shownName = row.name.isEmpty() ? row.id : row.name;
    toggle->setAccessibleName(QStringLiteral("%1 details of sandbox %2").arg(expanded ? QStringLiteral("Hide") : QStringLiteral("Show"), shownName));
    toggle->setToolTip(toggle->accessibleName());
    line->addWidget(toggle, 0, Qt::AlignTop);

    QLabel *title = makeLabel(summaryHtml(row), card);
    title->setObjectName(QStringLiteral("title"));
    title->setToolTip(row.id);
    title->setTextFormat(Qt::RichText);
    title->setOpenExternalLinks(true);
    title->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    line->addWidget(title, 1);

    const bool busy = m_destroying.contains(row.id) || row.state == QLatin1String("destroying");
    auto *destroy = new QPushButton(busy ? QStringLiteral("Destroying…") : QStringLiteral("&Destroy…"), card);
    destroy->setObjectName(QStringLiteral("destroy:") + row.id);
    destroy->setAccessibleName(QStringLiteral("Destroy sandbox %1").arg(row.name.isEmpty() ? row.id : row.name));
    destroy->setToolTip(destroy->accessibleName());
    destroy->setEnabled(!busy);
    line->addWidget(destroy, 0, Qt::AlignTop);
    column->addLayout(line);

    QLabel *detail = makeLabel(detailText(row), card);
    detail->setObjectName(QStringLiteral("detail"));
    detail->setTextFormat(Qt::PlainText);
    detail->setTextInteractionFlags(Qt::TextSelectableByMouse);   // the full id, to copy
    detail->setContentsMargins(toggle->sizeHint().width(), 0, 0, 0);
    detail->setVisible(expanded);
    column->addWidget(detail);
    QList<QWidget *> focus{toggle, destroy};
    // The row's own actions sit with its details, so a collapsed row stays one line.
    QPushButton *pause = nullptr;
    QPushButton *extend = nullptr;
    if (expanded && row.state == QLatin1String("running") && !busy && row.movingTo.isEmpty()) {
        const bool pausing = m_pausing.contains(row.id);
        auto *actions = new QHBoxLayout;
        actions->setContentsMargins(toggle->sizeHint().width(), 2, 0, 0);
        pause = new QPushButton(pausing ? QStringLiteral("Pausing…") : QStringLiteral("&Pause"), card);
        pause->setObjectName(QStringLiteral("pause:") + row.id);
        pause->setAccessibleName(QStringLiteral("Pause sandbox %1 (its files are kept; the next tool call wakes it)").arg(shownName));
        pause->setToolTip(pause->accessibleName());
        pause->setEnabled(!pausing);
        actions->addWidget(pause);
        focus << pause;
        if (!row.cloudSize.isEmpty() && row.expiresAtMs > 0) {
            const bool extending = m_extending.contains(row.id);
            extend = new QPushButton(extending ? QStringLiteral("Extending…") : QStringLiteral("E&xtend"), card);
            extend->setObjectName(QStringLiteral("extend:") + row.id);
            extend->setAccessibleName(QStringLiteral("Extend the time of cloud sandbox %1 (it ends at %2 unless extended)")
                                          .arg(shownName, QDateTime::fromMSecsSinceEpoch(row.expiresAtMs).toString(QStringLiteral("HH:mm"))));
            extend->setToolTip(extend->accessibleName());
            extend->setEnabled(!extending);
            actions->addWidget(extend);
            focus << extend;
        }
        actions->addStretch(1);
        column->addLayout(actions);
    }
    // Between this computer and Docker's cloud (sandbox_move): offered while it runs or sleeps.
    QPushButton *move = nullptr;
    const bool toCloud = row.cloudSize.isEmpty();
    const bool movable = (row.state == QLatin1String("running") || row.state == QLatin1String("stopped")) && !busy
                         && row.restoringTo.isEmpty() && (!toCloud || row.canMoveToCloud || !row.movingTo.isEmpty());
    if (expanded && movable) {
        const bool moving = m_moving.contains(row.id) || !row.movingTo.isEmpty();
        auto *line2 = new QHBoxLayout;
        line2->setContentsMargins(toggle->sizeHint().width(), 2, 0, 0);
        move = new QPushButton(moving ? QStringLiteral("Moving…")
                                      : toCloud ? QStringLiteral("Continue in the &cloud") : QStringLiteral("&Bring back to this computer"),
                               card);
        move->setObjectName(QStringLiteral("move:") + row.id);
        move->setAccessibleName(toCloud ? QStringLiteral("Continue sandbox %1 in Docker's cloud (same id and files; billed while it "
                                                         "runs; running commands end)").arg(shownName)
                                        : QStringLiteral("Bring sandbox %1 back to this computer (same id and files; running "
                                                         "commands end)").arg(shownName));
        move->setToolTip(move->accessibleName());
        move->setEnabled(!moving);
        line2->addWidget(move);
        line2->addStretch(1);
        column->addLayout(line2);
        focus << move;
    }
    if (expanded)
        addPublicPorts(card, column, row, toggle->sizeHint().width(), focus);
    if (expanded)
        addCheckpoints(card, column, row, toggle->sizeHint().width(), focus);

    const QString id = row.id;
    const int running = row.runningCommands;
    connect(toggle, &QToolButton::clicked, this, [this, id] {
        if (!m_expanded.remove(id))
            m_expanded.insert(id);
        rebuild();
    });
    connect(destroy, &QPushButton::clicked, this, [this, id, shownName, running] { askDestroy(id, shownName, running); });
    if (pause)
        connect(pause, &QPushButton::clicked, this, [this, id, shownName] { pauseSandbox(id, shownName, false); });
    if (extend)
        connect(extend, &QPushButton::clicked, this, [this, id, shownName] { extendSandbox(id, shownName); });
    if (move)
        connect(move, &QPushButton::clicked, this, [this, id, shownName, toCloud, running] { askMove(id, shownName, toCloud, running); });
    addCard(card, focus);
}

void SandboxesSection::addCheckpoints(QWidget *card, QVBoxLayout *column, const SandboxRow &row, int indent, QList<QWidget *> &focus)
{
    if (row.checkpoints.isEmpty())
        return;
    const QString sandboxName = row.name.isEmpty() ? row.id : row.name;
    const bool sandboxBusy = m_checkpointBusy.contains(row.id) || !row.restoringTo.isEmpty();
    QLabel *heading = makeLabel(QStringLiteral("Checkpoints:"), card, true);
    heading->setContentsMargins(indent, 4, 0, 0);
    column->addWidget(heading);
    for (const CheckpointRow &c : row.checkpoints) {
        // The text on its own line (labels are the agent's words, of any length), the actions under it.
        QLabel *text = makeLabel(checkpointLine(c), card);
        text->setObjectName(QStringLiteral("checkpoint:") + c.id);
        text->setTextFormat(Qt::PlainText);
        text->setToolTip(c.id);
        text->setContentsMargins(indent, 0, 0, 0);
        column->addWidget(text);
        if (c.state != QLatin1String("ready"))
            continue;   // saving: nothing to do with it yet
        auto *line = new QHBoxLayout;
        line->setContentsMargins(indent, 0, 0, 0);
        line->addStretch(1);
        const bool ready = !sandboxBusy && !m_checkpointBusy.contains(c.id);
        const QString what = c.label.isEmpty() ? c.id : QStringLiteral("“%1”").arg(c.label);
        const auto button = [&](const QString &label, const QString &name, const QString &accessible) {
            auto *b = new QPushButton(label, card);
            b->setObjectName(name + QLatin1Char(':') + c.id);
            b->setAccessibleName(accessible);
            b->setToolTip(accessible);
            b->setEnabled(ready);
            line->addWidget(b, 0, Qt::AlignTop);
            focus << b;
            return b;
        };
        QPushButton *restore = button(QStringLiteral("Restore…"), QStringLiteral("restore"),
                                      QStringLiteral("Restore sandbox %1 to checkpoint %2").arg(sandboxName, what));
        if (c.inCloud != !row.cloudSize.isEmpty()) {   // the sandbox moved since: a restore goes only where the checkpoint is
            restore->setEnabled(false);
            restore->setToolTip(c.inCloud ? QStringLiteral("This checkpoint is in Docker's cloud and the sandbox is on this computer "
                                                           "now: continue it in the cloud first, or fork the checkpoint")
                                          : QStringLiteral("This checkpoint is on this computer and the sandbox is in the cloud now: "
                                                           "bring it back first, or fork the checkpoint"));
        }
        QPushButton *fork = button(QStringLiteral("Fork"), QStringLiteral("fork"),
                                   QStringLiteral("Make a new sandbox from checkpoint %1").arg(what));
        QPushButton *remove = button(QStringLiteral("Delete…"), QStringLiteral("deleteCheckpoint"),
                                     QStringLiteral("Delete checkpoint %1").arg(what));
        column->addLayout(line);
        const QString sandboxId = row.id, checkpointId = c.id;
        connect(restore, &QPushButton::clicked, this, [this, sandboxId, checkpointId, sandboxName, what, running = row.runningCommands] {
            QString info = QStringLiteral("What is in the sandbox now is saved as a checkpoint first, so this can be undone. "
                                          "Its memory and processes are not kept: it starts afresh at its next tool call.");
            if (running > 0)
                info.prepend(QStringLiteral("%1 still running in it and will end. ")
                                 .arg(running == 1 ? QStringLiteral("1 command is") : QStringLiteral("%1 commands are").arg(running)));
            ask(QStringLiteral("Restore sandbox"), QStringLiteral("Restore %1 to checkpoint %2?").arg(sandboxName, what), info,
                QStringLiteral("&Restore"), QStringLiteral("confirmRestore"), QStringLiteral("cancelRestore"),
                [this, sandboxId, checkpointId] {
                    runCheckpointAction(sandboxId, QStringLiteral("Could not restore %1").arg(checkpointId),
                                        [this, sandboxId, checkpointId](ResultCallback done) {
                                            m_model.restore(sandboxId, checkpointId, std::move(done));
                                        });
                });
        });
        connect(fork, &QPushButton::clicked, this, [this, checkpointId] {
            runCheckpointAction(checkpointId, QStringLiteral("Could not fork %1").arg(checkpointId),
                                [this, checkpointId](ResultCallback done) { m_model.fork(checkpointId, std::move(done)); });
        });
        connect(remove, &QPushButton::clicked, this, [this, checkpointId, what] {
            ask(QStringLiteral("Delete checkpoint"), QStringLiteral("Delete checkpoint %1?").arg(what),
                QStringLiteral("Its saved disk and workspace copy are removed for good. The sandbox is not touched."),
                QStringLiteral("&Delete"), QStringLiteral("confirmDeleteCheckpoint"), QStringLiteral("cancelDeleteCheckpoint"),
                [this, checkpointId] {
                    runCheckpointAction(checkpointId, QStringLiteral("Could not delete %1").arg(checkpointId),
                                        [this, checkpointId](ResultCallback done) {
                                            m_model.deleteCheckpoint(checkpointId, std::move(done));
                                        });
                });
        });
    }
}

void SandboxesSection::runCheckpointAction(const QString &busyKey, const QString &failurePrefix,
                                           std::function<void(ResultCallback)> action)
{
    m_checkpointBusy.insert(busyKey);
    showMessage(QString());
    rebuild();
    QPointer<SandboxesSection> self(this);
    action([self, busyKey, failurePrefix](bool ok, const QString &text) {
        if (!self)
            return;
        self->m_checkpointBusy.remove(busyKey);
        if (ok)
            self->showMessage(text, Tone::Success);
        else
            self->showMessage(QStringLiteral("%1: %2").arg(failurePrefix, text));
        self->rebuild();
    });
}

void SandboxesSection::ask(const QString &title, const QString &question, const QString &info, const QString &yesText,
                           const QString &yesName, const QString &noName, std::function<void()> onYes)
{
    if (m_confirm)
        return;
    auto *box = new QMessageBox(QMessageBox::Warning, title, question, QMessageBox::NoButton, this);
    box->setInformativeText(info);
    QPushButton *yes = box->addButton(yesText, QMessageBox::DestructiveRole);
    yes->setObjectName(yesName);
    yes->setAccessibleName(QString(question).remove(QLatin1Char('?')));
    QPushButton *no = box->addButton(QStringLiteral("&Cancel"), QMessageBox::RejectRole);
    no->setObjectName(noName);
    box->setDefaultButton(no);
    box->setEscapeButton(no);
    box->setWindowModality(Qt::WindowModal);
    box->setAttribute(Qt::WA_DeleteOnClose);
    m_confirm = box;
    connect(box, &QMessageBox::buttonClicked, this, [yes, onYes](QAbstractButton *clicked) {
        if (clicked == yes)
            onYes();
    });
    box->open();
}

void SandboxesSection::addPublicPorts(QWidget *card, QVBoxLayout *column, const SandboxRow &row, int indent, QList<QWidget *> &focus)
{
    for (const PortLink &p : row.portLinks) {
        if (!p.isPublic)
            continue;
        auto *line = new QHBoxLayout;
        line->setContentsMargins(indent, 2, 0, 0);
        QLabel *url = makeLabel(QStringLiteral("port %1: %2").arg(p.sandboxPort).arg(p.url), card);
        url->setObjectName(QStringLiteral("publicUrl:%1:%2").arg(row.id).arg(p.sandboxPort));
        url->setTextFormat(Qt::PlainText);
        url->setTextInteractionFlags(Qt::TextSelectableByMouse);
        line->addWidget(url, 1);
        auto *copy = new QPushButton(QStringLiteral("Copy"), card);
        copy->setObjectName(QStringLiteral("copyUrl:%1:%2").arg(row.id).arg(p.sandboxPort));
        copy->setAccessibleName(QStringLiteral("Copy the public URL of port %1").arg(p.sandboxPort));
        auto *off = new QPushButton(QStringLiteral("Unpublish"), card);
        off->setObjectName(QStringLiteral("unpublish:%1:%2").arg(row.id).arg(p.sandboxPort));
        off->setAccessibleName(QStringLiteral("Take port %1 off the internet").arg(p.sandboxPort));
        line->addWidget(copy);
        line->addWidget(off);
        column->addLayout(line);
        focus << copy << off;
        const QString link = p.url, id = row.id;
        const int port = p.sandboxPort;
        connect(copy, &QPushButton::clicked, this, [this, link] {
            QGuiApplication::clipboard()->setText(link);
            showMessage(QStringLiteral("Copied %1").arg(link), Tone::Success);
        });
        connect(off, &QPushButton::clicked, this, [this, id, port] {
            QPointer<SandboxesSection> self(this);
            m_model.unpublish(id, port, [self](bool ok, const QString &message) {
                if (self)
                    self->showMessage(ok ? message : QStringLiteral("Could not unpublish: %1").arg(message), ok ? Tone::Success : Tone::Error);
            });
        });
    }
}

void SandboxesSection::moveSandbox(const QString &id, const QString &name, bool toCloud)
{
    if (m_moving.contains(id))
        return;
    m_moving.insert(id);
    rebuild();
    QPointer<SandboxesSection> self(this);
    // The user confirmed that running commands end.
    m_model.move(id, toCloud, true, [self, id, name, toCloud](bool ok, const QString &message) {
        if (!self)
            return;
        self->m_moving.remove(id);
        self->showMessage(ok ? QStringLiteral("Moved %1: %2").arg(name, message)
                             : QStringLiteral("Could not move %1 %2: %3")
                                   .arg(name, toCloud ? QStringLiteral("to the cloud") : QStringLiteral("to this computer"), message),
                          ok ? Tone::Success : Tone::Error);
        self->rebuild();
    });
}

void SandboxesSection::extendSandbox(const QString &id, const QString &name)
{
    if (m_extending.contains(id))
        return;
    m_extending.insert(id);
    rebuild();
    QPointer<SandboxesSection> self(this);
    m_model.extend(id, [self, id, name](bool ok, const QString &message) {
        if (!self)
            return;
        self->m_extending.remove(id);
        self->showMessage(ok ? message : QStringLiteral("Could not extend %1: %2").arg(name, message), ok ? Tone::Success : Tone::Error);
        self->rebuild();
    });
}

void SandboxesSection::pauseSandbox(const QString &id, const QString &name, bool endRunningCommands)
{
    m_pausing.insert(id);
    showMessage(QString());
    rebuild();
    QPointer<SandboxesSection> self(this);
    m_model.pause(id, endRunningCommands, [self, id, name](bool ok, const QString &error, const QStringList &running) {
        if (!self)
            return;
        self->m_pausing.remove(id);
        self->rebuild();
        if (!ok && !running.isEmpty()) {   // the running commands named first, then confirmed
            return self->ask(QStringLiteral("Pause sandbox"), QStringLiteral("Pause sandbox %1?").arg(name),
                             QStringLiteral("Pausing stops its VM, which ends what still runs in it:\n%1\n\nIts files are kept; "
                                            "the next tool call wakes it.").arg(running.join(QLatin1Char('\n'))),
                             QStringLiteral("&Pause"), QStringLiteral("confirmPause"), QStringLiteral("cancelPause"),
                             [self, id, name] {
                                 if (self)
                                     self->pauseSandbox(id, name, true);
                             });
        }
        if (ok)
            self->showMessage(QStringLiteral("%1 is paused: its files are kept, the next tool call wakes it").arg(name), Tone::Success);
        else
            self->showMessage(QStringLiteral("Could not pause %1: %2").arg(name, error));
    });
}

} // namespace chat2sbx::ui
