#include "firstrun/FirstRunSection.h"

#include "widgets/PopupStyle.h"

#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {
namespace {

constexpr int kShownLines = 8;

QString mark(const QString &state)
{
    if (state == QLatin1String("done"))
        return QStringLiteral("✓");
    if (state == QLatin1String("to do"))
        return QStringLiteral("●");
    if (state == QLatin1String("checking"))
        return QStringLiteral("…");
    if (state == QLatin1String("optional"))
        return QStringLiteral("–");
    return QStringLiteral("○");
}

// A dialog of Qt's own (not the platform's): the popup knows it as one of its windows and stays
// open; shown with open(), not exec(), so the event loop never waits in it.
QFileDialog *fileDialog(QWidget *parent, const QString &title, const QString &name, QFileDialog::FileMode mode)
{
    auto *dialog = new QFileDialog(parent, title, QDir::homePath());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(name);
    dialog->setOption(QFileDialog::DontUseNativeDialog);
    dialog->setFileMode(mode);
    if (mode == QFileDialog::Directory)
        dialog->setOption(QFileDialog::ShowDirsOnly);
    else
        dialog->setFilter(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    return dialog;
}

} // namespace

FirstRunSection::FirstRunSection(StatusModel &model, QWidget *parent) : QGroupBox(parent), m_model(model)
{
    setObjectName(QStringLiteral("firstRun"));
    setTitle(QStringLiteral("Set up chat2sbx"));
    setFlat(true);
    auto *column = new QVBoxLayout(this);
    m_rows = new QVBoxLayout;
    column->addLayout(m_rows);
    m_log = makeLabel(QString(), this);
    m_log->setObjectName(QStringLiteral("prepareLog"));
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setTextFormat(Qt::PlainText);
    m_log->hide();
    column->addWidget(m_log);
    m_result = makeMessageLabel(QStringLiteral("prepareResult"), this);
    column->addWidget(m_result);
    auto *buttons = new QHBoxLayout;
    m_cancel = new QPushButton(QStringLiteral("&Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("cancelPrepare"));
    m_cancel->setAccessibleName(QStringLiteral("Cancel preparing the template"));
    m_cancel->setToolTip(QStringLiteral("Stops after the current sbx command and removes the builder sandbox"));
    m_cancel->hide();
    m_copyTunnelId = new QPushButton(QStringLiteral("Copy the tunnel &id"), this);
    m_copyTunnelId->setObjectName(QStringLiteral("copyTunnelId"));
    m_copyTunnelId->setAccessibleName(QStringLiteral("Copy the tunnel id, to find the tunnel in ChatGPT"));
    m_copyTunnelId->hide();
    connect(m_copyTunnelId, &QPushButton::clicked, this, [this] { QGuiApplication::clipboard()->setText(m_tunnelId); });
    m_checkAgain = new QPushButton(QStringLiteral("Check a&gain"), this);
    m_checkAgain->setObjectName(QStringLiteral("checkAgain"));
    m_checkAgain->setAccessibleName(QStringLiteral("Check the setup steps again"));
    buttons->addStretch(1);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_copyTunnelId);
    buttons->addWidget(m_checkAgain);
    column->addLayout(buttons);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_model.cancelPrepare();
        m_cancel->setEnabled(false);
        m_cancel->setText(QStringLiteral("Cancelling…"));
    });
    connect(m_checkAgain, &QPushButton::clicked, this, [this] { m_model.checkAgain(); });
    connect(&m_model, &StatusModel::changed, this, &FirstRunSection::refresh);
    refresh();
}

QString FirstRunSection::result() const
{
    return m_result->isHidden() ? QString() : m_result->text();
}

QList<QWidget *> FirstRunSection::focusChain() const
{
    QList<QWidget *> chain = m_focus;
    if (!m_cancel->isHidden())
        chain << m_cancel;
    if (!m_copyTunnelId->isHidden())
        chain << m_copyTunnelId;
    chain << m_checkAgain;
    return chain;
}

void FirstRunSection::refresh()
{
    const StatusInfo status = m_model.status();
    while (QLayoutItem *item = m_rows->takeAt(0)) {
        if (QWidget *w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
    m_focus.clear();
    for (const ChecklistRow &row : status.checklist)
        addRow(row);
    setVisible(status.setupNeeded || m_preparing || !m_result->isHidden());
    emit rebuilt();
}

void FirstRunSection::addRow(const ChecklistRow &row)
{
    auto *card = new QWidget(this);
    card->setObjectName(QStringLiteral("step:") + row.step);
    auto *grid = new QVBoxLayout(card);
    grid->setContentsMargins(0, 0, 0, 0);
    auto *line = new QHBoxLayout;
    QLabel *title = makeLabel(mark(row.state) + QLatin1Char(' ') + row.title, card, row.state != QLatin1String("done"));
    title->setObjectName(QStringLiteral("stepTitle"));
    title->setTextFormat(Qt::PlainText);
    title->setAccessibleName(QStringLiteral("%1: %2").arg(row.title, row.state));
    if (row.state == QLatin1String("done"))
        setTone(title, Tone::Success);
    else if (row.state == QLatin1String("to do"))
        setTone(title, Tone::Warning);
    line->addWidget(title, 1);
    const bool todo = row.state == QLatin1String("to do");
    // The step's one action, beside its title, next in the Tab order.
    const auto action = [&](const QString &text, const QString &name, const QString &accessible, const QString &tip) {
        auto *button = new QPushButton(text, card);
        button->setObjectName(name);
        button->setAccessibleName(accessible);
        button->setToolTip(tip);
        line->addWidget(button, 0, Qt::AlignTop);
        m_focus << button;
        return button;
    };
    if (todo && row.step == QLatin1String("template")) {
        QPushButton *prepare = action(m_preparing ? QStringLiteral("Preparing…") : QStringLiteral("&Prepare"), QStringLiteral("prepare"),
                                      QStringLiteral("Prepare the sandbox template"), QString());
        prepare->setEnabled(!m_preparing);
        connect(prepare, &QPushButton::clicked, this, &FirstRunSection::startPrepare);
    } else if (todo && row.step == QLatin1String("sbx")) {
        connect(action(QStringLiteral("Choose &sbx…"), QStringLiteral("chooseSbx"),
                       QStringLiteral("Choose where the sbx program of Docker Sandboxes is"),
                       QStringLiteral("Installed somewhere else? Choose the sbx program: it is checked, then used and saved in "
                                      "config.json.")),
                &QPushButton::clicked, this, &FirstRunSection::chooseSbxProgram);
    } else if (todo && row.step == QLatin1String("chatgpt")) {
        connect(action(QStringLiteral("Choose tunnel &files…"), QStringLiteral("chooseTunnelFiles"),
                       QStringLiteral("Choose the tunnel id file and the key file from ChatGPT"),
                       QStringLiteral("Select both files: the tunnel id and its key. They are stored in the OS keychain where "
                                      "there is one, else as files readable by you only.")),
                &QPushButton::clicked, this, &FirstRunSection::chooseTunnelFiles);
    } else if (row.step == QLatin1String("folders")) {
        connect(action(QStringLiteral("&Add a folder…"), QStringLiteral("addHostFolder"),
                       QStringLiteral("Add a folder agents may ask for"),
                       QStringLiteral("Agents may then ask for folders below it; you approve each request.")),
                &QPushButton::clicked, this, &FirstRunSection::chooseHostFolder);
    } else if (todo && !row.command.isEmpty()) {
        const QString command = row.command;
        connect(action(QStringLiteral("Copy `%1`").arg(command), QStringLiteral("copy:") + row.step,
                       QStringLiteral("Copy the command %1").arg(command), QString()),
                &QPushButton::clicked, this, [command] { QGuiApplication::clipboard()->setText(command); });
    }
    grid->addLayout(line);
    if (row.state != QLatin1String("done") && !row.detail.isEmpty()) {
        QLabel *detail = makeLabel(row.detail, card);
        detail->setObjectName(QStringLiteral("stepDetail"));
        detail->setTextFormat(Qt::PlainText);
        detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
        if (row.state != QLatin1String("to do"))
            setTone(detail, Tone::Muted);
        grid->addWidget(detail);
    }
    m_rows->addWidget(card);
}

void FirstRunSection::startPrepare()
{
    m_lines.clear();
    showError(m_result, QString());
    QPointer<FirstRunSection> self(this);
    m_preparing = true;
    const bool started = m_model.prepare(
        [self](const QString &line) {
            if (!self)
                return;
            self->m_lines << line;
            self->showLines();
        },
        [self](bool ok, const QString &message) {
            if (!self)
                return;
            self->m_preparing = false;
            self->m_cancel->hide();
            self->showResult(ok, message);
        });
    if (!started) {
        m_preparing = false;
        return refresh();
    }
    m_cancel->setText(QStringLiteral("&Cancel"));
    m_cancel->setEnabled(true);
    m_cancel->show();
    refresh();
}

void FirstRunSection::chooseTunnelFiles()
{
    QFileDialog *dialog = fileDialog(this, QStringLiteral("Choose the tunnel id and key files"), QStringLiteral("tunnelFilesDialog"),
                                     QFileDialog::ExistingFiles);
    connect(dialog, &QFileDialog::filesSelected, this, &FirstRunSection::importTunnelFiles);
    dialog->open();
}

void FirstRunSection::chooseHostFolder()
{
    QFileDialog *dialog = fileDialog(this, QStringLiteral("Choose a folder agents may ask for"), QStringLiteral("hostFolderDialog"),
                                     QFileDialog::Directory);
    connect(dialog, &QFileDialog::fileSelected, this, &FirstRunSection::addHostFolder);
    dialog->open();
}

void FirstRunSection::chooseSbxProgram()
{
    QFileDialog *dialog = fileDialog(this, QStringLiteral("Choose the sbx program"), QStringLiteral("sbxDialog"),
                                     QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, this, &FirstRunSection::useSbxProgram);
    dialog->open();
}

void FirstRunSection::useSbxProgram(const QString &path)
{
    QPointer<FirstRunSection> self(this);
    m_model.useSbxProgram(path, [self](bool ok, const QString &message) {
        if (self)
            self->showResult(ok, message);
    });
}

void FirstRunSection::addHostFolder(const QString &dir)
{
    QString message;
    const bool ok = m_model.addHostFolder(dir, message);
    showResult(ok, message);
}

void FirstRunSection::importTunnelFiles(const QStringList &files)
{
    if (files.size() != 2)
        return showResult(false, QStringLiteral("Choose two files together: the tunnel id and its key (%1 chosen).")
                                     .arg(files.size()));
    QPointer<FirstRunSection> self(this);
    m_model.importTunnelFiles(files.at(0), files.at(1), [self](bool ok, const QString &message, const QString &tunnelId) {
        if (!self)
            return;
        self->m_tunnelId = tunnelId;
        self->m_copyTunnelId->setVisible(ok);
        if (!ok)
            return self->showResult(false, message);
        self->showResult(true, message + QStringLiteral(
            "\nNow in ChatGPT: Settings → Apps & Connectors → Advanced settings, turn on Developer mode; then Create, "
            "choose Connection: Tunnel and select %1. The tunnel starts again with these credentials.").arg(tunnelId));
    });
}

void FirstRunSection::showResult(bool ok, const QString &message)
{
    m_result->setStyleSheet(toneStyleSheet(ok ? Tone::Success : Tone::Error));
    showError(m_result, message);
    refresh();
}

void FirstRunSection::showLines()
{
    m_log->setText(m_lines.mid(qMax<qsizetype>(0, m_lines.size() - kShownLines)).join(QLatin1Char('\n')));
    m_log->setVisible(!m_lines.isEmpty());
    emit rebuilt();
}

} // namespace chat2sbx::ui
