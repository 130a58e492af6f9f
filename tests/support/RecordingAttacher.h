#pragma once
// The one test double of RuntimeAttacher (what SandboxService and WarmPool call to bring a runtime's
// control channel up): records what it was asked and answers as told. Header-only.

#include "sandbox/channel/RuntimeAttacher.h"

#include <QList>
#include <QStringList>
#include <QTimer>

namespace chat2sbx::test {

class RecordingAttacher : public RuntimeAttacher {
public:
    void attach(const RunningSandbox &s, std::function<void(bool, const QString &)> done) override
    {
        attached << s;
        attachedRuntimes << s.runtimeName;
        if (neverAnswer)
            return;
        const bool ok = !failFor.contains(s.sandboxId) && !failAll;
        auto answer = [this, done, ok] {
            ++answered;
            done(ok, ok ? QString() : QStringLiteral("channel refused on purpose"));
        };
        if (answerAfterMs < 0)
            answer();
        else
            QTimer::singleShot(answerAfterMs, answer);
    }
    void detach(const QString &sandboxId) override { detached << sandboxId; }

    QList<RunningSandbox> attached;
    QStringList attachedRuntimes;
    QStringList detached;
    QStringList failFor;      // sandbox ids whose attach fails
    bool failAll = false;
    bool neverAnswer = false;
    int answerAfterMs = -1;   // < 0: answers within attach()
    int answered = 0;
};

} // namespace chat2sbx::test
