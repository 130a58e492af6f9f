#include "Faults.h"

#include <QFile>

#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <unistd.h>

namespace fakesbx {

Faults Faults::load(const QString &faultsFile)
{
    Faults faults;
    QFile file(faultsFile);
    if (!file.open(QIODevice::ReadOnly))
        return faults;
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (const QByteArray &raw : lines) {
        QString line = QString::fromUtf8(raw).trimmed();
        if (line.startsWith(QLatin1String("export ")))
            line = line.mid(7).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0)
            continue;
        faults.m_file.insert(line.left(eq).trimmed(), line.mid(eq + 1));
    }
    return faults;
}

QString Faults::value(const QString &key) const
{
    const auto it = m_file.constFind(key);
    if (it != m_file.constEnd())
        return it.value();
    return qEnvironmentVariable(key.toLatin1().constData());
}

bool Faults::enabled(const QString &key) const
{
    const QString v = value(key).trimmed();
    return !v.isEmpty() && v != QLatin1String("0");
}

QStringList Faults::list(const QString &key) const
{
    QStringList out;
    const QStringList parts = value(key).split(QLatin1Char(','));
    for (const QString &part : parts) {
        const QString t = part.trimmed();
        if (!t.isEmpty())
            out << t;
    }
    return out;
}

QString commandKey(const QStringList &args)
{
    if (args.isEmpty())
        return {};
    const QString &cmd = args.first();
    if (cmd == QLatin1String("version"))
        return QStringLiteral("VERSION");
    if (cmd == QLatin1String("template") && args.size() > 1) {
        if (args.at(1) == QLatin1String("ls"))
            return QStringLiteral("TEMPLATE_LS");
        if (args.at(1) == QLatin1String("save"))
            return QStringLiteral("TEMPLATE_SAVE");
        if (args.at(1) == QLatin1String("rm"))
            return QStringLiteral("TEMPLATE_RM");
        return {};
    }
    if (cmd == QLatin1String("create"))
        return QStringLiteral("CREATE");
    if (cmd == QLatin1String("daemon") && args.size() > 1
        && (args.at(1) == QLatin1String("stop") || args.at(1) == QLatin1String("status")))
        return QStringLiteral("DAEMON_") + args.at(1).toUpper();
    if (cmd == QLatin1String("ls"))
        return QStringLiteral("LS");
    if (cmd == QLatin1String("exec"))
        return QStringLiteral("EXEC");
    if (cmd == QLatin1String("rm"))
        return QStringLiteral("RM");
    if (cmd == QLatin1String("stop"))
        return QStringLiteral("STOP");
    if (cmd == QLatin1String("move"))
        return QStringLiteral("MOVE");
    if (cmd == QLatin1String("policy") && args.size() > 1) {
        static const QStringList subs{QStringLiteral("allow"), QStringLiteral("deny"), QStringLiteral("rm"),
                                      QStringLiteral("ls"), QStringLiteral("log"), QStringLiteral("check"),
                                      QStringLiteral("approval"), QStringLiteral("init")};
        if (subs.contains(args.at(1)))
            return QStringLiteral("POLICY_") + args.at(1).toUpper();
        return {};
    }
    if (cmd == QLatin1String("ports")) {
        for (const QString &a : args) {
            if (a == QLatin1String("--publish") || a.startsWith(QLatin1String("--publish=")))
                return QStringLiteral("PUBLISH");
        }
        return QStringLiteral("PORTS");
    }
    return {};
}

long profileDelayMs(const Faults &faults, const QString &key, long realisticMs)
{
    const QString v = faults.value(key).trimmed();
    if (!v.isEmpty())
        return std::max(0L, v.toLong());
    return faults.value(QStringLiteral("FAKE_SBX_PROFILE")).trimmed() == QLatin1String("realistic") ? realisticMs : 0;
}

void sleepMs(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void hangForever()
{
    for (;;)
        ::pause();
}

int applyCommandFaults(const Faults &faults, const QString &key)
{
    if (faults.enabled(QStringLiteral("FAKE_SBX_HANG_") + key))
        hangForever();
    const QString slow = faults.value(QStringLiteral("FAKE_SBX_SLOW_") + key).trimmed();
    if (!slow.isEmpty()) {
        bool ok = false;
        const long ms = slow.toLong(&ok);
        if (ok && ms > 0)
            sleepMs(ms);
    }
    const QString fail = faults.value(QStringLiteral("FAKE_SBX_FAIL_") + key);
    if (!fail.isEmpty()) {
        std::fprintf(stderr, "%s\n", fail.toLocal8Bit().constData());
        return 1;
    }
    return -1;
}

} // namespace fakesbx
