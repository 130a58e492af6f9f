// Validated configuration of `tunnel-client run`: flags first, then the environment, then
// defaults, with the real client's checks. Nothing in here is started yet.
#pragma once

#include "FlagSet.h"
#include "Log.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace faketunnel {

struct HttpHeader
{
    QByteArray name;
    QByteArray value;
};

struct RunConfig
{
    QString tunnelId;
    QByteArray apiKey;       // never logged
    QString apiKeySource;    // flag:file, flag:env, flag:literal, env:CONTROL_PLANE_API_KEY, env:OPENAI_API_KEY
    QUrl mcpServerUrl;
    QList<HttpHeader> probeHeaders;  // --mcp.extra-headers, then --mcp.discovery-extra-headers
    QString healthListenAddr;
    QHostAddress healthHost;
    quint16 healthPort = 0;
    QString healthUrlFile;
    LogLevel logLevel = LogLevel::Info;
    LogFormat logFormat = LogFormat::Unset;
    QString logFile;         // --log.file / LOG_FILE: the log goes there instead of stdout/stderr
    qint64 startupWaitMs = 0;  // --mcp.startup-wait-timeout / MCP_STARTUP_WAIT_TIMEOUT; 0: one probe only
    QString configFile;      // the profile or config file selected by flags or TUNNEL_CLIENT_* (read, not interpreted)
};

struct ConfigOutcome
{
    bool ok = false;
    QString error;          // one line naming the problem, never a secret
    QStringList warnings;
    RunConfig config;
};

ConfigOutcome buildRunConfig(const FlagSet &flags, const QProcessEnvironment &env);

// Go's time.ParseDuration for the units a config uses (ns us ms s m h, fractions, sequences like
// "1m30s"); false on anything else.
bool parseGoDuration(const QString &text, qint64 *ms);

} // namespace faketunnel
