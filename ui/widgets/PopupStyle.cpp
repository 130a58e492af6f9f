#include "widgets/PopupStyle.h"

#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <cmath>

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

namespace {
const char kTimePrefix[] = "chat2sbx_timePrefix";
const char kTimeMs[] = "chat2sbx_timeMs";
} // namespace

void setRelativeTime(QLabel *label, const QString &prefix, qint64 ms)
{
    label->setProperty(kTimePrefix, prefix);
    label->setProperty(kTimeMs, ms);
    label->setText(prefix + formatTime(ms));
}

void refreshRelativeTimes(QWidget *root)
{
    for (QLabel *label : root->findChildren<QLabel *>()) {
        const QVariant ms = label->property(kTimeMs);
        if (!ms.isValid())
            continue;
        const QString text = label->property(kTimePrefix).toString() + formatTime(ms.toLongLong());
        if (label->text() != text)
            label->setText(text);
    }
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

namespace {
double relativeLuminance(const QColor &c)
{
    const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}
} // namespace

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Dark text for light backgrounds, light text for dark ones (a dark or high-contrast theme); where
// neither reaches WCAG's 4.5:1 on the palette's background, the palette's own text colour.
QString toneColour(Tone tone)
{
    const QPalette palette = QGuiApplication::palette();
    const QColor background = palette.color(QPalette::Window);
    const bool dark = relativeLuminance(background) < 0.2;
    QString colour;
    switch (tone) {
    case Tone::Error: colour = dark ? QStringLiteral("#ff9c94") : QStringLiteral("#b42318"); break;
    case Tone::Warning: colour = dark ? QStringLiteral("#fdb022") : QStringLiteral("#b54708"); break;
    case Tone::Success: colour = dark ? QStringLiteral("#47cd89") : QStringLiteral("#067647"); break;
    case Tone::Muted: colour = dark ? QStringLiteral("#d0d5dd") : QStringLiteral("#344054"); break;
    }
    if (contrastRatio(QColor(colour), background) < 4.5)
        return palette.color(QPalette::WindowText).name();
    return colour;
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
