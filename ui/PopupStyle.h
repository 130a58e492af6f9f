#pragma once

#include <QString>

class QLabel;
class QWidget;

namespace chat2sbx::ui {

// Small shared helpers for the popup's cards: sizes come from the font, never from pixels.
QString formatTime(qint64 ms);
QLabel *makeLabel(const QString &text, QWidget *parent, bool bold = false);
QWidget *makeCard(QWidget *parent);
void showError(QLabel *label, const QString &text);   // empty text hides it

} // namespace chat2sbx::ui
