#pragma once

#include <QByteArray>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

namespace chat2sbx {

struct HostGitResult {
    bool ok = false;        // exit 0
    bool timedOut = false;
    int exitCode = -1;
    QByteArray out;         // at most kMaxOutputBytes
    QString error;          // readable, when !ok: git's own first stderr line included
};

// The ONLY code that runs `git` on the host (export of a clone sandbox's work into the user's
// repository). Every call: an argv list, `git -C <repository>` with hooks, auto-gc and optional
// locks switched off, a timeout, and an explicit minimal environment (no GIT_DIR/GIT_INDEX_FILE or
// other variables inherited from whoever started chat2sbx). Runs on the event loop (through
// core/ChildProcess); never waits.
class HostGit : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 120000;
    static constexpr qsizetype kMaxOutputBytes = 4 * 1024 * 1024;

    explicit HostGit(QObject *parent = nullptr);

    void setGitPath(const QString &path) { m_gitPath = path; }
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }

    using Callback = std::function<void(const HostGitResult &)>;
    // `done` runs exactly once, from the event loop.
    void run(const QString &repository, const QStringList &args, Callback done);

    // PATH, HOME, LANG/LC_ALL and the git switches that keep it non-interactive.
    static QProcessEnvironment environment();
    static QStringList argv(const QString &repository, const QStringList &args);

private:
    QString m_gitPath = QStringLiteral("git");
    int m_timeoutMs = kDefaultTimeoutMs;
};

} // namespace chat2sbx
