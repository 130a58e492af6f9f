#pragma once

#include "state/SandboxRepository.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

namespace chat2sbx {

class SandboxService;

// sandbox_list's structured result written as JSON text, byte for byte what serializing
// {"max_active_sandboxes": sandboxLimitJson(), "sandboxes": [sandboxJson(view)...]} gives, without
// building 1,000 objects per call: each sandbox's summary (SandboxPresenter, agent audience) is kept
// serialized with the view it came from and reused while the view read from the database is the
// same in every field; a view that changed in any field is summarized again.
class SandboxListJson {
public:
    // `total` >= 0: the answer is a page of that many ("total", and "next_cursor" when non-empty).
    QByteArray listJson(const QList<SandboxView> &views, const SandboxService &sandboxes, int maxActiveSandboxes,
                        int total = -1, const QString &nextCursor = {});
    // One summary, from the cache when `view` is unchanged (the cache keeps only the sandboxes of the
    // last listing).
    QByteArray summaryJson(const SandboxView &view, const SandboxService &sandboxes);
    int cachedCount() const { return int(m_entries.size()); }

    // Every field of the two views is equal (what the summary is built from, and more).
    static bool sameView(const SandboxView &a, const SandboxView &b);

private:
    struct Entry {
        SandboxView view;
        QByteArray json;
        quint64 listed = 0;   // the listing that last used it
    };
    QHash<QString, Entry> m_entries;
    quint64 m_listing = 0;
    qsizetype m_lastSize = 0;
};

} // namespace chat2sbx
