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
    QString logFormat;
};

struct ConfigOutcome
{
    bool ok = false;
    QString error;          // one line naming the problem, never a secret
    QStringList warnings;
    RunConfig config;
};

ConfigOutcome buildRunConfig(const FlagSet &flags, const QProcessEnvironment &env, bool strictApiKey);

} // namespace faketunnel
