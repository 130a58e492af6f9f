#include "Templates.h"
#include "FieldFaults.h"

#include "Args.h"
#include "Faults.h"
#include "FsOps.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>

#include <algorithm>
#include <cstdio>

namespace fakesbx {

bool parseImageRef(const QString &text, ImageRef *ref)
{
    static const QRegularExpression repoRe(
        QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*(?::[0-9]+)?(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*$"));
    static const QRegularExpression tagRe(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"));
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    const qsizetype slash = text.lastIndexOf(QLatin1Char('/'));
    ImageRef r;
    if (colon > slash) {
        r.repository = text.left(colon);
        r.tag = text.mid(colon + 1);
    } else {
        r.repository = text;
        r.tag = QStringLiteral("latest");
    }
    if (!repoRe.match(r.repository).hasMatch() || !tagRe.match(r.tag).hasMatch())
        return false;
    *ref = r;
    return true;
}

QString qualifiedRepository(const QString &repository)
{
    const qsizetype slash = repository.indexOf(QLatin1Char('/'));
    if (slash < 0)
        return QStringLiteral("docker.io/library/") + repository;
    const QString first = repository.left(slash);
    if (first.contains(QLatin1Char('.')) || first.contains(QLatin1Char(':')) || first == QLatin1String("localhost"))
        return repository;
    return QStringLiteral("docker.io/") + repository;
}

QString familiarRepository(const QString &repository)
{
    for (const QLatin1String prefix : {QLatin1String("docker.io/library/"), QLatin1String("docker.io/")}) {
        if (repository.startsWith(prefix))
            return repository.mid(prefix.size());
    }
    return repository;
}

namespace {

bool readTemplateFile(const Context &ctx, QList<ImageRef> *out, QString *error)
{
    QFile file(ctx.state.templatesFile());
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1").arg(file.fileName());
        return false;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll());
    if (!doc.isObject() || !doc.object().value(QStringLiteral("images")).isArray()) {
        *error = QStringLiteral("malformed %1").arg(file.fileName());
        return false;
    }
    const QJsonArray images = doc.object().value(QStringLiteral("images")).toArray();
    for (const QJsonValue &v : images) {
        const QJsonObject o = v.toObject();
        out->append({o.value(QStringLiteral("repository")).toString(), o.value(QStringLiteral("tag")).toString()});
    }
    return true;
}

bool writeTemplateFile(const Context &ctx, const QList<ImageRef> &images, QString *error)
{
    QJsonArray array;
    for (const ImageRef &r : images)
        array.append(QJsonObject{{QStringLiteral("repository"), r.repository}, {QStringLiteral("tag"), r.tag}});
    QSaveFile file(ctx.state.templatesFile());
    if (!file.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1").arg(file.fileName());
        return false;
    }
    file.write(QJsonDocument(QJsonObject{{QStringLiteral("images"), array}}).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        *error = QStringLiteral("cannot write %1").arg(file.fileName());
        return false;
    }
    return true;
}

int templateList(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {QStringLiteral("--json")}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    if (!parsed.has(QStringLiteral("--json")) || !parsed.positional.isEmpty())
        return usageError(QStringLiteral("usage: sbx template ls --json"));
    QList<ImageRef> images;
    QString error;
    if (!listTemplates(ctx, &images, &error))
        return fail(error);
    QJsonArray array;
    for (const ImageRef &r : images) {
        // The stock image's size, plus for a saved template what it captured (its HOME snapshot).
        qint64 size = 734003200;
        QDirIterator it(ctx.state.templateSnapshotDir(templateSnapshotId(r)) + QStringLiteral("/home"),
                        QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            size += it.fileInfo().size();
        }
        const QByteArray digest = QCryptographicHash::hash(r.text().toUtf8(), QCryptographicHash::Sha256).toHex();
        array.append(QJsonObject{{QStringLiteral("id"), QStringLiteral("sha256:") + QString::fromLatin1(digest)},
                                 {QStringLiteral("repository"), r.repository},
                                 {QStringLiteral("tag"), r.tag},
                                 {QStringLiteral("flavor"), QStringLiteral("shell")},
                                 {QStringLiteral("created_at"), QStringLiteral("2026-01-01T00:00:00Z")},
                                 {QStringLiteral("size"), static_cast<double>(size)}});
    }
    printOut(QJsonDocument(QJsonObject{{QStringLiteral("images"), array}}).toJson(QJsonDocument::Indented));
    return 0;
}

int templateSave(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    if (parsed.positional.size() != 2)
        return usageError(QStringLiteral("usage: sbx template save <sandbox> <repository:tag>"));
    const QString name = parsed.positional.at(0);
    ImageRef ref;
    if (!parseImageRef(parsed.positional.at(1), &ref))
        return fail(QStringLiteral("invalid template reference \"%1\"").arg(parsed.positional.at(1)));
    ref.repository = familiarRepository(ref.repository);

    wedgeOnSave(ctx);
    // "May take minutes for a multi-GB image": a save takes time in proportion to what it captures
    // (here HOME), FAKE_SBX_TEMPLATE_SAVE_MS_PER_GIB a GiB (realistic profile: 30 s). Before the lock,
    // as the real daemon does not stop other sandboxes' commands while it copies one disk.
    if (const long perGiB = profileDelayMs(ctx.faults, QStringLiteral("FAKE_SBX_TEMPLATE_SAVE_MS_PER_GIB"), 30000); perGiB > 0) {
        qint64 bytes = 0;
        QDirIterator it(ctx.state.sandboxDir(name) + QStringLiteral("/home"), QDir::Files | QDir::Hidden | QDir::NoSymLinks,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            bytes += it.fileInfo().size();
        }
        sleepMs(static_cast<long>(static_cast<double>(bytes) / double(1LL << 30) * double(perGiB)));
    }

    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    SandboxMeta meta;
    if (!ctx.state.readMeta(name, &meta))
        return fail(QStringLiteral("sandbox '%1' not found").arg(name));
    if (meta.status == QLatin1String("running")) {
        // The real CLI asks whether to stop the sandbox first; with no terminal the prompt cannot
        // be answered and the command fails (v0.45).
        std::fprintf(stderr, "Sandbox '%s' is running and must be stopped before it can be saved. Stop it now? [y/N] \n",
                     name.toLocal8Bit().constData());
        return fail(QStringLiteral("ERROR: cannot prompt for confirmation: stdin is not a terminal "
                                   "(stop the sandbox with 'sbx stop %1' first)").arg(name));
    }

    // The sandbox's own base image must still be there (sbx-releases#264: a 500 when it is gone).
    QString error;
    if (!meta.templateRef.isEmpty()) {
        ImageRef base;
        QString baseError;
        if (parseImageRef(meta.templateRef, &base) && !templateExists(ctx, base, &baseError))
            return fail(QStringLiteral("ERROR: 500 Internal Server Error: getting base image \"%1\": not found")
                            .arg(meta.templateRef));
    }
    const QString snapshot = ctx.state.templateSnapshotDir(templateSnapshotId(ref));
    if (!removeTree(snapshot, &error) ||
        !copyTreeContents(ctx.state.sandboxDir(name) + QStringLiteral("/home"), snapshot + QStringLiteral("/home"), &error))
        return fail(error);

    QList<ImageRef> images;
    if (!readTemplateFile(ctx, &images, &error))
        return fail(error);
    bool present = false;
    for (const ImageRef &r : images) {
        if (familiarRepository(r.repository) == ref.repository && r.tag == ref.tag)
            present = true;
    }
    if (!present)
        images.append(ref);
    if (!writeTemplateFile(ctx, images, &error))
        return fail(error);
    return 0;
}

// `sbx template rm <repo:tag>`: the saved template and its home snapshot go. FAKE_SBX_TEMPLATES
// entries and the stock shell image are not saved templates: they are "not found".
int templateRemove(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    if (parsed.positional.size() != 1)
        return usageError(QStringLiteral("usage: sbx template rm <repository:tag>"));
    ImageRef ref;
    if (!parseImageRef(parsed.positional.at(0), &ref))
        return fail(QStringLiteral("invalid template reference \"%1\"").arg(parsed.positional.at(0)));
    ref.repository = familiarRepository(ref.repository);

    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    QList<ImageRef> images;
    QString error;
    if (!readTemplateFile(ctx, &images, &error))
        return fail(error);
    const qsizetype before = images.size();
    images.erase(std::remove_if(images.begin(), images.end(),
                                [&ref](const ImageRef &r) {
                                    return familiarRepository(r.repository) == ref.repository && r.tag == ref.tag;
                                }),
                 images.end());
    if (images.size() == before)
        return fail(QStringLiteral("ERROR: template '%1:%2' not found").arg(ref.repository, ref.tag));
    if (!writeTemplateFile(ctx, images, &error) || !removeTree(ctx.state.templateSnapshotDir(templateSnapshotId(ref)), &error))
        return fail(error);
    return 0;
}

} // namespace

bool listTemplates(const Context &ctx, QList<ImageRef> *out, QString *error)
{
    QList<ImageRef> fromFile;
    if (!readTemplateFile(ctx, &fromFile, error))
        return false;
    for (ImageRef r : fromFile) {
        r.repository = qualifiedRepository(r.repository);
        out->append(r);
    }
    const QStringList extra = ctx.faults.list(QStringLiteral("FAKE_SBX_TEMPLATES"));
    for (const QString &text : extra) {
        ImageRef r;
        if (parseImageRef(text, &r))
            out->append(r);
    }
    return true;
}

bool templateExists(const Context &ctx, const ImageRef &ref, QString *error)
{
    QList<ImageRef> images;
    if (!listTemplates(ctx, &images, error))
        return false;
    const QString wanted = familiarRepository(ref.repository);
    if (wanted == QLatin1String("docker/sandbox-templates") && ref.tag == QLatin1String("shell"))
        return true;  // the stock shell template (pulled from Docker Hub by the real CLI)
    for (const ImageRef &r : images) {
        if (familiarRepository(r.repository) == wanted && r.tag == ref.tag)
            return true;
    }
    return false;
}

QString templateSnapshotId(const ImageRef &ref)
{
    QString id = familiarRepository(ref.repository) + QLatin1Char('_') + ref.tag;
    id.replace(QLatin1Char('/'), QLatin1Char('_')).replace(QLatin1Char(':'), QLatin1Char('_'));
    return id;
}

int cmdTemplate(const Context &ctx, const QStringList &args)
{
    if (!args.isEmpty() && args.first() == QLatin1String("ls"))
        return templateList(ctx, args.mid(1));
    if (!args.isEmpty() && args.first() == QLatin1String("save"))
        return templateSave(ctx, args.mid(1));
    if (!args.isEmpty() && args.first() == QLatin1String("rm"))
        return templateRemove(ctx, args.mid(1));
    return usageError(QStringLiteral("usage: sbx template ls --json | sbx template save <sandbox> <repository:tag> | "
                                     "sbx template rm <repository:tag>"));
}

} // namespace fakesbx
