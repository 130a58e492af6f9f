#pragma once

#include <QByteArray>
#include <QString>

namespace chat2sbx {

// What `edit` does to a file's bytes, decided before anything is built: how many times old_string
// matches, whether that is allowed, and whether the result stays under the size cap. The result is
// computed only after the cap check, in one linear pass, so a large replace_all can neither exhaust
// memory nor hold the event loop.
struct EditPlan {
    enum class Outcome { Ok, NotFound, Ambiguous, TooLarge };
    Outcome outcome = Outcome::NotFound;
    qsizetype matches = 0;       // how many times oldText occurs (not overlapping)
    qint64 resultBytes = 0;      // size the edited file would have (Ok and TooLarge)
    QByteArray after;            // the edited file (Ok only)
};

// oldText must not be empty. Counts every match (also when not replaceAll, so the error can say how
// many), checks the result size against maxResultBytes, and only then builds the result.
EditPlan planEdit(const QByteArray &before, const QByteArray &oldText, const QByteArray &newText, bool replaceAll,
                  qint64 maxResultBytes);

} // namespace chat2sbx
