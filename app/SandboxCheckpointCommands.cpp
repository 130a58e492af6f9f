// `chat2sbx sandbox checkpoint|restore|fork|uncheckpoint`: the tools sandbox_checkpoint,
// sandbox_restore, sandbox_fork and sandbox_checkpoint_delete from a terminal. Verbs (app/OwnedVerb):
// a running server does them with its own CheckpointService, so its holds keep tool calls, sleep
// and a destroy out of the sandbox while they run; with no server, this process does.
#include "Command.h"

#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/CheckpointJson.h"
#include "sandbox/present/SandboxNames.h"

#include <QJsonArray>
#include <QJsonObject>


namespace chat2sbx::app {
namespace {

QString notesText(const QStringList &notes)
{
    return notes.isEmpty() ? QString() : QStringLiteral("\nnot kept: ") + notes.join(QStringLiteral("; "));
}

RunningCommands runningCommandsOf(const CommandContext &ctx)
{
    return ctx.isSet(QStringLiteral("end-running-commands")) ? RunningCommands::MayEnd : RunningCommands::Refuse;
}

void checkpoint(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 1 || !isWellFormedId(ctx.args.first(), "sbx_"))
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox checkpoint <sandbox id> [--label TEXT] [--pin] [--vm-only] [--keep-memory] [--docker-images A,B] [--end-running-commands]")));
    const bool pin = ctx.isSet(QStringLiteral("pin"));
    CheckpointService *checkpoints = services.checkpoints.get();
    CheckpointRequest request;
    request.sandboxId = ctx.args.first();
    request.label = ctx.value(QStringLiteral("label")).simplified();
    request.running = runningCommandsOf(ctx);
    request.scope = ctx.isSet(QStringLiteral("vm-only")) ? CheckpointScope::VmOnly : CheckpointScope::Everything;
    request.dockerImages = ctx.value(QStringLiteral("docker-images")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    request.keepMemory = ctx.isSet(QStringLiteral("keep-memory"));
    {
        checkpoints->create(request, {}, [checkpoints, &ctx, pin, done](const CheckpointOutcome &o) {
            if (!o.ok)
                return done(ctx.fail(QStringLiteral("no checkpoint was made: %1").arg(o.error)));
            Checkpoint made = o.checkpoint;
            QString pinError;
            if (pin && !checkpoints->setPinned(made.id, true, pinError))
                return done(ctx.fail(QStringLiteral("checkpoint %1 was made but not pinned: %2").arg(made.id, pinError)));
            made.pinned = pin;
            QStringList evicted;
            for (const Checkpoint &e : o.evicted)
                evicted << e.id;
            if (ctx.json) {
                QJsonObject out = checkpointJson(made);
                out.insert(QStringLiteral("not_kept"), QJsonArray::fromStringList(o.notes));
                out.insert(QStringLiteral("evicted"), QJsonArray::fromStringList(evicted));
                ctx.printJson(out);
            } else {
                ctx.print(QStringLiteral("checkpoint %1 of %2 is ready (%3 ms)%4%5")
                              .arg(made.id, made.sandboxId)
                              .arg(made.finishedAt - made.createdAt)
                              .arg(evicted.isEmpty() ? QString() : QStringLiteral("\nthe budget removed: ") + evicted.join(QStringLiteral(", ")),
                                   notesText(o.notes)));
            }
            done(0);
        });
    }
}

void restore(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 2 || !isWellFormedId(ctx.args.at(0), "sbx_") || !isWellFormedId(ctx.args.at(1), "ckp_"))
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox restore <sandbox id> <checkpoint id> [--end-running-commands]")));
    {
        RestoreRequest request;
        request.sandboxId = ctx.args.at(0);
        request.checkpointId = ctx.args.at(1);
        request.running = runningCommandsOf(ctx);
        services.checkpoints->restore(request, {}, [&ctx, done](const RestoreOutcome &o) {
            if (!o.ok)
                return done(ctx.fail(o.error));
            if (ctx.json)
                ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), ctx.args.at(0)},
                                          {QStringLiteral("checkpoint_id"), o.restored.id},
                                          {QStringLiteral("undo_checkpoint_id"), o.undo.id},
                                          {QStringLiteral("state"), QStringLiteral("restored")},
                                          {QStringLiteral("took_ms"), static_cast<double>(o.tookMs)}});
            else
                ctx.print(QStringLiteral("sandbox %1 is back at %2 (%3 ms); undo: chat2sbx sandbox restore %1 %4")
                              .arg(ctx.args.at(0), o.restored.id).arg(o.tookMs).arg(o.undo.id));
            done(0);
        });
    }
}

void fork(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    const bool fromSandbox = ctx.args.size() == 1 && isWellFormedId(ctx.args.first(), "sbx_");
    if (ctx.args.size() != 1 || (!fromSandbox && !isWellFormedId(ctx.args.first(), "ckp_")))
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox fork <checkpoint id | sandbox id> [--name TEXT] [--docker-images A,B] "
                                        "[--end-running-commands]")));
    const QStringList images = ctx.value(QStringLiteral("docker-images")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!images.isEmpty() && !fromSandbox)
        return done(ctx.usage(QStringLiteral("--docker-images goes with a sandbox id: a checkpoint keeps the images it was made with")));
    {
        ForkRequest request;
        (fromSandbox ? request.sandboxId : request.checkpointId) = ctx.args.first();
        request.name = ctx.value(QStringLiteral("name"));
        request.running = runningCommandsOf(ctx);
        request.dockerImages = images;
        services.checkpoints->fork(request, {}, [&ctx, done](const ForkOutcome &o) {
            if (!o.ok)
                return done(ctx.fail(o.error));
            if (ctx.json)
                ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), o.view.record.id},
                                          {QStringLiteral("sandbox_name"), sandboxShortName(o.view)},
                                          {QStringLiteral("forked_from"), QJsonObject{{QStringLiteral("sandbox_id"), o.checkpoint.sandboxId},
                                                                                      {QStringLiteral("checkpoint_id"), o.checkpoint.id}}},
                                          {QStringLiteral("took_ms"), static_cast<double>(o.tookMs)}});
            else
                ctx.print(QStringLiteral("sandbox %1 (%2) is a fork of %3 at %4 (%5 ms)")
                              .arg(o.view.record.id, sandboxShortName(o.view), o.checkpoint.sandboxId, o.checkpoint.id)
                              .arg(o.tookMs));
            done(0);
        });
    }
}

void uncheckpoint(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 1 || !isWellFormedId(ctx.args.first(), "ckp_"))
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox uncheckpoint <checkpoint id>")));
    {
        services.checkpoints->remove(ctx.args.first(), [&ctx, done](bool ok, const QString &error) {
            if (!ok)
                return done(ctx.fail(QStringLiteral("checkpoint %1 was not deleted: %2").arg(ctx.args.first(), error)));
            if (ctx.json)
                ctx.printJson(QJsonObject{{QStringLiteral("checkpoint_id"), ctx.args.first()}, {QStringLiteral("deleted"), true}});
            else
                ctx.print(QStringLiteral("checkpoint %1 deleted").arg(ctx.args.first()));
            done(0);
        });
    }
}

const QCommandLineOption kEndRunning(QStringLiteral("end-running-commands"),
                                     QStringLiteral("commands still running in the sandbox may end (its VM stops)"));

const bool registeredCheckpoint = registerCommand(
    {QStringLiteral("sandbox checkpoint"), QStringLiteral("sandbox checkpoint <id> [--label TEXT] [--pin] [--vm-only] [--keep-memory] [--docker-images A,B] [--end-running-commands]"),
     QStringLiteral("Save a sandbox as it is now (its disk and a scratch workspace)"), false, nullptr,
     {QCommandLineOption(QStringLiteral("label"), QStringLiteral("a few words to recognise it by"), QStringLiteral("text")),
      QCommandLineOption(QStringLiteral("pin"), QStringLiteral("never evicted by the checkpoint budget")),
      QCommandLineOption(QStringLiteral("vm-only"), QStringLiteral("a direct-mode sandbox: only the VM's side (its folder is never copied)")),
      QCommandLineOption(QStringLiteral("keep-memory"), QStringLiteral("a sandbox in Docker's cloud: its memory and processes too")),
      QCommandLineOption(QStringLiteral("docker-images"), QStringLiteral("the sandbox's own Docker images to keep too (docker save)"),
                         QStringLiteral("a,b")),
      kEndRunning},
     checkpoint});
const bool registeredRestore = registerCommand(
    {QStringLiteral("sandbox restore"), QStringLiteral("sandbox restore <id> <checkpoint id> [--end-running-commands]"),
     QStringLiteral("Take a sandbox back to one of its checkpoints (the present is checkpointed first)"), false, nullptr,
     {kEndRunning}, restore});
const bool registeredFork = registerCommand(
    {QStringLiteral("sandbox fork"),
     QStringLiteral("sandbox fork <checkpoint id | sandbox id> [--name TEXT] [--docker-images A,B] [--end-running-commands]"),
     QStringLiteral("Make a new sandbox from a checkpoint (or from one of the sandbox taken now)"), false, nullptr,
     {QCommandLineOption(QStringLiteral("name"), QStringLiteral("a few words to tell the fork apart"), QStringLiteral("text")),
      QCommandLineOption(QStringLiteral("docker-images"), QStringLiteral("with a sandbox id: its own Docker images the fork gets too"),
                         QStringLiteral("a,b")),
      kEndRunning},
     fork});
const bool registeredUncheckpoint = registerCommand(
    {QStringLiteral("sandbox uncheckpoint"), QStringLiteral("sandbox uncheckpoint <checkpoint id>"),
     QStringLiteral("Delete a checkpoint (its saved disk and workspace copy)"), false, nullptr, {}, uncheckpoint});

} // namespace
} // namespace chat2sbx::app
