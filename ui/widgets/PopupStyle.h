#pragma once

#include <QString>

class QColor;
class QLabel;
class QVBoxLayout;
class QWidget;

namespace chat2sbx::ui {

// Small shared helpers for the popup's cards: sizes come from the font, never from pixels.
QString formatTime(qint64 ms);   // "2 min ago", "in 3 h"; the date further than a day
QLabel *makeLabel(const QString &text, QWidget *parent, bool bold = false);
// A label ending in a time relative to now ("… · requested 2 min ago"): `prefix` then formatTime(ms).
// refreshRelativeTimes() writes every such label below `root` again (the popup: every 30 s while shown).
void setRelativeTime(QLabel *label, const QString &prefix, qint64 ms);
void refreshRelativeTimes(QWidget *root);
QWidget *makeCard(QWidget *parent, const QString &name);   // `name`: its object name
void showError(QLabel *label, const QString &text);   // empty text hides it

// The popup's colours: a few text colours that mark a line, never a background.
enum class Tone {
    Error,     // what went wrong, LAN-wide ports, failed tool calls
    Warning,   // a direct workspace writing to the host, what ChatGPT has to refresh
    Success,   // what a Fetch or Revoke did
    Muted,     // a running command's output
};
// In the application palette's light or dark variant, at least 4.5:1 against its window colour.
QString toneColour(Tone tone);       // "#b42318"
double contrastRatio(const QColor &a, const QColor &b);   // WCAG 2 contrast ratio, 1 to 21
QString toneStyleSheet(Tone tone);   // "color: #b42318;"
void setTone(QLabel *label, Tone tone);
// `html` in bold and in the tone's colour, for a rich-text label.
QString toneHtml(Tone tone, const QString &html);

// A section's message line (object name `name`), in the error colour and hidden until showError.
QLabel *makeMessageLabel(const QString &name, QWidget *parent);
// Removes every card of `cards`; they go with deleteLater, hidden at once.
void clearCards(QVBoxLayout *cards);

} // namespace chat2sbx::ui
