// SandboxesSection's confirmations: what Destroy and a move do, asked before they do it.
#include "popup/SandboxesSection.h"

#include <QMessageBox>
#include <QPointer>
#include <QPushButton>

namespace chat2sbx::ui {

void SandboxesSection::askDestroy(const QString &id, const QString &name, int runningCommands)
{
    if (m_confirm)
        return;
    auto *box = new QMessageBox(QMessageBox::Warning, QStringLiteral("Destroy sandbox"),
                                QStringLiteral("Destroy sandbox %1?").arg(name), QMessageBox::NoButton, this);
    QString info = QStringLiteral("Its microVM is removed. A managed workspace folder is kept; direct mode already "
                                  "wrote every change to the host folder. A clone lives only in the VM: its commits "
                                  "and uncommitted changes are first saved as branch chat2sbx/%1 in the host "
                                  "repository, and if that fails nothing is destroyed.").arg(id);
    if (runningCommands > 0)
        info.prepend(QStringLiteral("%1 still running in it and will be killed. ")
                         .arg(runningCommands == 1 ? QStringLiteral("1 command is") : QStringLiteral("%1 commands are").arg(runningCommands)));
    box->setInformativeText(info);
    QPushButton *yes = box->addButton(QStringLiteral("&Destroy"), QMessageBox::DestructiveRole);
    yes->setObjectName(QStringLiteral("confirmDestroy"));
    yes->setAccessibleName(QStringLiteral("Destroy sandbox %1 now").arg(name));
    QPushButton *no = box->addButton(QStringLiteral("&Cancel"), QMessageBox::RejectRole);
    no->setObjectName(QStringLiteral("cancelDestroy"));
    box->setDefaultButton(no);
    box->setEscapeButton(no);
    box->setWindowModality(Qt::WindowModal);
    box->setAttribute(Qt::WA_DeleteOnClose);
    m_confirm = box;
    connect(box, &QMessageBox::buttonClicked, this, [this, id, name, yes](QAbstractButton *clicked) {
        if (clicked != yes)
            return;
        m_destroying.insert(id);
        showMessage(QString());
        rebuild();
        QPointer<SandboxesSection> self(this);
        m_model.destroy(id, [self, id, name](bool ok, const QString &error) {
            if (!self)
                return;
            self->m_destroying.remove(id);
            self->showMessage(ok ? QString() : QStringLiteral("Could not destroy %1: %2").arg(name, error));
            self->rebuild();
        });
    });
    box->open();
}

void SandboxesSection::askMove(const QString &id, const QString &name, bool toCloud, int runningCommands)
{
    if (m_moving.contains(id))
        return;
    QString info = toCloud ? QStringLiteral("It goes on in Docker's cloud under the same id, with its files and installed packages, and "
                                            "is billed per second while it runs there. ")
                           : QStringLiteral("It goes on here under the same id, with its files and installed packages; its copy in "
                                            "the cloud is removed once it answers here. ");
    info += QStringLiteral("It stops first: memory and processes do not move; published ports, network rules added for it and "
                           "secrets stay behind. A move takes minutes.");
    if (runningCommands > 0)
        info.prepend(QStringLiteral("%1 still running in it and will end. ")
                         .arg(runningCommands == 1 ? QStringLiteral("1 command is") : QStringLiteral("%1 commands are").arg(runningCommands)));
    ask(toCloud ? QStringLiteral("Continue in the cloud") : QStringLiteral("Bring back to this computer"),
        toCloud ? QStringLiteral("Move sandbox %1 to Docker's cloud?").arg(name) : QStringLiteral("Bring sandbox %1 back to this computer?").arg(name),
        info, toCloud ? QStringLiteral("&Move to the cloud") : QStringLiteral("&Bring it back"), QStringLiteral("confirmMove"),
        QStringLiteral("cancelMove"), [this, id, name, toCloud] { moveSandbox(id, name, toCloud); });
}

} // namespace chat2sbx::ui
