#include "WorkspacesSection.h"

#include "PopupStyle.h"

#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

WorkspacesSection::WorkspacesSection(WorkspacesModel &model, QWidget *parent) : QGroupBox(parent), m_model(model)
{
    setObjectName(QStringLiteral("workspaces"));
    auto *layout = new QVBoxLayout(this);
    m_message = makeLabel(QString(), this);
    m_message->setObjectName(QStringLiteral("workspacesMessage"));
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->hide();
    layout->addWidget(m_message);
    m_empty = makeLabel(QStringLiteral("No workspaces."), this);
    layout->addWidget(m_empty);
    m_rows = new QVBoxLayout;
    layout->addLayout(m_rows);
    connect(&m_model, &WorkspacesModel::changed, this, &WorkspacesSection::rebuild);
    rebuild();
}

QString WorkspacesSection::message() const
{
    return m_message->isVisible() ? m_message->text() : QString();
}

void WorkspacesSection::showMessage(const QString &text, bool error)
{
    m_message->setStyleSheet(error ? QStringLiteral("color: #b42318;") : QStringLiteral("color: #067647;"));
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

void WorkspacesSection::rebuild()
{
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        if (QWidget *w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_focus.clear();
    const QList<WorkspaceRow> rows = m_model.workspaces();
    m_rowCount = static_cast<int>(rows.size());
    setTitle(rows.isEmpty() ? QStringLiteral("Workspaces") : QStringLiteral("Workspaces (%1)").arg(rows.size()));
    m_empty->setVisible(rows.isEmpty());

    for (const WorkspaceRow &row : rows) {
        QWidget *card = makeCard(this);
        card->setObjectName(QStringLiteral("workspace:") + row.id);
        auto *grid = new QGridLayout(card);
        QLabel *title = makeLabel(QStringLiteral("%1 — %2").arg(row.name, row.mode), card, true);
        title->setObjectName(QStringLiteral("title"));
        grid->addWidget(title, 0, 0);
        QString where;
        if (row.mode == QLatin1String("direct"))
            where = QStringLiteral("⚠ writes directly to %1 on this computer").arg(row.path);
        else if (row.mode == QLatin1String("clone"))
            where = QStringLiteral("private clone of %1 (read-only source; work comes home as a branch)").arg(row.path);
        else
            where = QStringLiteral("managed folder, seen as ~/workspace in the sandbox");
        QLabel *detail = makeLabel(where + QStringLiteral("\n") + row.id, card);
        detail->setObjectName(QStringLiteral("detail"));
        grid->addWidget(detail, 1, 0, 1, 2);

        int line = 2;
        for (const WorkspaceSandboxRow &sb : row.sandboxes) {
            QLabel *label = makeLabel(QStringLiteral("%1 — %2%3").arg(sb.id, sb.state,
                                                                      m_summaries.contains(sb.id) ? QStringLiteral(" · ") + m_summaries.value(sb.id) : QString()),
                                      card);
            label->setObjectName(QStringLiteral("changes:") + sb.id);
            grid->addWidget(label, line, 0);
            if (sb.state == QLatin1String("running")) {
                QPointer<QLabel> target(label);
                const QString id = sb.id, state = sb.state;
                QPointer<WorkspacesSection> self(this);
                m_model.summarize(id, [self, target, id, state](const QString &summary) {
                    if (!self || summary.isEmpty())
                        return;
                    self->m_summaries.insert(id, summary);
                    if (target)
                        target->setText(QStringLiteral("%1 — %2 · %3").arg(id, state, summary));
                });
            }
            if (row.mode == QLatin1String("clone") && sb.state == QLatin1String("running")) {
                const bool busy = m_busy.contains(sb.id);
                auto *fetchButton = new QPushButton(busy ? QStringLiteral("Fetching…") : QStringLiteral("&Fetch as branch"), card);
                fetchButton->setObjectName(QStringLiteral("fetch:") + sb.id);
                fetchButton->setAccessibleName(QStringLiteral("Fetch the work of %1 as branch chat2sbx/%1 into %2").arg(sb.id, row.path));
                fetchButton->setToolTip(fetchButton->accessibleName());
                fetchButton->setEnabled(!busy);
                const QString id = sb.id;
                connect(fetchButton, &QPushButton::clicked, this, [this, id] { fetch(id); });
                grid->addWidget(fetchButton, line, 1, Qt::AlignRight);
                m_focus << fetchButton;
            }
            ++line;
        }

        const bool busy = m_busy.contains(row.id);
        const bool managed = row.mode == QLatin1String("managed");
        auto *revoke = new QPushButton(busy ? QStringLiteral("Removing…") : managed ? QStringLiteral("Move to trash…")
                                                                                     : QStringLiteral("&Revoke…"),
                                       card);
        revoke->setObjectName(QStringLiteral("revoke:") + row.id);
        revoke->setAccessibleName(managed ? QStringLiteral("Move workspace %1 to the trash").arg(row.id)
                                          : QStringLiteral("Revoke access to %1").arg(row.path));
        revoke->setToolTip(revoke->accessibleName());
        revoke->setEnabled(!busy);
        connect(revoke, &QPushButton::clicked, this, [this, row] { askRevoke(row); });
        grid->addWidget(revoke, line, 1, Qt::AlignRight);
        m_focus << revoke;
        m_rows->addWidget(card);
    }
    emit rebuilt();
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
        self->showMessage(ok ? message : QStringLiteral("Fetching %1 failed: %2").arg(sandboxId, message), !ok);
        self->rebuild();
    });
}

void WorkspacesSection::askRevoke(const WorkspaceRow &row)
{
    if (m_confirm)
        return;
    const bool managed = row.mode == QLatin1String("managed");
    auto *box = new QMessageBox(QMessageBox::Warning, managed ? QStringLiteral("Move workspace to trash") : QStringLiteral("Revoke access"),
                                managed ? QStringLiteral("Move workspace %1 to the trash?").arg(row.id)
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
            self->showMessage(message, !ok);
            self->rebuild();
        });
    });
    box->open();
}

} // namespace chat2sbx::ui
