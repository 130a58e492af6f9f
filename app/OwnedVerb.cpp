#include "OwnedVerb.h"

#include "Command.h"

#include "core/Clock.h"
#include "runtime/Controller.h"
#include "runtime/PidFile.h"
#include "runtime/Services.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalSocket>
#include <QTimer>

#include <cstdio>
#include <memory>

namespace chat2sbx::app {

namespace {

enum class Sent { Answered, NoServer, Failed };

void writeRaw(const QString &text, FILE *to)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), to);
    std::fflush(to);
}

QJsonObject requestOf(const CommandContext &ctx, const QString &name)
{
    QJsonObject options;
    for (auto it = ctx.options.cbegin(); it != ctx.options.cend(); ++it)
        options.insert(it.key(), it.value());
    return {{QStringLiteral("verb"), name}, {QStringLiteral("args"), QJsonArray::fromStringList(ctx.args)},
            {QStringLiteral("options"), options}, {QStringLiteral("json"), ctx.json},
            {QStringLiteral("cwd"), ctx.currentDirectory()}};
}

// Sends the verb to the server listening on `path`; NoServer when nobody listens there.
Sent sendToServer(const CommandContext &ctx, const QString &name, const QString &path, int &code)
{
    QLocalSocket socket;
    QByteArray received;
    bool connected = false;
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&socket, &QLocalSocket::connected, [&] {
        connected = true;
        socket.write(QJsonDocument(requestOf(ctx, name)).toJson(QJsonDocument::Compact) + '\n');
        deadline.start(kVerbReplyTimeoutMs);
    });
    QObject::connect(&socket, &QLocalSocket::readyRead, [&] { received += socket.readAll(); });
    // Any of these may come inside connectToServer (a refused socket fails at once): the loop runs
    // only while none has.
    bool over = false;
    const auto finish = [&] {
        over = true;
        QCoreApplication::exit(0);
    };
    QObject::connect(&socket, &QLocalSocket::disconnected, finish);
    QObject::connect(&socket, &QLocalSocket::errorOccurred, [&](QLocalSocket::LocalSocketError error) {
        if (!connected || error != QLocalSocket::PeerClosedError)
            finish();
    });
    QObject::connect(&deadline, &QTimer::timeout, finish);
    socket.connectToServer(path);
    if (!over && socket.state() != QLocalSocket::UnconnectedState)
        QCoreApplication::exec();
    received += socket.readAll();
    if (!connected)
        return Sent::NoServer;
    const QJsonDocument reply = QJsonDocument::fromJson(received.trimmed());
    if (!reply.isObject() || !reply.object().contains(QStringLiteral("exit"))) {
        code = ctx.fail(deadline.isActive() || socket.state() != QLocalSocket::ConnectedState
                            ? QStringLiteral("the chat2sbx server stopped before it answered `chat2sbx %1`. Whatever it had "
                                             "begun is finished or undone when it starts again (it reconciles on start): "
                                             "look with `chat2sbx sandbox list` or `chat2sbx status`.").arg(name)
                            : QStringLiteral("the chat2sbx server did not answer `chat2sbx %1` within %2 minutes; it may "
                                             "still be at it: look with `chat2sbx status`.").arg(name).arg(kVerbReplyTimeoutMs / 60000));
        return Sent::Failed;
    }
    const QJsonObject r = reply.object();
    writeRaw(r.value(QStringLiteral("stdout")).toString(), stdout);
    writeRaw(r.value(QStringLiteral("stderr")).toString(), stderr);
    code = r.value(QStringLiteral("exit")).toInt(1);
    return Sent::Answered;
}

// No server: this process holds the lock (a server starting meanwhile waits) and acts itself.
int actDirectly(CommandContext &ctx, const CommandSpec &spec)
{
    Services services(ctx.config, Clock::system(), spec.networkServices ? Services::Profile::CliNetwork : Services::Profile::Cli);
    QString error;
    if (!services.openDatabase(error))   // makes the state directory the lock lives in
        return ctx.fail(error);
    PidFile lock(ctx.config.pidFilePath());
    if (!lock.acquire(error))
        return PidFile::runningPid(ctx.config.pidFilePath()) > 0 ? -1 : ctx.fail(error);   // -1: a server took it meanwhile
    int code = 1;
    bool finished = false;
    spec.act(ctx, services, [&](int c) {
        code = c;
        finished = true;
        QCoreApplication::exit(c);
    });
    if (!finished)
        QCoreApplication::exec();
    return code;
}

} // namespace

int runOwnedVerb(CommandContext &ctx, const QString &name)
{
    const CommandSpec *spec = findCommand(name);
    if (!spec || !spec->act)
        return ctx.fail(QStringLiteral("`%1` is not a command that changes state").arg(name));
    const QString path = ctx.config.controlSocketPath();
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        int code = 1;
        if (QFileInfo::exists(path)) {
            const Sent sent = sendToServer(ctx, name, path, code);
            if (sent != Sent::NoServer)
                return code;
        }
        const qint64 serverPid = PidFile::runningPid(ctx.config.pidFilePath());
        if (serverPid == 0 || PidFile::heldByCommand(ctx.config.pidFilePath())) {
            if (serverPid != 0)
                return ctx.fail(QStringLiteral("another chat2sbx command (PID %1) is acting on the sandboxes; try again when it "
                                               "is done").arg(serverPid));
            code = actDirectly(ctx, *spec);
            if (code >= 0)
                return code;
            continue;   // a server took the lock meanwhile: ask it
        }
        // A server holds the lock but does not answer yet: starting (or stopping). Ask again shortly.
        if (waited.elapsed() > kServerStartingWaitMs)
            return ctx.fail(QStringLiteral("the chat2sbx server (PID %1) does not answer on its control channel %2; it may be "
                                           "starting or stopping. Try again in a moment, or see `chat2sbx status`.")
                                .arg(serverPid).arg(path));
        QTimer::singleShot(250, [] { QCoreApplication::exit(0); });
        QCoreApplication::exec();
    }
}

namespace {
const bool installed = Controller::setControlHandlerInstaller(&serveOwnedVerbs);
} // namespace

void serveOwnedVerbs(Controller &controller)
{
    controller.setControlHandler([&controller](const QJsonObject &request, std::function<void(const QJsonObject &)> reply) {
        const QString name = request.value(QStringLiteral("verb")).toString();
        const CommandSpec *spec = findCommand(name);
        if (!spec || !spec->act)
            return reply({{QStringLiteral("exit"), 2}, {QStringLiteral("stdout"), QString()},
                          {QStringLiteral("stderr"), QStringLiteral("chat2sbx: `%1` is not a command this server takes\n").arg(name)}});
        struct Run {
            CommandContext ctx;
            QByteArray out, err;
        };
        auto run = std::make_shared<Run>();
        run->ctx.config = controller.config();
        run->ctx.json = request.value(QStringLiteral("json")).toBool();
        run->ctx.workingDirectory = request.value(QStringLiteral("cwd")).toString();
        run->ctx.reconnectTunnel = [&controller] { controller.reconnectTunnel(); };
        for (const QJsonValue &a : request.value(QStringLiteral("args")).toArray())
            run->ctx.args << a.toString();
        const QJsonObject options = request.value(QStringLiteral("options")).toObject();
        for (auto it = options.begin(); it != options.end(); ++it)
            run->ctx.options.insert(it.key(), it.value().toString());
        std::weak_ptr<Run> weak = run;
        run->ctx.sink = [weak](const QByteArray &bytes, bool error) {
            if (auto r = weak.lock())
                (error ? r->err : r->out) += bytes;
        };
        spec->act(run->ctx, controller.services(), [run, reply](int code) {
            reply({{QStringLiteral("exit"), code}, {QStringLiteral("stdout"), QString::fromUtf8(run->out)},
                   {QStringLiteral("stderr"), QString::fromUtf8(run->err)}});
        });
    });
}

} // namespace chat2sbx::app
