#include "sandbox/sbx/SbxStatus.h"

#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/sbx/SbxPreflight.h"
#include "sandbox/sbx/SbxVersion.h"

#include <QPointer>

#include <memory>

namespace chat2sbx {
namespace {

QJsonValue knownJson(SbxStatus::Known k)
{
    return k == SbxStatus::Known::Unknown ? QJsonValue() : QJsonValue(k == SbxStatus::Known::Yes);
}

SbxStatus::Known knownFrom(const QJsonValue &v)
{
    return v.isBool() ? (v.toBool() ? SbxStatus::Known::Yes : SbxStatus::Known::No) : SbxStatus::Known::Unknown;
}

QString signInProblem(const QString &error)
{
    const QString advice = sbxPreflightAdvice(error);
    return advice.contains(QLatin1String("sbx login")) ? advice : QString();
}

// One check run. The driver is watched: a driver being destroyed finishes its running children, and
// their callbacks must not start the next step on it.
struct Check {
    QPointer<SbxDriver> sbx;
    SbxStatus status;
    std::function<void(const SbxStatus &)> done;

    void finish(SbxStatus::State state, const QString &problem = {})
    {
        status.state = state;
        status.problem = problem;
        done(status);
    }
};

void listTemplates(const std::shared_ptr<Check> &check)
{
    if (!check->sbx)
        return;
    check->sbx->templateList([check](const SbxResult &r, const QStringList &refs) {
        if (!r.ok) {
            const QString signIn = signInProblem(r.error);
            if (!signIn.isEmpty()) {
                check->status.signedIn = SbxStatus::Known::No;
                return check->finish(SbxStatus::State::NotSignedIn, signIn);
            }
            return check->finish(SbxStatus::State::Failed, QStringLiteral("sbx does not answer: %1").arg(r.error));
        }
        // `template ls` talks to the daemon: it fails without a sign-in.
        check->status.signedIn = SbxStatus::Known::Yes;
        if (!refs.contains(check->status.templateRef)) {
            check->status.templatePresent = SbxStatus::Known::No;
            return check->finish(SbxStatus::State::TemplateMissing,
                                 QStringLiteral("template missing: run `chat2sbx setup` (the sandbox template %1 is not in "
                                                "`sbx template ls`)").arg(check->status.templateRef));
        }
        check->status.templatePresent = SbxStatus::Known::Yes;
        check->finish(SbxStatus::State::Ready);
    });
}

void checkFloor(const std::shared_ptr<Check> &check, const QString &version)
{
    check->status.version = version;
    if (!sbxVersionSupported(version))
        return check->finish(SbxStatus::State::TooOld,
                             QStringLiteral("sbx %1 is too old: chat2sbx needs %2 or newer; update Docker Sandboxes, then run "
                                            "`chat2sbx setup`").arg(version, minimumSbxVersionText()));
    listTemplates(check);
}

} // namespace

QString SbxStatus::currentProblem() const
{
    if (!problem.isEmpty())
        return problem;
    return createProblem;
}

QString SbxStatus::stateName(State state)
{
    switch (state) {
    case State::Unchecked: return QStringLiteral("checking");
    case State::Ready: return QStringLiteral("ready");
    case State::NotInstalled: return QStringLiteral("not_installed");
    case State::TooOld: return QStringLiteral("too_old");
    case State::NotSignedIn: return QStringLiteral("not_signed_in");
    case State::TemplateMissing: return QStringLiteral("template_missing");
    case State::Failed: return QStringLiteral("failed");
    case State::NotAnswering: return QStringLiteral("not_answering");
    case State::UpdatePending: return QStringLiteral("update_pending");
    }
    return {};
}

QString SbxStatus::summary() const
{
    if (state == State::Unchecked)
        return QStringLiteral("checking sbx …");
    if (state == State::NotInstalled)
        return QStringLiteral("sbx not found (%1)").arg(sbxPath);
    QStringList parts;
    parts << QStringLiteral("sbx %1").arg(version.isEmpty() ? QStringLiteral("(version unknown)") : version);
    if (signedIn != Known::Unknown)
        parts << (signedIn == Known::Yes ? QStringLiteral("signed in") : QStringLiteral("not signed in"));
    if (templatePresent != Known::Unknown)
        parts << QStringLiteral("template %1 %2").arg(templateRef, templatePresent == Known::Yes ? QStringLiteral("present")
                                                                                                : QStringLiteral("missing"));
    return parts.join(QStringLiteral(", "));
}

QJsonObject SbxStatus::toJson(bool camelCase) const
{
    auto key = [camelCase](const char *snake, const char *camel) { return QString::fromLatin1(camelCase ? camel : snake); };
    const QString current = currentProblem();
    // Checks passed but the last create failed for a set-up reason they cannot see (network policy).
    const QString shownState = state == State::Ready && !createProblem.isEmpty() ? QStringLiteral("create_failed") : stateName(state);
    return QJsonObject{
        {key("state", "state"), shownState},
        {key("ready", "ready"), ready()},
        {key("path", "path"), sbxPath},
        {key("present", "present"), checked() ? QJsonValue(state != State::NotInstalled) : QJsonValue()},
        {key("version", "version"), version.isEmpty() ? QJsonValue() : QJsonValue(version)},
        {key("minimum_version", "minimumVersion"), minimumSbxVersionText()},
        {key("signed_in", "signedIn"), knownJson(signedIn)},
        {key("template", "template"), templateRef},
        {key("template_present", "templatePresent"), knownJson(templatePresent)},
        {key("problem", "problem"), current.isEmpty() ? QJsonValue() : QJsonValue(current)},
    };
}

SbxStatus SbxStatus::fromHealthJson(const QJsonObject &o)
{
    SbxStatus s;
    const QString state = o.value(QStringLiteral("state")).toString();
    for (State st : {State::Ready, State::NotInstalled, State::TooOld, State::NotSignedIn, State::TemplateMissing, State::Failed,
                     State::NotAnswering, State::UpdatePending})
        if (state == stateName(st))
            s.state = st;
    if (state == QLatin1String("create_failed"))
        s.state = State::Ready;
    s.sbxPath = o.value(QStringLiteral("path")).toString();
    s.version = o.value(QStringLiteral("version")).toString();
    s.signedIn = knownFrom(o.value(QStringLiteral("signedIn")));
    s.templateRef = o.value(QStringLiteral("template")).toString();
    s.templatePresent = knownFrom(o.value(QStringLiteral("templatePresent")));
    const QString problem = o.value(QStringLiteral("problem")).toString();
    // The server sends the current problem only; keep it where ready() sees it.
    if (s.state == State::Ready)
        s.createProblem = problem;
    else
        s.problem = problem;
    return s;
}

void checkSbxStatus(SbxDriver &sbx, const QString &templateRef, std::function<void(const SbxStatus &)> done)
{
    auto check = std::make_shared<Check>(Check{QPointer<SbxDriver>(&sbx), SbxStatus{}, std::move(done)});
    check->status.sbxPath = sbx.sbxPath();
    check->status.templateRef = templateRef;
    sbx.versionJson([check](const SbxResult &r) {
        if (r.ok) {
            const QString version = parseSbxVersionJson(r.out);
            if (!version.isEmpty())
                return checkFloor(check, version);
        }
        // `--json` exists since v0.42 (and fails before a sign-in on some versions): ask the plain form.
        if (!check->sbx)
            return;
        check->sbx->version([check, jsonError = r.error](const SbxResult &plain) {
            // A command that ran into its deadline says sbx is there but does not answer.
            if (plain.timedOut || plain.notRun)
                return check->finish(SbxStatus::State::Failed, QStringLiteral("sbx does not answer: %1").arg(plain.error));
            if (!plain.ok)
                return check->finish(SbxStatus::State::NotInstalled,
                                     QStringLiteral("sbx is not installed or not working (%1): install Docker Sandboxes or "
                                                    "point CHAT2SBX_SBX at it, then run `chat2sbx setup`").arg(plain.error));
            const QString version = findSbxVersion(QString::fromUtf8(plain.out));
            if (!version.isEmpty() && !sbxVersionSupported(version))
                return checkFloor(check, version);
            check->status.version = version;
            const QString signIn = signInProblem(jsonError);
            if (!signIn.isEmpty()) {
                check->status.signedIn = SbxStatus::Known::No;
                return check->finish(SbxStatus::State::NotSignedIn, signIn);
            }
            listTemplates(check);
        });
    });
}

} // namespace chat2sbx
