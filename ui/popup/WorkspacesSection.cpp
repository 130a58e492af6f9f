#include "popup/WorkspacesSection.h"

#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

namespace {

// Where the workspace's files are, and what a sandbox's writes do there.
QString placeText(const WorkspaceRow &row)
{
    if (row.mode == QLatin1String("direct"))
        return QStringLiteral("⚠ writes directly to %1 on this computer").arg(row.path);
    if (row.mode == QLatin1String("clone") && row.inCloud)
        return QStringLiteral("clone of %1 in Docker's cloud (its work comes home as a branch)").arg(row.path);
    if (row.mode == QLatin1String("clone"))
        return QStringLiteral("private clone of %1 (read-only source; work comes home as a branch)").arg(row.path);
    if (row.inCloud)
        return QStringLiteral("in the cloud sandbox's VM (~/workspace), not on this computer: its files go with the sandbox");
    return QStringLiteral("managed folder, seen as ~/workspace in the sandbox");
}

} // namespace

WorkspacesSection::WorkspacesSection(WorkspacesModel &model, QWidget *parent)
    : CardList({QStringLiteral("workspaces"), QStringLiteral("Workspaces"), QStringLiteral("Workspaces (%1)"),
                QStringLiteral("No workspaces.")}, parent), m_model(model)
{
    follow(m_model, &WorkspacesModel::changed, [this] { return addCards(); });
}

int WorkspacesSection::addCards()
{
    const QList<WorkspaceRow> rows = m_model.workspaces();
    int shown = 0;
    for (const WorkspaceRow &row : rows)
        if (row.mode != QLatin1String("managed")) {
            addWorkspaceCard(row);
            ++shown;
        }
    int scratchLeft = 0;
    for (const WorkspaceRow &row : rows) {
        if (row.mode != QLatin1String("managed"))
            continue;
        if (shown >= kMaxCards) {
            ++scratchLeft;
            continue;
        }
        addWorkspaceCard(row);
        ++shown;
    }
    if (scratchLeft > 0) {
        QLabel *more = makeLabel(QStringLiteral("%1 more scratch folders, each with its sandbox under Sandboxes "
                                                "(“chat2sbx workspace list” lists them all).")
                                     .arg(scratchLeft),
                                 this);
        more->setObjectName(QStringLiteral("moreWorkspaces"));
        addCard(more, {});
    }
    return static_cast<int>(rows.size());
}

namespace {
// A scratch folder by the sandboxes that use it, not by its ws_ id (for sight and screen readers).
QString scratchName(const WorkspaceRow &row)
{
    if (row.sandboxes.isEmpty())
        return QStringLiteral("an unused scratch folder");
    const WorkspaceSandboxRow &first = row.sandboxes.first();
    const QString name = first.name.isEmpty() ? first.id : first.name;
    return row.sandboxes.size() == 1 ? QStringLiteral("the scratch folder of %1").arg(name)
                                     : QStringLiteral("the scratch folder of %1 and %2 more").arg(name).arg(row.sandboxes.size() - 1);
}
} // namespace

void WorkspacesSection::addWorkspaceCard(const WorkspaceRow &row)
{
    const bool managed = row.mode == QLatin1String("managed");
    QWidget *card = makeCard(this, QStringLiteral("workspace:") + row.id);
    auto *grid = new QGridLayout(card);
    const QString what = !managed ? row.name : row.inCloud ? QStringLiteral("scratch in the cloud") : QStringLiteral("scratch folder");
    QLabel *title = makeLabel(QStringLiteral("%1 — %2").arg(what, row.mode), card, true);
    title->setObjectName(QStringLiteral("title"));
    title->setToolTip(row.id);   // the full id on hover; the card names the folder
    grid->addWidget(title, 0, 0);
    QLabel *detail = makeLabel(placeText(row), card);
    detail->setObjectName(QStringLiteral("detail"));
    grid->addWidget(detail, 1, 0, 1, 2);

    QList<QWidget *> focus;
    int line = 2;
    for (const WorkspaceSandboxRow &sb : row.sandboxes)
        addSandboxLine(row, sb, grid, line++, focus);

    const bool busy = m_busy.contains(row.id);
    auto *revoke = new QPushButton(busy ? QStringLiteral("Removing…") : managed ? QStringLiteral("Move to trash…")
                                                                                 : QStringLiteral("&Revoke…"),
                                   card);
    revoke->setObjectName(QStringLiteral("revoke:") + row.id);
    revoke->setAccessibleName(managed ? QStringLiteral("Move %1 to the trash").arg(scratchName(row))
                                      : QStringLiteral("Revoke access to %1").arg(row.path));
    revoke->setToolTip(revoke->accessibleName());
    revoke->setEnabled(!busy);
    connect(revoke, &QPushButton::clicked, this, [this, row] { askRevoke(row); });
    grid->addWidget(revoke, line, 1, Qt::AlignRight);
    focus << revoke;
    addCard(card, focus);
}

void WorkspacesSection::addSandboxLine(const WorkspaceRow &row, const WorkspaceSandboxRow &sb, QGridLayout *grid, int line,
                                       QList<QWidget *> &focus)
{
    QWidget *card = grid->parentWidget();
    const QString shown = sb.name.isEmpty() ? sb.id : sb.name;
    QLabel *label = makeLabel(QStringLiteral("%1 — %2%3").arg(shown, sb.state,
                                                              m_summaries.contains(sb.id) ? QStringLiteral(" · ") + m_summaries.value(sb.id) : QString()),
                              card);
    label->setObjectName(QStringLiteral("changes:") + sb.id);
    label->setToolTip(sb.id);
    grid->addWidget(label, line, 0);
    if (sb.state == QLatin1String("running")) {
        QPointer<QLabel> target(label);
        const QString id = sb.id, state = sb.state;
        QPointer<WorkspacesSection> self(this);
        m_model.summarize(id, [self, target, id, shown, state](const QString &summary) {
            if (!self || summary.isEmpty())
                return;
            self->m_summaries.insert(id, summary);
            if (target)
                target->setText(QStringLiteral("%1 — %2 · %3").arg(shown, state, summary));
        });
    }
    if (row.mode == QLatin1String("clone") && sb.state == QLatin1String("running")) {
        const bool busy = m_busy.contains(sb.id);
        auto *fetchButton = new QPushButton(busy ? QStringLiteral("Fetching…") : QStringLiteral("&Fetch as branch"), card);
        fetchButton->setObjectName(QStringLiteral("fetch:") + sb.id);
        fetchButton->setAccessibleName(QStringLiteral("Fetch the work of %1 as branch chat2sbx/%2 into %3").arg(shown, sb.id, row.path));
        fetchButton->setToolTip(fetchButton->accessibleName());
        fetchButton->setEnabled(!busy);
        const QString id = sb.id;
        connect(fetchButton, &QPushButton::clicked, this, [this, id] { fetch(id); });
        grid->addWidget(fetchButton, line, 1, Qt::AlignRight);
        focus << fetchButton;
    }
}

void WorkspacesSection::fetch(const QString &sandboxId)
{
    if (m_busy.contains(sandboxId))
        return;
    m_busy.insert(sandboxId);
    rebuild();
    QPointer<WorkspacesSection> self(this);
    m_model.fetch(sandboxId, [self, sandboxId](bool ok, const QString &message) {
        if (!self)
            return;
        self->m_busy.remove(sandboxId);
        self->showMessage(ok ? message : QStringLiteral("Fetching %1 failed: %2").arg(sandboxId, message), ok ? Tone::Success : Tone::Error);
        self->rebuild();
    });
}

void WorkspacesSection::askRevoke(const WorkspaceRow &row)
{
    if (m_confirm)
        return;
    const bool managed = row.mode == QLatin1String("managed");
    auto *box = new QMessageBox(QMessageBox::Warning, managed ? QStringLiteral("Move workspace to trash") : QStringLiteral("Revoke access"),
                                managed ? QStringLiteral("Move %1 to the trash?").arg(scratchName(row))
                                        : QStringLiteral("Revoke access to %1?").arg(row.path),
                                QMessageBox::NoButton, this);
    QString info = QStringLiteral("Its sandboxes (%1) are destroyed.").arg(row.sandboxes.size());
    if (row.mode == QLatin1String("clone"))
        info += QStringLiteral(" Their commits and uncommitted changes are first saved as branches chat2sbx/<sandbox id> in the "
                               "repository; if that fails nothing is revoked.");
    if (managed)
        info += QStringLiteral(" The folder is moved to the trash, not deleted.");
    else
        info += QStringLiteral(" The host folder is not touched; an agent has to ask again and you have to approve again.");
    box->setInformativeText(info);
    QPushButton *yes = box->addButton(managed ? QStringLiteral("&Move to trash") : QStringLiteral("&Revoke"), QMessageBox::DestructiveRole);
    yes->setObjectName(QStringLiteral("confirmRevoke"));
    QPushButton *no = box->addButton(QStringLiteral("&Cancel"), QMessageBox::RejectRole);
    no->setObjectName(QStringLiteral("cancelRevoke"));
    box->setDefaultButton(no);
    box->setEscapeButton(no);
    box->setWindowModality(Qt::WindowModal);
    box->setAttribute(Qt::WA_DeleteOnClose);
    m_confirm = box;
    const QString id = row.id;
    connect(box, &QMessageBox::buttonClicked, this, [this, id, yes](QAbstractButton *clicked) {
        if (clicked != yes)
            return;
        m_busy.insert(id);
        rebuild();
        QPointer<WorkspacesSection> self(this);
        m_model.revoke(id, [self, id](bool ok, const QString &message) {
            if (!self)
                return;
            self->m_busy.remove(id);
            self->showMessage(message, ok ? Tone::Success : Tone::Error);
            self->rebuild();
        });
    });
    box->open();
}

} // namespace chat2sbx::ui
