#include "widgets/PopupStyle.h"

#include <QDateTime>
#include <QFrame>
#include <QLabel>
#include <QVBoxLayout>

namespace chat2sbx::ui {

QString formatTime(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("—");
    // Relative within a day ("2 min ago", "in 3 h"), the date and time further out.
    const qint64 delta = ms - QDateTime::currentMSecsSinceEpoch();
    const qint64 minutes = qAbs(delta) / 60000;
    if (minutes < 24 * 60) {
        const QString amount = minutes == 0 ? QString() : minutes < 60 ? QStringLiteral("%1 min").arg(minutes)
                                                                     : QStringLiteral("%1 h").arg(minutes / 60);
        if (amount.isEmpty())
            return delta <= 0 ? QStringLiteral("just now") : QStringLiteral("in a moment");
        return delta <= 0 ? amount + QStringLiteral(" ago") : QStringLiteral("in ") + amount;
    }
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

QLabel *makeLabel(const QString &text, QWidget *parent, bool bold)
{
    auto *label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (bold) {
        QFont f = label->font();
        f.setBold(true);
        label->setFont(f);
    }
    return label;
}

QWidget *makeCard(QWidget *parent, const QString &name)
{
    auto *card = new QFrame(parent);
    card->setObjectName(name);
    card->setFrameShape(QFrame::StyledPanel);
    card->setFrameShadow(QFrame::Plain);
    return card;
}

void showError(QLabel *label, const QString &text)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

QString toneColour(Tone tone)
{
    switch (tone) {
    case Tone::Error: return QStringLiteral("#b42318");
    case Tone::Warning: return QStringLiteral("#b54708");
    case Tone::Success: return QStringLiteral("#067647");
    case Tone::Muted: return QStringLiteral("#344054");
    }
    return {};
}

QString toneStyleSheet(Tone tone)
{
    return QStringLiteral("color: %1;").arg(toneColour(tone));
}

void setTone(QLabel *label, Tone tone)
{
    label->setStyleSheet(toneStyleSheet(tone));
}

QString toneHtml(Tone tone, const QString &html)
{
    return QStringLiteral("<span style=\"color:%1;\"><b>%2</b></span>").arg(toneColour(tone), html);
}

QLabel *makeMessageLabel(const QString &name, QWidget *parent)
{
    QLabel *label = makeLabel(QString(), parent);
    label->setObjectName(name);
    setTone(label, Tone::Error);
    label->hide();
    return label;
}

void clearCards(QVBoxLayout *cards)
{
    while (QLayoutItem *item = cards->takeAt(0)) {
        if (QWidget *w = item->widget()) {
            w->hide();
            w->deleteLater();
        }
        delete item;
    }
}

} // namespace chat2sbx::ui
