#include "sandbox/setup/TemplateBuilder.h"

#include "core/Ids.h"
#include "sandbox/channel/SandboxChannel.h"
#include "sandbox/sbx/InVmScript.h"
#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/sbx/SbxPreflight.h"
#include "sandbox/sbx/SbxVersion.h"
#include "state/Database.h"
#include "state/WarmSandboxRepository.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

namespace chat2sbx {
namespace {

// Builder sandboxes are named so; one that outlived its run is removed by the next run.
constexpr char kBuilderPrefix[] = "chat2sbx-setup-";

} // namespace

class TemplateBuilder::Steps {
public:
    explicit Steps(const Config &config) : m_config(config), m_sbx(config.sbxPath, config.sbxEnv), m_ref(config.templateRef())
    {
        m_ticker.setInterval(15000);
        QObject::connect(&m_ticker, &QTimer::timeout, [this] {
            say(QStringLiteral("      … still working (%1 s)").arg(m_step.elapsed() / 1000));
        });
    }

    void run(Output output, Done done)
    {
        m_output = std::move(output);
        m_done = std::move(done);
        m_total.start();
        checkVersion();
    }

    QTimer m_ticker;
    bool m_cancelled = false;

private:
    void say(const QString &line)
    {
        if (m_output)
            m_output(line);
    }

    static constexpr int kSteps = 7;

    void step(int n, const QString &what)
    {
        m_step.start();
        m_ticker.start();
        say(QStringLiteral("[%1/%2] %3 …").arg(n).arg(kSteps).arg(what));
    }
    void done(const QString &detail)
    {
        m_ticker.stop();
        say(QStringLiteral("      %1 (%2 s)").arg(detail).arg(m_step.elapsed() / 1000.0, 0, 'f', 1));
    }
    void finish(int code, const QString &message)
    {
        m_ticker.stop();
        if (m_done)
            std::exchange(m_done, nullptr)(code == 0, message);
    }
    // A failed sbx command: the exact command to run when sign-in or policy is missing, else its error.
    static QString explain(const QString &error)
    {
        const QString advice = sbxPreflightAdvice(error);
        return advice.isEmpty() ? error : advice + QStringLiteral(" (") + error + QLatin1Char(')');
    }
    // Cancelled: what runs now finishes (an sbx command is not cut off half-way), then the run stops
    // here, the builder removed. True when it stopped.
    bool stoppedByCancel(bool builderExists)
    {
        if (!m_cancelled)
            return false;
        const QString message = QStringLiteral("cancelled: the template %1 was not built").arg(m_ref);
        if (builderExists)
            abortWithBuilder(message);
        else
            finish(1, message);
        return true;
    }
    // A failure after the builder exists: remove it, then fail.
    void abortWithBuilder(const QString &message)
    {
        say(QStringLiteral("      failed; removing the builder sandbox"));
        m_sbx.remove(m_builder, [this, message](const SbxResult &r) {
            if (!r.ok && !r.error.contains(QLatin1String("not found")))
                say(QStringLiteral("      warning: %1 (remove it with `sbx rm --force %2`)").arg(r.error, m_builder));
            QDir(m_workdir).removeRecursively();
            finish(1, message);
        });
    }

    void checkVersion()
    {
        step(1, QStringLiteral("Checking sbx (%1), needs %2 or newer").arg(m_config.sbxPath, minimumSbxVersionText()));
        m_sbx.versionJson([this](const SbxResult &r) {
            if (r.ok) {
                const QString version = parseSbxVersionJson(r.out);
                if (version.isEmpty())
                    return finish(1, QStringLiteral("`sbx version --json` did not report a version; update Docker Sandboxes to %1 "
                                                    "or newer").arg(minimumSbxVersionText()));
                return checkVersionFloor(version);
            }
            // `--json` exists since v0.42: ask the plain form which version this is.
            m_sbx.version([this, jsonError = r.error](const SbxResult &plain) {
                if (!plain.ok)
                    return finish(1, QStringLiteral("sbx is not installed or not working (%1). Install Docker Sandboxes "
                                                    "(macOS 14+ on Apple silicon, Windows 11, or Ubuntu 24.04+ with KVM: the "
                                                    "docker-sbx package), or point CHAT2SBX_SBX at it, then run setup again")
                                            .arg(plain.error));
                const QString version = findSbxVersion(QString::fromUtf8(plain.out));
                if (version.isEmpty() || sbxVersionSupported(version))
                    return finish(1, QStringLiteral("`sbx version --json` failed: %1").arg(explain(jsonError)));
                checkVersionFloor(version);
            });
        });
    }

    void checkVersionFloor(const QString &version)
    {
        if (stoppedByCancel(false))
            return;
        if (!sbxVersionSupported(version))
            return finish(1, QStringLiteral("sbx %1 is too old: chat2sbx needs %2 or newer (clone mode, exec and sandbox names "
                                            "changed before it). Update Docker Sandboxes, then run setup again")
                                 .arg(version, minimumSbxVersionText()));
        done(QStringLiteral("found: sbx %1").arg(version));
        checkTemplate();
    }

    void checkTemplate()
    {
        step(2, QStringLiteral("Looking for the template %1 (this also checks the sign-in)").arg(m_ref));
        m_sbx.templateList([this](const SbxResult &r, const QStringList &refs) {
            if (stoppedByCancel(false))
                return;
            if (!r.ok)
                return finish(1, explain(r.error));
            if (refs.contains(m_ref)) {
                done(QStringLiteral("present"));
                return finish(0, QStringLiteral("setup complete: the template %1 is ready (nothing to do)").arg(m_ref));
            }
            done(QStringLiteral("missing, building it"));
            removeLeftoverBuilders();
        });
    }

    // A run cut short by a quit or a crash left its builder: it goes before a new one is made.
    void removeLeftoverBuilders()
    {
        m_sbx.list([this](const SbxResult &r, const QList<SbxRuntimeInfo> &runtimes) {
            QStringList leftovers;
            if (r.ok)
                for (const SbxRuntimeInfo &info : runtimes)
                    if (info.name.startsWith(QLatin1String(kBuilderPrefix)))
                        leftovers << info.name;
            removeNext(leftovers);
        });
    }
    void removeNext(QStringList leftovers)
    {
        if (stoppedByCancel(false))
            return;
        if (leftovers.isEmpty())
            return createBuilder();
        const QString name = leftovers.takeFirst();
        say(QStringLiteral("      removing %1, left by a setup that did not finish").arg(name));
        m_sbx.remove(name, [this, leftovers](const SbxResult &) { removeNext(leftovers); });
    }

    void createBuilder()
    {
        m_builder = QLatin1String(kBuilderPrefix) + randomHex(6);
        m_workdir = m_config.stateDir + QStringLiteral("/setup-workspace");
        QDir().mkpath(m_workdir);
        QFile::setPermissions(m_workdir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        step(3, QStringLiteral("Creating a builder sandbox from the stock shell template (the first image pull may take minutes)"));
        SbxCreateSpec spec;
        spec.runtimeName = m_builder;
        spec.workspaceRoot = m_workdir;   // templateRef empty: the stock shell template
        m_sbx.create(spec, [this](const SbxResult &r) {
            if (stoppedByCancel(true))
                return;
            if (!r.ok)
                return abortWithBuilder(explain(r.error));
            done(QStringLiteral("created %1").arg(m_builder));
            provision();
        });
    }

    void provision()
    {
        step(4, QStringLiteral("Installing and verifying what the helper needs: bash, coreutils, util-linux, grep, findutils (as root)"));
        SbxExecSpec spec;
        spec.runtimeName = m_builder;
        spec.asRoot = true;
        // vm/provision.sh: what the in-sandbox helper needs (the exact programs are
        // SandboxChannel::helperCommands()), installed with the distribution's package manager when
        // missing, then verified.
        spec.command = QStringList{QStringLiteral("sh"), QStringLiteral("-c"), inVmScript(QStringLiteral("provision.sh")),
                                   QStringLiteral("chat2sbx-provision")}
                       + SandboxChannel::helperCommands();
        m_sbx.exec(spec, [this](const SbxResult &r) {
            if (stoppedByCancel(true))
                return;
            if (!r.ok)
                return abortWithBuilder(QStringLiteral("provisioning the builder failed: %1").arg(explain(r.error)));
            done(QString::fromUtf8(r.out).trimmed().section(QLatin1Char('\n'), -1));
            stopBuilder();
        }, 600000);
    }

    // sbx-contract.md: `template save` needs a stopped sandbox; with no terminal its prompt fails.
    void stopBuilder()
    {
        step(5, QStringLiteral("Stopping the builder sandbox (a template is saved from a stopped sandbox)"));
        m_sbx.stop(m_builder, [this](const SbxResult &r) {
            if (stoppedByCancel(true))
                return;
            if (!r.ok)
                return abortWithBuilder(QStringLiteral("stopping the builder failed: %1").arg(r.error));
            done(QStringLiteral("stopped"));
            save();
        });
    }

    void save()
    {
        step(6, QStringLiteral("Saving the template %1 (may take minutes)").arg(m_ref));
        m_sbx.templateSave(m_builder, m_ref, [this](const SbxResult &r) {
            if (!r.ok)
                return abortWithBuilder(explain(r.error));
            done(QStringLiteral("saved"));
            retireWarmSandboxes();
            removeBuilder();
        });
    }

    // Warm sandboxes made from the template before it was rebuilt must not be handed over: the
    // server's pool removes the rows marked stale here and makes new ones from the saved template.
    void retireWarmSandboxes()
    {
        if (!QFileInfo::exists(m_config.databasePath))
            return;
        Database db;
        QString error;
        if (!db.open(m_config.databasePath, error) || !WarmSandboxRepository(db).markAllStale(error))
            say(QStringLiteral("      note: warm sandboxes could not be marked for replacement (%1); "
                                       "restart chat2sbx serve to replace them").arg(error));
    }

    void removeBuilder()
    {
        step(7, QStringLiteral("Removing the builder sandbox"));
        m_sbx.remove(m_builder, [this](const SbxResult &r) {
            if (!r.ok)
                say(QStringLiteral("      warning: %1 (remove it with `sbx rm --force %2`)").arg(r.error, m_builder));
            else
                done(QStringLiteral("removed"));
            QDir(m_workdir).removeRecursively();
            m_sbx.templateList([this](const SbxResult &lr, const QStringList &refs) {
                if (!lr.ok || !refs.contains(m_ref))
                    return finish(1, QStringLiteral("the template %1 was saved but `sbx template ls` does not list it").arg(m_ref));
                finish(0, QStringLiteral("setup complete: the template %1 is ready (%2 s)")
                              .arg(m_ref).arg(m_total.elapsed() / 1000.0, 0, 'f', 1));
            });
        });
    }


    Config m_config;
    SbxDriver m_sbx;
    QString m_ref;
    QString m_builder;
    QString m_workdir;
    QElapsedTimer m_total;
    QElapsedTimer m_step;
    Output m_output;
    Done m_done;
};

TemplateBuilder::TemplateBuilder(const Config &config) : m_steps(std::make_unique<Steps>(config)) {}

TemplateBuilder::~TemplateBuilder() = default;

void TemplateBuilder::cancel()
{
    m_steps->m_cancelled = true;
}

void TemplateBuilder::setProgressIntervalMs(int ms)
{
    m_steps->m_ticker.setInterval(ms);
}

void TemplateBuilder::run(Output output, Done done)
{
    m_steps->run(std::move(output), std::move(done));
}

} // namespace chat2sbx
