#include "widgets/CardList.h"

#include <QLabel>
#include <QVBoxLayout>

namespace chat2sbx::ui {

CardList::CardList(const Frame &frame, QWidget *parent) : QGroupBox(parent), m_frame(frame)
{
    setObjectName(m_frame.name);
    setFlat(true);
    auto *layout = new QVBoxLayout(this);
    m_message = makeMessageLabel(m_frame.name + QStringLiteral("Message"), this);
    layout->addWidget(m_message);
    m_empty = makeLabel(m_frame.emptyText, this);
    layout->addWidget(m_empty);
    m_cards = new QVBoxLayout;
    layout->addLayout(m_cards);
}

QString CardList::message() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

void CardList::showMessage(const QString &text, Tone tone)
{
    const QString styleSheet = toneStyleSheet(tone);
    if (m_message->styleSheet() != styleSheet)
        m_message->setStyleSheet(styleSheet);
    showError(m_message, text);
    updateShown();
}

void CardList::updateShown()
{
    if (m_frame.hideWhenEmpty)
        setVisible(m_cards->count() > 0 || !m_message->isHidden());
}

void CardList::addCard(QWidget *card, const QList<QWidget *> &focus)
{
    m_cards->addWidget(card);
    m_focus << focus;
}

void CardList::addAboveCards(QWidget *widget)
{
    auto *column = static_cast<QVBoxLayout *>(layout());
    column->insertWidget(column->indexOf(m_empty), widget);
}

void CardList::releaseCards()
{
    clearCards(m_cards);
    m_focus.clear();
    m_built.invalidate();
}

void CardList::rebuild()
{
    clearCards(m_cards);
    m_focus.clear();
    m_rowCount = m_addCards ? m_addCards() : 0;
    setTitle(m_rowCount == 0 ? m_frame.title : m_frame.countedTitle.arg(m_rowCount));
    m_empty->setVisible(m_cards->count() == 0);
    updateShown();
    m_built.start();
    emit rebuilt();
}

} // namespace chat2sbx::ui
