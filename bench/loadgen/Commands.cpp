#include "Commands.h"

#include "LoadRun.h"
#include "McpSession.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

#include <cstdio>
#include <iostream>
#include <string>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace chat2sbx::bench {
namespace {

QString opt(const QStringList &args, const QString &name, const QString &fallback = QString())
{
    const int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1] : fallback;
}

QJsonObject jsonOpt(const QStringList &args, const QString &name)
{
    const QString raw = opt(args, name, QStringLiteral("{}"));
    return QJsonDocument::fromJson(raw.toUtf8()).object();
}

void printJson(const QJsonObject &o)
{
    const QByteArray b = QJsonDocument(o).toJson(QJsonDocument::Compact);
    fwrite(b.constData(), 1, static_cast<size_t>(b.size()), stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

QTextStream &err()
{
    static QTextStream s(stderr);
    return s;
}

QJsonObject toolParams(const QString &tool, const QJsonObject &arguments)
{
    return {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}};
}

} // namespace

int cmdLoad(const QStringList &args)
{
    LoadSpec spec;
    spec.url = QUrl(opt(args, QStringLiteral("--url")));
    const QString label = opt(args, QStringLiteral("--label"), spec.url.toString());
    const QString tool = opt(args, QStringLiteral("--tool"));
    spec.method = tool.isEmpty() ? QByteArrayLiteral("tools/list") : QByteArrayLiteral("tools/call");
    if (!tool.isEmpty())
        spec.params = toolParams(tool, jsonOpt(args, QStringLiteral("--args")));
    spec.maxRequests = opt(args, QStringLiteral("--requests"), QStringLiteral("20000")).toLongLong();
    spec.maxSeconds = opt(args, QStringLiteral("--seconds"), QStringLiteral("10")).toDouble();
    spec.warmupPerClient = opt(args, QStringLiteral("--warmup"), QStringLiteral("20")).toInt();
    const QStringList counts = opt(args, QStringLiteral("--clients"), QStringLiteral("1,8,64")).split(QLatin1Char(','));
    int rc = 0;
    for (const QString &c : counts) {
        spec.clients = c.toInt();
        const LoadResult r = runLoad(spec);
        QJsonObject o = r.json();
        o.insert(QStringLiteral("benchmark"), QStringLiteral("mcp_load"));
        o.insert(QStringLiteral("server"), label);
        o.insert(QStringLiteral("method"), QString::fromLatin1(spec.method));
        if (!tool.isEmpty())
            o.insert(QStringLiteral("tool"), tool);
        o.insert(QStringLiteral("clients"), spec.clients);
        printJson(o);
        err() << QStringLiteral("%1 %2 %3 c=%4: %5 req/s  p50 %6 ms  p99 %7 ms  n=%8 errors=%9%10")
                     .arg(label, -9)
                     .arg(QString::fromLatin1(spec.method), -10)
                     .arg(tool, -14)
                     .arg(spec.clients, 2)
                     .arg(r.rps, 9, 'f', 0)
                     .arg(r.latency.p50Ms, 7, 'f', 3)
                     .arg(r.latency.p99Ms, 7, 'f', 3)
                     .arg(r.latency.count)
                     .arg(r.errors)
                     .arg(r.error.isEmpty() && r.firstError.isEmpty() ? QString() : QStringLiteral(" (") + r.error + r.firstError + QStringLiteral(")"))
              << Qt::endl;
        if (!r.error.isEmpty() || r.errors > 0)
            rc = 1;
    }
    return rc;
}

int cmdTools(const QStringList &args)
{
    McpSession s(QUrl(opt(args, QStringLiteral("--url"))));
    const QString e = openSync(s);
    if (!e.isEmpty()) {
        err() << e << Qt::endl;
        return 1;
    }
    QString error;
    const QJsonObject result = resultOf(callSync(s, "tools/list", {}), error);
    if (!error.isEmpty()) {
        err() << error << Qt::endl;
        return 1;
    }
    printJson(result);
    return 0;
}

int cmdCall(const QStringList &args)
{
    McpSession s(QUrl(opt(args, QStringLiteral("--url"))));
    const QString e = openSync(s);
    if (!e.isEmpty()) {
        err() << e << Qt::endl;
        return 1;
    }
    const QString tool = opt(args, QStringLiteral("--tool"));
    const QString label = opt(args, QStringLiteral("--label"), tool);
    const QJsonObject params = toolParams(tool, jsonOpt(args, QStringLiteral("--args")));
    const int repeat = opt(args, QStringLiteral("--repeat"), QStringLiteral("100")).toInt();
    const int warmup = opt(args, QStringLiteral("--warmup"), QStringLiteral("5")).toInt();
    QJsonObject last;
    qint64 toolErrors = 0, rpcErrors = 0;
    QString firstError;
    std::vector<qint64> samples;
    QElapsedTimer wall;
    for (int i = -warmup; i < repeat; ++i) {
        if (i == 0)
            wall.start();
        QElapsedTimer t;
        t.start();
        const HttpResponse r = callSync(s, "tools/call", params);
        const qint64 ns = t.nsecsElapsed();
        QString error;
        last = resultOf(r, error);
        if (!error.isEmpty()) {
            ++rpcErrors;
            if (firstError.isEmpty())
                firstError = error;
        } else if (last.value(QStringLiteral("isError")).toBool()) {
            ++toolErrors;
            if (firstError.isEmpty())
                firstError = last.value(QStringLiteral("content")).toArray().at(0).toObject().value(QStringLiteral("text")).toString();
        }
        if (i >= 0)
            samples.push_back(ns);
    }
    const double seconds = repeat > 0 ? static_cast<double>(wall.nsecsElapsed()) / 1e9 : 0;
    const LatencyStats st = LatencyStats::of(samples);
    QJsonObject o = st.json();
    o.insert(QStringLiteral("benchmark"), QStringLiteral("tool_call"));
    o.insert(QStringLiteral("label"), label);
    o.insert(QStringLiteral("tool"), tool);
    o.insert(QStringLiteral("tool_errors"), toolErrors);
    o.insert(QStringLiteral("rpc_errors"), rpcErrors);
    o.insert(QStringLiteral("seconds"), seconds);
    if (!firstError.isEmpty())
        o.insert(QStringLiteral("first_error"), firstError.left(500));
    if (args.contains(QStringLiteral("--print-result")))
        o.insert(QStringLiteral("last_result"), last);
    printJson(o);
    err() << QStringLiteral("%1: n=%2 mean %3 ms p50 %4 ms p99 %5 ms tool_errors=%6 rpc_errors=%7 %8")
                 .arg(label)
                 .arg(st.count)
                 .arg(st.meanMs, 0, 'f', 3)
                 .arg(st.p50Ms, 0, 'f', 3)
                 .arg(st.p99Ms, 0, 'f', 3)
                 .arg(toolErrors)
                 .arg(rpcErrors)
                 .arg(firstError.left(200))
          << Qt::endl;
    return rpcErrors > 0 || toolErrors > 0 ? 1 : 0;
}

int cmdRpc(const QStringList &args)
{
    McpSession s(QUrl(opt(args, QStringLiteral("--url"))));
    const QString e = openSync(s);
    if (!e.isEmpty()) {
        printJson({{QStringLiteral("error"), e}});
        return 1;
    }
    printJson({{QStringLiteral("ready"), true}});
    std::string line;
    while (std::getline(std::cin, line)) {
        const QJsonObject req = QJsonDocument::fromJson(QByteArray::fromStdString(line)).object();
        QElapsedTimer t;
        t.start();
        const HttpResponse r = callSync(s, req.value(QStringLiteral("method")).toString().toLatin1(),
                                        req.value(QStringLiteral("params")).toObject());
        const double ms = static_cast<double>(t.nsecsElapsed()) / 1e6;
        QString error;
        const QJsonObject result = resultOf(r, error);
        QJsonObject o{{QStringLiteral("ms"), ms}, {QStringLiteral("status"), r.status}};
        if (error.isEmpty())
            o.insert(QStringLiteral("result"), result);
        else
            o.insert(QStringLiteral("error"), error);
        printJson(o);
    }
    return 0;
}

int cmdStream(const QStringList &args)
{
    McpSession s(QUrl(opt(args, QStringLiteral("--url"))));
    const QString e = openSync(s);
    if (!e.isEmpty()) {
        err() << e << Qt::endl;
        return 1;
    }
    const QString sandbox = opt(args, QStringLiteral("--sandbox"));
    const QString command = opt(args, QStringLiteral("--command"));
    const int pollYield = opt(args, QStringLiteral("--poll-yield-ms"), QStringLiteral("1000")).toInt();
    const qint64 expect = opt(args, QStringLiteral("--expect-bytes"), QStringLiteral("-1")).toLongLong();
    const double maxSeconds = opt(args, QStringLiteral("--max-seconds"), QStringLiteral("0")).toDouble();
    bool stoppedEarly = false;
    QJsonObject o{{QStringLiteral("benchmark"), QStringLiteral("bash_poll_stream")}, {QStringLiteral("command"), command}};
    QElapsedTimer wall;
    wall.start();
    qint64 bytes = 0, polls = 0, responseBytes = 0;
    QString error;
    QJsonObject result = resultOf(callSync(s, "tools/call",
                                           toolParams(QStringLiteral("bash"), {{QStringLiteral("sandbox_id"), sandbox},
                                                                               {QStringLiteral("command"), command},
                                                                               {QStringLiteral("yield_time_ms"), 0}})),
                                  error);
    QString sessionId;
    for (;;) {
        if (!error.isEmpty() || result.value(QStringLiteral("isError")).toBool()) {
            if (error.isEmpty())
                error = result.value(QStringLiteral("content")).toArray().at(0).toObject().value(QStringLiteral("text")).toString();
            break;
        }
        const QJsonObject sc = result.value(QStringLiteral("structuredContent")).toObject();
        bytes += sc.value(QStringLiteral("output")).toString().toUtf8().size();
        sessionId = sc.value(QStringLiteral("session_id")).toString();
        if (sc.value(QStringLiteral("status")).toString() == QStringLiteral("exited") && !sc.value(QStringLiteral("has_more_output")).toBool())
            break;
        if (maxSeconds > 0 && static_cast<double>(wall.nsecsElapsed()) / 1e9 >= maxSeconds) {
            stoppedEarly = true;   // too slow to finish in time: rate over what arrived, then stop the command
            break;
        }
        ++polls;
        const HttpResponse r = callSync(s, "tools/call",
                                        toolParams(QStringLiteral("bash_poll"), {{QStringLiteral("sandbox_id"), sandbox},
                                                                                 {QStringLiteral("session_id"), sessionId},
                                                                                 {QStringLiteral("yield_time_ms"), pollYield}}));
        responseBytes += r.body.size();
        result = resultOf(r, error);
    }
    const double seconds = static_cast<double>(wall.nsecsElapsed()) / 1e9;
    if (stoppedEarly) {
        callSync(s, "tools/call",
                 toolParams(QStringLiteral("bash_stop"), {{QStringLiteral("sandbox_id"), sandbox}, {QStringLiteral("session_id"), sessionId}}));
        o.insert(QStringLiteral("stopped_early"), true);
        o.insert(QStringLiteral("note"), QStringLiteral("stopped after --max-seconds; MB/s is over the bytes received until then"));
    }
    const double mbps = seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0;
    o.insert(QStringLiteral("output_bytes"), bytes);
    o.insert(QStringLiteral("http_body_bytes"), responseBytes);
    o.insert(QStringLiteral("polls"), polls);
    o.insert(QStringLiteral("seconds"), seconds);
    o.insert(QStringLiteral("mb_per_s"), std::round(mbps * 10) / 10);
    if (!error.isEmpty())
        o.insert(QStringLiteral("error"), error.left(500));
    if (expect >= 0 && bytes != expect && !stoppedEarly)
        o.insert(QStringLiteral("error"), QStringLiteral("expected %1 bytes of output, got %2 (%3)").arg(expect).arg(bytes).arg(error.left(300)));
    printJson(o);
    err() << QStringLiteral("bash_poll stream: %1 bytes in %2 s = %3 MB/s, %4 polls %5")
                 .arg(bytes)
                 .arg(seconds, 0, 'f', 2)
                 .arg(mbps, 0, 'f', 1)
                 .arg(polls)
                 .arg(o.value(QStringLiteral("error")).toString())
          << Qt::endl;
    return o.contains(QStringLiteral("error")) ? 1 : 0;
}

int cmdSpawn(const QStringList &args)
{
    const int sep = args.indexOf(QStringLiteral("--"));
    if (sep < 0 || sep + 1 >= args.size()) {
        err() << "spawn: usage: spawn [--repeat N] [--label L] -- program args..." << Qt::endl;
        return 2;
    }
    const int repeat = opt(args.mid(0, sep), QStringLiteral("--repeat"), QStringLiteral("50")).toInt();
    const QString label = opt(args.mid(0, sep), QStringLiteral("--label"), QStringLiteral("spawn"));
    std::vector<std::string> argvStore;
    for (const QString &a : args.mid(sep + 1))
        argvStore.push_back(a.toStdString());
    std::vector<char *> argv;
    for (auto &a : argvStore)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<qint64> samples;
    int failures = 0;
    for (int i = -2; i < repeat; ++i) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        QElapsedTimer t;
        t.start();
        pid_t pid = 0;
        int status = 0;
        if (posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0 || waitpid(pid, &status, 0) < 0
            || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            ++failures;
        const qint64 ns = t.nsecsElapsed();
        posix_spawn_file_actions_destroy(&fa);
        if (i >= 0)
            samples.push_back(ns);
    }
    const LatencyStats st = LatencyStats::of(samples);
    QJsonObject o = st.json();
    o.insert(QStringLiteral("benchmark"), QStringLiteral("bare_process"));
    o.insert(QStringLiteral("label"), label);
    o.insert(QStringLiteral("failures"), failures);
    o.insert(QStringLiteral("argv"), QJsonArray::fromStringList(args.mid(sep + 1)));
    printJson(o);
    err() << QStringLiteral("%1: n=%2 mean %3 ms p50 %4 ms p99 %5 ms failures=%6")
                 .arg(label)
                 .arg(st.count)
                 .arg(st.meanMs, 0, 'f', 3)
                 .arg(st.p50Ms, 0, 'f', 3)
                 .arg(st.p99Ms, 0, 'f', 3)
                 .arg(failures)
          << Qt::endl;
    return failures > 0 ? 1 : 0;
}

} // namespace chat2sbx::bench
