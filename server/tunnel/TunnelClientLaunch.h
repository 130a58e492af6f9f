#pragma once

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace chat2sbx {

// How chat2sbx starts OpenAI's `tunnel-client` (reference/tunnel-client.md): the argv of `run` and
// `doctor`, and the child's environment. Used only by TunnelSupervisor (run) and TunnelDoctor (doctor).
//
// The environment is built from nothing, never inherited whole: the client reads every setting from
// the environment too (MCP_COMMAND adds a second MCP channel and makes it exit 1, TUNNEL_CLIENT_PROFILE
// loads a profile, LOG_FILE moves its log away from us), so a user's exported variables must not reach it.
struct TunnelClientLaunch {
    static const QString keyVariable;          // CHAT2SBX_TUNNEL_KEY: the api key, referenced as env:
    static const QString localTokenVariable;   // CHAT2SBX_LOCAL_TOKEN: the X-Local-Token value

    QString tunnelId;
    QString mcpServerUrl;          // http://127.0.0.1:<port>/mcp
    QString healthUrlFile;         // --health.url-file; the listener binds 127.0.0.1:0
    QString localTokenHeader;      // empty: no --mcp.extra-headers
    qint64 startupWaitMs = 0;      // --mcp.startup-wait-timeout; 0: not passed

    // The MCP endpoint on `host` (the server's listen address; a wildcard or localhost is reached
    // on 127.0.0.1, an IPv6 address in brackets) and `port`.
    static QString mcpUrlFor(const QString &host, quint16 port);
    // Why `program` cannot be run (missing, not an executable file) and what to do; empty when it can.
    static QString whyNotRunnable(const QString &program);

    QStringList runArguments() const;
    // `doctor --explain` with the same configuration (doctor validates it and probes the MCP endpoint).
    QStringList doctorArguments() const;

    // PATH, HOME, USER, LOGNAME, LANG/LANGUAGE/LC_*, TZ, TMPDIR, the proxy and CA variables Go's HTTP
    // client reads, the variables named by `extra` (NAME or PREFIX*; Config::tunnelEnv) unless the client
    // would read them as its own settings (then listed in *refused), then the key and local token.
    static QProcessEnvironment environment(const QProcessEnvironment &parent, const QStringList &extra,
                                           const QString &key, const QString &localToken, QStringList *refused = nullptr);
    // True for a name tunnel-client reads as configuration (MCP_*, CONTROL_PLANE_*, TUNNEL_CLIENT_*, LOG_*,
    // HEALTH_*, OPENAI_* ...) or one of chat2sbx's own (CHAT2SBX_*).
    static bool isReservedName(const QString &name);
    // Go duration text for milliseconds ("1500ms").
    static QString goDuration(qint64 ms);
};

} // namespace chat2sbx
