#include "popup/ActivitySection.h"

#include "widgets/PopupStyle.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace chat2sbx::ui {

namespace {

QString cut(const QString &s, int max)
{
    QString t = s.simplified();
    return t.size() > max ? t.left(max - 1) + QChar(0x2026) : t;
}

QString elapsedText(qint64 startedAtMs)
{
    const qint64 s = qMax<qint64>(0, (QDateTime::currentMSecsSinceEpoch() - startedAtMs) / 1000);
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
    return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QString callLine(const ToolCallRow &c)
{
    QString line = QStringLiteral("%1  %2").arg(QDateTime::fromMSecsSinceEpoch(c.atMs).toString(QStringLiteral("HH:mm:ss")), c.tool);
    if (!c.sandboxId.isEmpty())
        line += QStringLiteral("  %1").arg(c.sandboxName.isEmpty() ? c.sandboxId : c.sandboxName);
    if (!c.summary.isEmpty())
        line += QStringLiteral("  %1").arg(cut(c.summary, 60));
    line += QStringLiteral("  — %1, %2 ms").arg(c.outcome).arg(c.durationMs);
    if (!c.error.isEmpty())
        line += QStringLiteral(": %1").arg(cut(c.error, 60));
    if (!c.client.isEmpty() && !c.conversation.isEmpty())
        line += QStringLiteral("  (%1, conversation %2)").arg(cut(c.client, 24), c.conversation);
    else if (!c.client.isEmpty())
        line += QStringLiteral("  (%1)").arg(cut(c.client, 24));
    else if (!c.conversation.isEmpty())
        line += QStringLiteral("  (conversation %1)").arg(c.conversation);
    return line;
}

} // namespace

ActivitySection::ActivitySection(ActivityModel &model, QWidget *parent) : QGroupBox(parent), m_model(model)
{
    setObjectName(QStringLiteral("activity"));
    setTitle(QStringLiteral("Activity"));
    auto *layout = new QVBoxLayout(this);
    m_message = makeMessageLabel(QStringLiteral("activityMessage"), this);
    layout->addWidget(m_message);
    m_idle = makeLabel(QStringLiteral("No commands running."), this);
    m_idle->setObjectName(QStringLiteral("activityIdle"));
    layout->addWidget(m_idle);
    m_running = new QVBoxLayout;
    layout->addLayout(m_running);
    m_callsTitle = makeLabel(QStringLiteral("Recent tool calls"), this, true);
    layout->addWidget(m_callsTitle);
    m_calls = new QVBoxLayout;
    m_calls->setSpacing(0);
    layout->addLayout(m_calls);
    connect(&m_model, &ActivityModel::changed, this, &ActivitySection::refreshRunning);
    connect(&m_model, &ActivityModel::callsChanged, this, &ActivitySection::refreshCalls);
    refreshRunning();
    refreshCalls();
}

QList<QWidget *> ActivitySection::focusChain() const
{
    QList<QWidget *> chain;
    for (const QString &id : m_order)
        chain << m_cards.value(id).stop;
    return chain;
}

void ActivitySection::showEvent(QShowEvent *event)
{
    QGroupBox::showEvent(event);
    m_model.setWatching(true);
}

void ActivitySection::hideEvent(QHideEvent *event)
{
    QGroupBox::hideEvent(event);
    m_model.setWatching(false);
}

ActivitySection::Card ActivitySection::makeCommandCard(const RunningCommandRow &row)
{
    Card c;
    c.widget = makeCard(this, QStringLiteral("command:") + row.sessionId);
    auto *grid = new QVBoxLayout(c.widget);
    auto *top = new QHBoxLayout;
    c.title = makeLabel(QString(), c.widget, true);
    c.title->setObjectName(QStringLiteral("commandTitle"));
    top->addWidget(c.title, 1);
    c.stop = new QPushButton(QStringLiteral("&Stop"), c.widget);
    c.stop->setObjectName(QStringLiteral("stop:") + row.sessionId);
    c.stop->setAccessibleName(QStringLiteral("Stop command %1 in %2")
                                  .arg(cut(row.command, 40), row.sandboxName.isEmpty() ? row.sandboxId : row.sandboxName));
    c.stop->setToolTip(c.stop->accessibleName());
    top->addWidget(c.stop, 0, Qt::AlignTop);
    grid->addLayout(top);
    c.output = makeLabel(QString(), c.widget);
    c.output->setObjectName(QStringLiteral("commandOutput"));
    c.output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    c.output->setTextFormat(Qt::PlainText);
    setTone(c.output, Tone::Muted);
    grid->addWidget(c.output);
    const QString sandboxId = row.sandboxId, sessionId = row.sessionId;
    connect(c.stop, &QPushButton::clicked, this, [this, sandboxId, sessionId] { stopCommand(sandboxId, sessionId); });
    return c;
}

void ActivitySection::refreshRunning()
{
    const QList<RunningCommandRow> rows = m_model.running();
    QSet<QString> live;
    bool structural = false;
    for (const RunningCommandRow &row : rows) {
        live.insert(row.sessionId);
        if (!m_cards.contains(row.sessionId)) {
            const Card c = makeCommandCard(row);
            m_cards.insert(row.sessionId, c);
            m_order << row.sessionId;
            m_running->addWidget(c.widget);
            structural = true;
        }
        const Card &c = m_cards[row.sessionId];
        c.title->setText(QStringLiteral("%1 · %2 · running %3")
                             .arg(row.sandboxName.isEmpty() ? row.sandboxId : row.sandboxName, cut(row.command, 70),
                                  elapsedText(row.startedAtMs)));
        c.title->setToolTip(row.sandboxId);
        const QString output = row.lastLines.isEmpty() ? QStringLiteral("(no output yet)") : row.lastLines.join(QLatin1Char('\n'));
        if (c.output->text() != output) {
            c.output->setText(output);
            structural = true;   // the height may change
        }
        const bool stopping = m_stopping.contains(row.sessionId);
        c.stop->setEnabled(!stopping);
        c.stop->setText(stopping ? QStringLiteral("Stopping…") : QStringLiteral("&Stop"));
    }
    for (const QString &id : QStringList(m_order)) {
        if (live.contains(id))
            continue;
        Card c = m_cards.take(id);
        m_order.removeAll(id);
        m_stopping.remove(id);
        c.widget->hide();
        c.widget->deleteLater();
        structural = true;
    }
    m_idle->setVisible(m_cards.isEmpty());
    setTitle(m_cards.isEmpty() ? QStringLiteral("Activity") : QStringLiteral("Activity (%1 running)").arg(m_cards.size()));
    if (structural)
        emit rebuilt();
}

void ActivitySection::refreshCalls()
{
    clearCards(m_calls);
    const QList<ToolCallRow> calls = m_model.recentCalls(kRecentCalls);
    m_callCount = static_cast<int>(calls.size());
    m_callsTitle->setVisible(!calls.isEmpty());
    for (const ToolCallRow &c : calls) {
        QLabel *l = makeLabel(callLine(c), this);
        l->setObjectName(QStringLiteral("call"));
        l->setTextFormat(Qt::PlainText);
        if (c.outcome != QLatin1String("ok"))
            setTone(l, Tone::Error);
        m_calls->addWidget(l);
    }
    emit rebuilt();
}

void ActivitySection::stopCommand(const QString &sandboxId, const QString &sessionId)
{
    m_stopping.insert(sessionId);
    showError(m_message, QString());
    refreshRunning();
    QPointer<ActivitySection> self(this);
    m_model.stop(sandboxId, sessionId, [self, sessionId](bool ok, const QString &error) {
        if (!self)
            return;
        self->m_stopping.remove(sessionId);
        showError(self->m_message, ok ? QString() : QStringLiteral("Could not stop the command: %1").arg(error));
        self->refreshRunning();
    });
}

} // namespace chat2sbx::ui
