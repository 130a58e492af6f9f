#pragma once

#include "widgets/PopupStyle.h"

#include <QElapsedTimer>
#include <QGroupBox>

#include <functional>

class QLabel;
class QVBoxLayout;

namespace chat2sbx::ui {

// The frame of a popup section that lists cards (Approvals, Network, Sandboxes, Workspaces): a group
// box titled with a count, a message line above the cards (hidden while empty), a text for when there
// is nothing to list, and the cards, built again from the model's rows on every change, with their
// buttons chained for Tab in visual order. A section adds only its own cards and their actions.
class CardList : public QGroupBox {
    Q_OBJECT
public:
    struct Frame {
        QString name;           // the section's object name; its message line is "<name>Message"
        QString title;          // while nothing is counted
        QString countedTitle;   // with the count as %1: "Approvals (%1 pending)"
        QString emptyText;      // shown while there is no card
        bool hideWhenEmpty = false;   // a section of decisions: out of sight while none waits (and no message)
    };
    CardList(const Frame &frame, QWidget *parent);

    // Focusable widgets in visual order (the popup chains them for Tab).
    QList<QWidget *> focusChain() const { return m_focus; }
    // The rows the title counts.
    int rowCount() const { return m_rowCount; }
    // The message line while it is shown; empty otherwise.
    QString message() const;

    // Re-reads the rows from the model (on every change signal, see follow(), and after an action
    // changed what a card shows): the old cards go, the section adds the new ones.
    void rebuild();
    // The cards go until the next rebuild (the popup closed: their memory is given back).
    void releaseCards();
    // True when the cards were built from the model less than `ms` ago and not released since.
    bool builtWithin(int ms) const { return m_built.isValid() && !m_built.hasExpired(ms); }

signals:
    void rebuilt();

protected:
    // Builds the cards now and again on every `changed` of `model` (a section's constructor calls it):
    // `addCards` adds them (addCard) and returns how many rows the title counts.
    template <typename Model>
    void follow(Model &model, void (Model::*changed)(), std::function<int()> addCards)
    {
        m_addCards = std::move(addCards);
        connect(&model, changed, this, &CardList::rebuild);
        rebuild();
    }
    // The same with one card per row of `rows()`, each made by the section's `addRowCard`.
    template <typename Model, typename Row, typename Section>
    void follow(Model &model, void (Model::*changed)(), QList<Row> (Model::*rows)() const,
                void (Section::*addRowCard)(const Row &))
    {
        auto *section = static_cast<Section *>(this);
        follow(model, changed, [&model, rows, section, addRowCard] {
            const QList<Row> list = (model.*rows)();
            for (const Row &row : list)
                (section->*addRowCard)(row);
            return static_cast<int>(list.size());
        });
    }
    // `focus`: the card's focusable widgets in visual order.
    void addCard(QWidget *card, const QList<QWidget *> &focus);
    // A focusable widget outside the cards (a filter) in the Tab chain, before the cards added next.
    void addFocus(QWidget *widget) { m_focus << widget; }
    // A widget between the message line and the cards (a section's filter).
    void addAboveCards(QWidget *widget);
    // A line above the cards in `tone`; empty text hides it.
    void showMessage(const QString &text, Tone tone = Tone::Error);

private:
    void updateShown();
    Frame m_frame;
    QLabel *m_message = nullptr;
    QLabel *m_empty = nullptr;
    QVBoxLayout *m_cards = nullptr;
    QList<QWidget *> m_focus;
    std::function<int()> m_addCards;
    int m_rowCount = 0;
    QElapsedTimer m_built;
};

} // namespace chat2sbx::ui
