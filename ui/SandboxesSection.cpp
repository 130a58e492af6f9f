#include "SandboxesSection.h"

#include "PopupStyle.h"

#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

SandboxesSection::SandboxesSection(SandboxesModel &model, QWidget *parent) : QGroupBox(parent), m_model(model)
{
    setObjectName(QStringLiteral("sandboxes"));
    auto *layout = new QVBoxLayout(this);
    m_message = makeLabel(QString(), this);
    m_message->setObjectName(QStringLiteral("sandboxesMessage"));
    m_message->setStyleSheet(QStringLiteral("color: #b42318;"));
    m_message->hide();
    layout->addWidget(m_message);
    m_empty = makeLabel(QStringLiteral("No sandboxes."), this);
    layout->addWidget(m_empty);
    m_rows = new QVBoxLayout;
    layout->addLayout(m_rows);
    connect(&m_model, &SandboxesModel::changed, this, &SandboxesSection::rebuild);
    rebuild();
}

void SandboxesSection::rebuild()
{
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        if (QWidget *w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_focus.clear();
    const QList<SandboxRow> rows = m_model.sandboxes();
    m_rowCount = static_cast<int>(rows.size());
    setTitle(rows.isEmpty() ? QStringLiteral("Sandboxes") : QStringLiteral("Sandboxes (%1)").arg(rows.size()));
    m_empty->setVisible(rows.isEmpty());

    for (const SandboxRow &row : rows) {
        QWidget *card = makeCard(this);
        card->setObjectName(QStringLiteral("sandbox:") + row.id);
        auto *grid = new QGridLayout(card);
        QLabel *title = makeLabel(QStringLiteral("%1 — %2").arg(row.id, row.state), card, true);
        title->setObjectName(QStringLiteral("title"));
        grid->addWidget(title, 0, 0);

        QStringList lines;
        lines << QStringLiteral("workspace: %1").arg(row.workspace.isEmpty() ? QStringLiteral("—") : row.workspace);
        if (row.mode == QLatin1String("direct"))
            lines << QStringLiteral("mode: direct — ⚠ writes to %1 on this computer").arg(row.hostPath);
        else if (row.mode == QLatin1String("clone"))
            lines << QStringLiteral("mode: clone of %1 (work comes home as a branch)").arg(row.hostPath);
        else if (!row.mode.isEmpty())
            lines << QStringLiteral("mode: %1").arg(row.mode);
        QString memory = QStringLiteral("memory: %1").arg(row.memory.isEmpty() ? QStringLiteral("default") : row.memory);
        if (row.idleDeadlineMs > 0)
            memory += QStringLiteral(" · idle until %1").arg(formatTime(row.idleDeadlineMs));
        lines << memory;
        lines << QStringLiteral("ports: %1").arg(row.ports.isEmpty() ? QStringLiteral("none") : row.ports.join(QStringLiteral(", ")));
        if (!row.reason.isEmpty())
            lines << QStringLiteral("reason: %1").arg(row.reason);
        QLabel *detail = makeLabel(lines.join(QLatin1Char('\n')), card);
        detail->setObjectName(QStringLiteral("detail"));
        grid->addWidget(detail, 1, 0);

        const bool busy = m_destroying.contains(row.id) || row.state == QLatin1String("destroying");
        auto *destroy = new QPushButton(busy ? QStringLiteral("Destroying…") : QStringLiteral("&Destroy…"), card);
        destroy->setObjectName(QStringLiteral("destroy:") + row.id);
        destroy->setAccessibleName(QStringLiteral("Destroy sandbox %1").arg(row.id));
        destroy->setToolTip(destroy->accessibleName());
        destroy->setEnabled(!busy);
        grid->addWidget(destroy, 2, 0, Qt::AlignRight);
        const QString id = row.id;
        connect(destroy, &QPushButton::clicked, this, [this, id] { askDestroy(id); });
        m_rows->addWidget(card);
        m_focus << destroy;
    }
    emit rebuilt();
}

void SandboxesSection::askDestroy(const QString &id)
{
    if (m_confirm)
        return;
    auto *box = new QMessageBox(QMessageBox::Warning, QStringLiteral("Destroy sandbox"),
                                QStringLiteral("Destroy sandbox %1?").arg(id), QMessageBox::NoButton, this);
    box->setInformativeText(QStringLiteral("Its microVM is removed. A managed workspace folder is kept; direct mode already "
                                           "wrote every change to the host folder. A clone lives only in the VM: its commits "
                                           "and uncommitted changes are first saved as branch chat2sbx/%1 in the host "
                                           "repository, and if that fails nothing is destroyed.").arg(id));
    QPushButton *yes = box->addButton(QStringLiteral("&Destroy"), QMessageBox::DestructiveRole);
    yes->setObjectName(QStringLiteral("confirmDestroy"));
    yes->setAccessibleName(QStringLiteral("Destroy sandbox %1 now").arg(id));
    QPushButton *no = box->addButton(QStringLiteral("&Cancel"), QMessageBox::RejectRole);
    no->setObjectName(QStringLiteral("cancelDestroy"));
    box->setDefaultButton(no);
    box->setEscapeButton(no);
    box->setWindowModality(Qt::WindowModal);
    box->setAttribute(Qt::WA_DeleteOnClose);
    m_confirm = box;
    connect(box, &QMessageBox::buttonClicked, this, [this, id, yes](QAbstractButton *clicked) {
        if (clicked != yes)
            return;
        m_destroying.insert(id);
        showError(m_message, QString());
        rebuild();
        QPointer<SandboxesSection> self(this);
        m_model.destroy(id, [self, id](bool ok, const QString &error) {
            if (!self)
                return;
            self->m_destroying.remove(id);
            showError(self->m_message, ok ? QString() : QStringLiteral("Could not destroy %1: %2").arg(id, error));
            self->rebuild();
        });
    });
    box->open();
}

} // namespace chat2sbx::ui
