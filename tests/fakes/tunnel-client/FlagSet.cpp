#include "FlagSet.h"

namespace faketunnel {
namespace {

enum class Kind { Value, Bool };
enum class Use { Emulated, Ignored };

struct FlagSpec
{
    const char *name;
    Kind kind;
    Use use;
    const char *help;
};

// Emulated flags first, then the rest of `tunnel-client run`'s flags (pkg/runtimeconfig
// RegisterFlags, cmd/client/run_command.go), which are accepted so that a supervisor passing a
// real flag is not mistaken for a typo, but have no effect.
constexpr FlagSpec kFlags[] = {
    {"control-plane.tunnel-id", Kind::Value, Use::Emulated, "tunnel_<32 hex> (env CONTROL_PLANE_TUNNEL_ID)"},
    {"control-plane.api-key", Kind::Value, Use::Emulated, "file:/path | env:VAR | literal (env CONTROL_PLANE_API_KEY, OPENAI_API_KEY)"},
    {"control-plane.base-url", Kind::Value, Use::Emulated, "accepted, unused"},
    {"mcp.server-url", Kind::Value, Use::Emulated, "MCP endpoint URL, or url=...,channel=main (env MCP_SERVER_URL)"},
    {"mcp.extra-headers", Kind::Value, Use::Emulated, "'Name: value' (value may be file:/path or env:VAR), repeatable"},
    {"mcp.discovery-extra-headers", Kind::Value, Use::Emulated, "like --mcp.extra-headers, only on the startup probe"},
    {"health.listen-addr", Kind::Value, Use::Emulated, "host:port, default 127.0.0.1:8080 (env HEALTH_LISTEN_ADDR)"},
    {"health.url-file", Kind::Value, Use::Emulated, "write the health base URL here once listening (env HEALTH_URL_FILE)"},
    {"log.level", Kind::Value, Use::Emulated, "debug | info | warn | error (env LOG_LEVEL)"},
    {"log.format", Kind::Value, Use::Emulated, "struct-text | json (env LOG_FORMAT); unset: Go's default text on stderr"},
    {"log.file", Kind::Value, Use::Emulated, "append the log to this file (env LOG_FILE)"},
    {"mcp.command", Kind::Value, Use::Emulated, "a stdio MCP channel (env MCP_COMMAND); beside --mcp.server-url it is a duplicate main channel"},
    {"mcp.startup-wait-timeout", Kind::Value, Use::Emulated, "retry a refused start-up probe until this Go duration (env MCP_STARTUP_WAIT_TIMEOUT)"},
    {"config", Kind::Value, Use::Emulated, "YAML config file (env TUNNEL_CLIENT_CONFIG); must be readable, not interpreted"},
    {"profile", Kind::Value, Use::Emulated, "profile name (env TUNNEL_CLIENT_PROFILE); <profile dir>/<name>.yaml must be readable"},
    {"profile-file", Kind::Value, Use::Emulated, "profile file (env TUNNEL_CLIENT_PROFILE_FILE); must be readable"},
    {"profile-dir", Kind::Value, Use::Emulated, "profile directory (env TUNNEL_CLIENT_PROFILE_DIR)"},
    {"ca-bundle", Kind::Value, Use::Ignored, nullptr},
    {"http-proxy", Kind::Value, Use::Ignored, nullptr},
    {"pid.file", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.url-path", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.organization-id", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.client-cert", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.client-key", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.http-proxy", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.max-inflight", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.poll-timeout", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.poll-deadline-guardrail", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.poll-channel", Kind::Value, Use::Ignored, nullptr},
    {"control-plane.extra-headers", Kind::Value, Use::Ignored, nullptr},
    {"log.http-raw-unsafe", Kind::Bool, Use::Ignored, nullptr},
    {"health.unix-socket", Kind::Value, Use::Ignored, nullptr},
    {"mcp.http-proxy", Kind::Value, Use::Ignored, nullptr},
    {"mcp.client-cert", Kind::Value, Use::Ignored, nullptr},
    {"mcp.client-key", Kind::Value, Use::Ignored, nullptr},
    {"mcp.connection-max-ttl", Kind::Value, Use::Ignored, nullptr},
    {"mcp.max-concurrent-requests", Kind::Value, Use::Ignored, nullptr},
    {"embedded-mcp-stub", Kind::Bool, Use::Ignored, nullptr},
    {"embedded-mcp-listen-addr", Kind::Value, Use::Ignored, nullptr},
    {"embedded-mcp-server-name", Kind::Value, Use::Ignored, nullptr},
    {"embedded-mcp-server-version", Kind::Value, Use::Ignored, nullptr},
};

const FlagSpec *findFlag(const QString &name)
{
    for (const FlagSpec &spec : kFlags) {
        if (name == QLatin1String(spec.name))
            return &spec;
    }
    return nullptr;
}

// strconv.ParseBool
bool parseGoBool(const QString &text, bool *ok)
{
    static const QStringList truthy = {"1", "t", "T", "TRUE", "true", "True"};
    static const QStringList falsy = {"0", "f", "F", "FALSE", "false", "False"};
    *ok = truthy.contains(text) || falsy.contains(text);
    return truthy.contains(text);
}

} // namespace

bool FlagSet::parse(const QStringList &args, QString *error)
{
    for (int i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        if (arg == QLatin1String("--")) {
            m_positional += args.mid(i + 1);
            break;
        }
        if (arg == QLatin1String("-h") || arg == QLatin1String("--help")) {
            m_help = true;
            continue;
        }
        if (!arg.startsWith(QLatin1Char('-')) || arg == QLatin1String("-")) {
            m_positional << arg;
            continue;
        }
        if (!arg.startsWith(QLatin1String("--"))) {
            *error = QStringLiteral("unknown shorthand flag: '%1' in %2").arg(arg.mid(1, 1), arg);
            return false;
        }
        const QString body = arg.mid(2);
        const int eq = body.indexOf(QLatin1Char('='));
        const QString name = eq < 0 ? body : body.left(eq);
        const FlagSpec *spec = findFlag(name);
        if (!spec) {
            *error = QStringLiteral("unknown flag: --%1").arg(name);
            return false;
        }
        QString value;
        if (eq >= 0) {
            value = body.mid(eq + 1);
        } else if (spec->kind == Kind::Bool) {
            value = QStringLiteral("true");
        } else if (i + 1 < args.size()) {
            value = args.at(++i);
        } else {
            *error = QStringLiteral("flag needs an argument: --%1").arg(name);
            return false;
        }
        if (spec->kind == Kind::Bool) {
            bool ok = false;
            parseGoBool(value, &ok);
            if (!ok) {
                *error = QStringLiteral("invalid argument \"%1\" for \"--%2\" flag: parse error").arg(value, name);
                return false;
            }
        }
        m_values[name].append(value);
    }
    return true;
}

QString FlagSet::value(const QString &name) const
{
    const QStringList all = m_values.value(name);
    return all.isEmpty() ? QString() : all.last();
}

QStringList FlagSet::ignoredFlagsUsed() const
{
    QStringList out;
    for (const FlagSpec &spec : kFlags) {
        if (spec.use == Use::Ignored && m_values.contains(QLatin1String(spec.name)))
            out << QLatin1String(spec.name);
    }
    return out;
}

QString FlagSet::usage()
{
    QString text = QStringLiteral("Usage: tunnel-client run [flags]   (fake for chat2sbx tests)\n\nFlags:\n");
    for (const FlagSpec &spec : kFlags) {
        if (spec.use != Use::Emulated)
            continue;
        text += QStringLiteral("  --%1  %2\n").arg(QLatin1String(spec.name), QLatin1String(spec.help));
    }
    text += QStringLiteral("\nOther flags of the real client are accepted and ignored.\n");
    return text;
}

} // namespace faketunnel
