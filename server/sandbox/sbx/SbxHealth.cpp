#include "sandbox/sbx/SbxHealth.h"

#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/sbx/SbxPreflight.h"

#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcSbxHealth, "chat2sbx.sbx")

SbxHealth::SbxHealth(SbxDriver &sbx, const QString &templateRef, QObject *parent)
    : QObject(parent), m_sbx(sbx), m_templateRef(templateRef)
{
    m_status.sbxPath = sbx.sbxPath();
    m_status.templateRef = templateRef;
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &SbxHealth::refresh);
    connect(&sbx, &SbxDriver::conditionChanged, this, &SbxHealth::driverConditionChanged);
}

SbxStatus SbxHealth::withDriverCondition(const SbxStatus &checked) const
{
    SbxStatus s = checked;
    if (!m_sbx.answering()) {
        s.state = SbxStatus::State::NotAnswering;
        s.problem = m_sbx.notAnsweringAdvice();
    } else if (m_sbx.updatePending()) {
        s.state = SbxStatus::State::UpdatePending;
        s.problem = SbxDriver::updatePendingAdvice();
    }
    return s;
}

void SbxHealth::publish(const SbxStatus &next)
{
    const bool first = !m_status.checked();
    const bool changedState = first || next.state != m_status.state || next.currentProblem() != m_status.currentProblem()
                              || next.cloudState != m_status.cloudState;
    m_status = next;
    if (changedState)
        log(m_status);
    emit changed();
}

void SbxHealth::driverConditionChanged()
{
    if (!m_running)
        return;
    // Before the first check has finished there is nothing to lay the condition over: published, it
    // would read as a settled answer without a version. The check under way publishes with it.
    if (!m_checked.checked() && m_checking)
        return;
    const SbxStatus next = withDriverCondition(m_checked);
    if (next.state == m_status.state && next.currentProblem() == m_status.currentProblem())
        return;
    publish(next);
    // sbx answers again: check it afresh (what the line held back may have changed things).
    if (m_sbx.answering() && !m_sbx.updatePending())
        refresh();
}

void SbxHealth::start()
{
    m_running = true;
    refresh();
}

void SbxHealth::stop()
{
    m_running = false;
    m_timer.stop();
    ++m_generation;
    m_checking = false;
    m_again = false;
}

void SbxHealth::refresh()
{
    if (!m_running)
        return;
    m_status.sbxPath = m_sbx.sbxPath();   // the user may have chosen another one
    if (m_checking) {
        m_again = true;
        return;
    }
    m_checking = true;
    m_timer.stop();
    QPointer<SbxHealth> self(this);
    const quint64 generation = m_generation;
    checkSbxStatus(m_sbx, m_templateRef, [self, generation](const SbxStatus &status) {
        if (!self || generation != self->m_generation)
            return;
        if (!self->m_cloudCheck)
            return self->finished(status);
        // A host with no local runtime may still serve from the cloud: asked whatever the local check said.
        self->m_sbx.cloudDiagnose([self, generation, local = SbxStatus(status)](const SbxResult &r) {
            if (!self || generation != self->m_generation)
                return;
            SbxStatus withCloud = local;
            withCloud.cloudState = r.ok ? QStringLiteral("ready") : QStringLiteral("not usable");
            if (!r.ok)   // sbx's own words: the check that failed and what it says to do
                withCloud.cloudDetail = QString::fromUtf8(r.out + r.err).simplified().left(500);
            if (!r.ok && withCloud.cloudDetail.isEmpty())
                withCloud.cloudDetail = r.error;
            self->finished(withCloud);
        });
    });
}

void SbxHealth::finished(const SbxStatus &fresh)
{
    m_checking = false;
    m_checked = fresh;
    // A sign-in or policy problem learned from a create stays until a create succeeds, unless the
    // check itself now names a problem (that one comes first).
    m_checked.createProblem = m_status.createProblem;
    publish(withDriverCondition(m_checked));
    if (std::exchange(m_again, false))
        return refresh();
    schedule();
}

void SbxHealth::schedule()
{
    if (m_running)
        m_timer.start(m_status.ready() ? kReadyIntervalMs : kFailingIntervalMs);
}

void SbxHealth::noteCreateResult(const QString &error)
{
    if (error.isEmpty()) {
        if (!m_status.createProblem.isEmpty()) {
            m_status.createProblem.clear();
            m_checked.createProblem.clear();
            log(m_status);
            emit changed();
        }
        return;
    }
    const QString advice = sbxPreflightAdvice(error);
    if (advice.isEmpty() || advice == m_status.createProblem)
        return;
    m_status.createProblem = advice;
    m_checked.createProblem = advice;
    log(m_status);
    emit changed();
    refresh();   // a missing sign-in shows in the check as well
}

void SbxHealth::log(const SbxStatus &s) const
{
    if (s.ready())
        qCInfo(lcSbxHealth).noquote() << s.summary();
    else
        qCWarning(lcSbxHealth).noquote() << (s.version.isEmpty() ? QStringLiteral("sbx: ") : QStringLiteral("sbx %1: ").arg(s.version))
                                                + s.currentProblem();
}

} // namespace chat2sbx
