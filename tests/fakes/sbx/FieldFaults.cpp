#include "FieldFaults.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>

#include <cstdio>

namespace fakesbx {
namespace {

QString readText(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed() : QString();
}

void writeText(const QString &path, const QString &text)
{
    QFile f(path);
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        f.write(text.toUtf8());
}

void printErr(const char *text)
{
    std::fputs(text, stderr);
    std::fflush(stderr);
}

} // namespace

void applyHangs(const Context &ctx)
{
    if (ctx.faults.enabled(QStringLiteral("FAKE_SBX_HANG_ALL"))) {
        printErr("WARN: could not acquire docker hub refresh lock, waiting for it to be released\n");
        hangForever();
    }
    if (QFileInfo::exists(ctx.state.path(QStringLiteral("wedged"))))
        hangForever();
}

int applyDaemonFaults(const Context &ctx, const QString &key)
{
    // Answered by a restart of the daemon (`sbx daemon stop`): it runs the new version since.
    if (ctx.faults.enabled(QStringLiteral("FAKE_SBX_UPDATE_PENDING")) && !QFileInfo::exists(ctx.state.path(QStringLiteral("daemon-restarted")))) {
        // The question goes to the terminal; with stdin closed nobody can answer it (v0.45: exit non-zero).
        printOut("Docker Sandboxes has been updated and needs to restart. All running sandboxes will be stopped. "
                 "Restart now? (y/N) ");
        return fail(QStringLiteral("\nERROR: cannot prompt for confirmation: stdin is not a terminal"));
    }
    if (ctx.faults.enabled(QStringLiteral("FAKE_SBX_SESSION_EXPIRED")) && key != QLatin1String("LS"))
        return fail(QStringLiteral("ERROR: your Docker session has expired: run 'sbx login' to sign in again"));
    return -1;
}

int requireExecutor(const Context &ctx)
{
    if (!ctx.faults.enabled(QStringLiteral("FAKE_SBX_NO_EXECUTOR")))
        return -1;
    return fail(QStringLiteral("ERROR: 500 Internal Server Error: failed to start runtime: no sandbox executor available"));
}

ListHiding::ListHiding(const Context &ctx)
{
    m_expired = ctx.faults.enabled(QStringLiteral("FAKE_SBX_SESSION_EXPIRED"));
    if (m_expired)
        printErr("Your Docker session has expired. To sign in, open https://login.docker.com/activate in a browser "
                 "and enter the code WDJB-MJHT\n");
    m_names = ctx.faults.list(QStringLiteral("FAKE_SBX_LS_HIDE"));
    if (m_names.isEmpty())
        return;
    m_all = m_names.contains(QStringLiteral("all"));
    m_active = true;
    // Bounded hiding: the listings so far and the first hidden one's time live beside the state.
    const QString calls = ctx.faults.value(QStringLiteral("FAKE_SBX_LS_HIDE_CALLS")).trimmed();
    if (!calls.isEmpty()) {
        const QString counter = ctx.state.path(QStringLiteral("ls-hidden-calls"));
        const int done = readText(counter).toInt();
        m_active = done < calls.toInt();
        writeText(counter, QString::number(done + 1));
    }
    const QString forMs = ctx.faults.value(QStringLiteral("FAKE_SBX_LS_HIDE_FOR_MS")).trimmed();
    if (!forMs.isEmpty() && m_active) {
        const QString since = ctx.state.path(QStringLiteral("ls-hidden-since"));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        qint64 first = readText(since).toLongLong();
        if (first <= 0) {
            first = now;
            writeText(since, QString::number(now));
        }
        m_active = now - first < forMs.toLongLong();
    }
}

bool ListHiding::hides(const QString &name) const
{
    return m_expired || (m_active && (m_all || m_names.contains(name)));
}

void wedgeOnSave(const Context &ctx)
{
    if (!ctx.faults.enabled(QStringLiteral("FAKE_SBX_TEMPLATE_SAVE_WEDGES")))
        return;
    writeText(ctx.state.path(QStringLiteral("wedged")), QStringLiteral("a template save timed out\n"));
    hangForever();
}

} // namespace fakesbx
