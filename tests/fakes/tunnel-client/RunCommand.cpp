#include "RunCommand.h"

#include "EventLog.h"
#include "Faults.h"
#include "FlagSet.h"
#include "Log.h"
#include "RunConfig.h"
#include "SignalWatcher.h"
#include "TunnelRuntime.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QStringList>

#include <cstdio>

namespace faketunnel {
namespace {

constexpr int kUsageExit = 1;   // every error exits 1 (cmd/client/main.go)

int fail(const EventLog &events, const QString &message, int code = kUsageExit)
{
    logAlways(message);
    events.write(QStringLiteral("exit"), {{QStringLiteral("code"), code},
                                          {QStringLiteral("signal"), QJsonValue::Null},
                                          {QStringLiteral("reason"), QStringLiteral("invalid configuration")}});
    return code;
}

QJsonObject describe(const RunConfig &cfg)
{
    QJsonArray names;
    for (const HttpHeader &h : cfg.probeHeaders)
        names.append(QString::fromLatin1(h.name));
    return {{QStringLiteral("tunnel_id"), cfg.tunnelId},
            {QStringLiteral("api_key_source"), cfg.apiKeySource},
            {QStringLiteral("mcp_server_url"), cfg.mcpServerUrl.toString()},
            {QStringLiteral("extra_header_names"), names},
            {QStringLiteral("health_listen_addr"), cfg.healthListenAddr},
            {QStringLiteral("health_url_file"), cfg.healthUrlFile},
            {QStringLiteral("startup_wait_ms"), cfg.startupWaitMs},
            {QStringLiteral("log_file"), cfg.logFile},
            {QStringLiteral("config_file"), cfg.configFile}};
}

} // namespace

int runCommand(QCoreApplication &app, const QStringList &argv, const QStringList &runArgs)
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // Installed first so a signal during startup is not lost; it is handled once the loop runs.
    SignalWatcher signalWatcher;

    Faults faults;
    QString faultError;
    const bool faultsOk = readFaults(env, &faults, &faultError);
    const EventLog events(env.value(QStringLiteral("FAKE_TUNNEL_LOG")));
    QStringList envNames = env.keys();
    envNames.sort();
    events.write(QStringLiteral("start"), {{QStringLiteral("argv"), QJsonArray::fromStringList(argv)},
                                           {QStringLiteral("env_names"), QJsonArray::fromStringList(envNames)}});
    if (!faultsOk)
        return fail(events, faultError);

    FlagSet flags;
    QString error;
    if (!flags.parse(runArgs, &error))
        return fail(events, error + QStringLiteral(" (see tunnel-client run --help)"));
    if (flags.helpRequested()) {
        std::fputs(FlagSet::usage().toUtf8().constData(), stdout);
        events.write(QStringLiteral("exit"), {{QStringLiteral("code"), 0}, {QStringLiteral("signal"), QJsonValue::Null}});
        return 0;
    }
    if (!flags.positional().isEmpty())
        return fail(events, QStringLiteral("unexpected argument \"%1\" for \"tunnel-client run\"").arg(flags.positional().first()));

    const ConfigOutcome outcome = buildRunConfig(flags, env);
    if (!outcome.ok)
        return fail(events, outcome.error);
    QString logOpenError;
    if (!configureLog(outcome.config.logLevel, outcome.config.logFormat, outcome.config.logFile, &logOpenError))
        return fail(events, logOpenError);
    for (const QString &warning : outcome.warnings)
        logWarn(warning);
    if (!outcome.config.configFile.isEmpty())
        logInfo(QStringLiteral("loaded config file"), {{QStringLiteral("path"), outcome.config.configFile}});
    events.write(QStringLiteral("configured"), describe(outcome.config));

    if (faults.exitAtOnce) {
        logError(QStringLiteral("exiting with code %1 (FAKE_TUNNEL_EXIT_AT_ONCE)").arg(faults.exitAtOnceCode));
        events.write(QStringLiteral("exit"), {{QStringLiteral("code"), faults.exitAtOnceCode},
                                              {QStringLiteral("signal"), QJsonValue::Null},
                                              {QStringLiteral("reason"), QStringLiteral("FAKE_TUNNEL_EXIT_AT_ONCE")}});
        return faults.exitAtOnceCode;
    }
    if (!signalWatcher.ok())
        return fail(events, QStringLiteral("cannot set up signal handling"), 1);

    TunnelRuntime runtime(outcome.config, faults, events, &signalWatcher);
    if (!runtime.start())
        return 1;
    logInfo(QStringLiteral("tunnel-client started"), {{QStringLiteral("tunnel_id"), outcome.config.tunnelId},
                                                      {QStringLiteral("mcp_server_url"), outcome.config.mcpServerUrl.toString()}});
    return app.exec();
}

} // namespace faketunnel
