// `sbx --cloud template save|ls|rm|inspect` (reference/sbx-cloud.md §2.11, §7): the cloud's own
// template registry under $FAKE_SBX_STATE/cloud/templates/<tmpl_id>/, apart from the local one. A save
// snapshots a *running* cloud sandbox's HOME and leaves it running; `--capture-mode all` also records
// its processes, which a sandbox created from the template starts again. See README.md, "Cloud
// templates".
#pragma once

#include "Commands.h"

#include <QList>
#include <QStringList>

namespace fakesbx {

// The arguments after `template` (the sub-verb first).
int cmdCloudTemplate(const Context &ctx, const QStringList &args);

struct CapturedProcess
{
    QStringList argv;
    QString cwd;
};

struct CloudTemplateView
{
    QString id;            // tmpl_…
    QString name;
    QString captureMode;   // disk | all
    int cpus = 0;
    int memoryMib = 0;
    QString home;          // the HOME snapshot
    QString fromHome;      // the HOME the snapshot was taken of (paths under it move to the new HOME)
    QList<CapturedProcess> processes;   // capture mode all only
};

// By name or tmpl_ id; false when the registry has no such template.
bool cloudTemplateFind(const Context &ctx, const QString &ref, CloudTemplateView *out);

// Starts the template's captured processes again in the cloud sandbox `id` (whose HOME is `home`),
// detached, through this binary's own `--cloud exec`.
void cloudTemplateResume(const Context &ctx, const CloudTemplateView &tmpl, const QString &id, const QString &home);

} // namespace fakesbx
