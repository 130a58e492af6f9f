// SbxDriver's cloud verbs: `sbx --cloud …` (reference/sbx-cloud.md).
#include "sandbox/sbx/SbxDriver.h"

namespace chat2sbx {

void SbxDriver::cloudCreate(const SbxCloudCreateSpec &spec, std::function<void(const SbxResult &, const QString &)> done)
{
    run(QStringLiteral("--cloud create"), sbxCloudCreateArgs(spec), m_timeouts.createMs, {}, [done](const SbxResult &r) {
        SbxResult result = r;
        const QString id = parseSbxCloudId(r.out, r.err);
        if (r.ok && id.isEmpty()) {
            result.ok = false;
            result.error = QStringLiteral("sbx --cloud create printed no sandbox id: %1")
                               .arg(QString::fromUtf8(r.out + r.err).simplified().left(300));
        }
        done(result, id);
    });
}

void SbxDriver::cloudResume(const QString &name, std::function<void(const SbxResult &, const QString &)> done)
{
    run(QStringLiteral("--cloud run --detached"),
        {QStringLiteral("--cloud"), QStringLiteral("run"), QStringLiteral("--detached"), QStringLiteral("--name"), name,
         QStringLiteral("shell")},
        m_timeouts.createMs, {}, [done](const SbxResult &r) { done(r, parseSbxCloudId(r.out, r.err)); });
}

void SbxDriver::cloudList(std::function<void(const SbxResult &, const QList<SbxCloudInfo> &)> done)
{
    run(QStringLiteral("--cloud ls"), {QStringLiteral("--cloud"), QStringLiteral("ls"), QStringLiteral("--json")}, m_timeouts.otherMs, {},
        [done](const SbxResult &r) {
            QList<SbxCloudInfo> items;
            SbxResult result = r;
            if (r.ok && !parseSbxCloudList(r.out, items)) {
                result.ok = false;
                result.error = QStringLiteral("sbx --cloud ls --json printed what chat2sbx cannot read: %1")
                                   .arg(QString::fromUtf8(r.out).simplified().left(300));
            }
            done(result, items);
        });
}

void SbxDriver::cloudStop(const QString &id, Callback done)
{
    run(QStringLiteral("--cloud stop"), {QStringLiteral("--cloud"), QStringLiteral("stop"), id}, m_timeouts.otherMs, {}, std::move(done));
}

void SbxDriver::cloudRemove(const QString &id, Callback done)
{
    // rm waits up to 60 s for the deletion, then exits 0 with it still under way (§2.8).
    run(QStringLiteral("--cloud rm"), {QStringLiteral("--cloud"), QStringLiteral("rm"), QStringLiteral("--force"), id},
        qMax(m_timeouts.otherMs, 90000), {}, std::move(done));
}

void SbxDriver::cloudTtl(const QString &id, qint64 extendSeconds, std::function<void(const SbxResult &, const SbxCloudTtl &)> done)
{
    QStringList args{QStringLiteral("--cloud"), QStringLiteral("ttl")};
    if (extendSeconds > 0)
        args << QStringLiteral("+%1s").arg(extendSeconds);
    args << id << QStringLiteral("--json");
    run(QStringLiteral("--cloud ttl"), args, m_timeouts.otherMs, {}, [done](const SbxResult &r) {
        SbxCloudTtl ttl;
        if (r.ok)
            parseSbxCloudTtl(r.out, ttl);
        done(r, ttl);
    });
}

void SbxDriver::cloudPublish(const QString &id, int port, std::function<void(const SbxResult &, const QString &)> done)
{
    run(QStringLiteral("--cloud ports --publish"),
        {QStringLiteral("--cloud"), QStringLiteral("ports"), id, QStringLiteral("--publish"), QStringLiteral("%1/tcp").arg(port)},
        m_timeouts.otherMs, {}, [done](const SbxResult &r) {
            SbxResult result = r;
            const QString url = parseSbxCloudUrl(r.out + '\n' + r.err);
            if (r.ok && url.isEmpty()) {
                result.ok = false;
                result.error = QStringLiteral("sbx --cloud ports --publish printed no URL: %1")
                                   .arg(QString::fromUtf8(r.out + r.err).simplified().left(300));
            }
            done(result, url);
        });
}

void SbxDriver::cloudUnpublish(const QString &id, int port, Callback done)
{
    run(QStringLiteral("--cloud ports --unpublish"),
        {QStringLiteral("--cloud"), QStringLiteral("ports"), id, QStringLiteral("--unpublish"), QStringLiteral("%1/tcp").arg(port)},
        m_timeouts.otherMs, {}, std::move(done));
}

void SbxDriver::cloudCopy(const QString &from, const QString &to, Callback done)
{
    run(QStringLiteral("--cloud cp"), {QStringLiteral("--cloud"), QStringLiteral("cp"), from, to}, qMax(m_timeouts.otherMs, 600000), {},
        std::move(done));
}

void SbxDriver::move(const SbxMoveSpec &spec, std::function<void(const SbxResult &, const QStringList &)> done)
{
    run(QStringLiteral("move"), sbxMoveArgs(spec), kMoveTimeoutMs, {},
        [done](const SbxResult &r) { done(r, parseSbxWarnings(r.out, r.err)); });
}

void SbxDriver::cloudTemplateSave(const QString &id, const QString &name, bool withMemory, Callback done)
{
    run(QStringLiteral("--cloud template save"),
        {QStringLiteral("--cloud"), QStringLiteral("template"), QStringLiteral("save"), id, name, QStringLiteral("--capture-mode"),
         withMemory ? QStringLiteral("all") : QStringLiteral("disk")},
        qMax(m_timeouts.templateSaveMs, 1800000), {}, std::move(done));
}

void SbxDriver::cloudTemplateRemove(const QString &name, Callback done)
{
    run(QStringLiteral("--cloud template rm"), {QStringLiteral("--cloud"), QStringLiteral("template"), QStringLiteral("rm"), name,
                                                QStringLiteral("--force")},
        qMax(m_timeouts.otherMs, 90000), {}, std::move(done));
}

void SbxDriver::cloudTemplateList(std::function<void(const SbxResult &, const QList<SbxCloudTemplate> &)> done)
{
    run(QStringLiteral("--cloud template ls"), {QStringLiteral("--cloud"), QStringLiteral("template"), QStringLiteral("ls"), QStringLiteral("--json")},
        m_timeouts.otherMs, {}, [done](const SbxResult &r) {
            QList<SbxCloudTemplate> items;
            SbxResult result = r;
            if (r.ok && !parseSbxCloudTemplates(r.out, items)) {
                result.ok = false;
                result.error = QStringLiteral("sbx --cloud template ls --json printed what chat2sbx cannot read: %1")
                                   .arg(QString::fromUtf8(r.out).simplified().left(300));
            }
            done(result, items);
        });
}

void SbxDriver::cloudDiagnose(Callback done)
{
    run(QStringLiteral("--cloud diagnose"), {QStringLiteral("--cloud"), QStringLiteral("diagnose")}, m_timeouts.otherMs, {},
        std::move(done));
}

} // namespace chat2sbx
