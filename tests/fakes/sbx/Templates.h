// Image references and the template store: $FAKE_SBX_STATE/templates.json
// ({"images":[{"repository","tag"}]}) plus FAKE_SBX_TEMPLATES, and per-template home snapshots.
#pragma once

#include "Commands.h"

#include <QList>
#include <QString>

namespace fakesbx {

struct ImageRef
{
    QString repository;
    QString tag;
    QString text() const { return repository + QLatin1Char(':') + tag; }
};

// "repo[:tag]" (tag defaults to "latest"); false when malformed.
bool parseImageRef(const QString &text, ImageRef *ref);
// Docker's normalization: "x" -> "docker.io/library/x", "org/x" -> "docker.io/org/x".
QString qualifiedRepository(const QString &repository);
// The inverse: strips "docker.io/library/" and "docker.io/".
QString familiarRepository(const QString &repository);

// Everything `template ls` lists (file entries qualified, FAKE_SBX_TEMPLATES entries verbatim).
bool listTemplates(const Context &ctx, QList<ImageRef> *out, QString *error);
// true when `ref` is among listTemplates (compared in familiar form).
bool templateExists(const Context &ctx, const ImageRef &ref, QString *error);
// Directory holding the saved home/ of a template saved with `template save`.
QString templateSnapshotId(const ImageRef &ref);

} // namespace fakesbx
