// The first-run guide's Prepare over a real in-process Controller and the fake sbx with no template:
// the steps come in live and the template ends up saved; a failing step, Cancel and a quit half-way
// each leave no builder sandbox behind (a builder left by a quit goes at the next run's start); the
// guide leads while the template is missing and says Done after.
#include "SandboxHarness.h"
#include "TestSupport.h"
#include "tray_support.h"

#include "firstrun/FirstRunSection.h"
#include "popup/PopupWindow.h"
#include "bindings/ServiceModels.h"
#include "runtime/Controller.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

// The builder sandboxes the fake sbx holds now (sbx ls).
QStringList builders(const TestEnvironment &env)
{
    QStringList names;
    const CliResult ls = runFakeSbx(env, {QStringLiteral("ls"), QStringLiteral("--json")});
    for (const QJsonValue &v : QJsonDocument::fromJson(ls.out).object().value(QStringLiteral("sandboxes")).toArray()) {
        const QString name = v.toObject().value(QStringLiteral("name")).toString();
        if (name.startsWith(QLatin1String("chat2sbx-setup-")))
            names << name;
    }
    return names;
}

// The fake sbx's fault file (tests/fakes/sbx/README.md): it wins over the environment.
bool setFaults(const TestEnvironment &env, const QStringList &lines)
{
    QFile f(env.sbxState() + QStringLiteral("/faults.env"));
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(lines.join(QLatin1Char('\n')).toUtf8() + '\n') >= 0;
}

struct PrepareSession {
    explicit PrepareSession(TestEnvironment &e) : env(e)
    {
        pointFakeSbxAt(env, false);   // no template: Prepare has work to do
        controller = std::make_unique<Controller>(env.config());
        models = ui::makeServiceModels(*controller);
        popup = std::make_unique<ui::PopupWindow>(*models.approvals, *models.sandboxes, *models.status);
        guide = &popup->firstRun();
    }
    ~PrepareSession()
    {
        popup.reset();
        if (controller->state() != Controller::State::Stopped) {
            QSignalSpy stopped(controller.get(), &Controller::stopped);
            controller->stop();
            stopped.wait(15000);
        }
    }
    bool start(QString &error)
    {
        QSignalSpy started(controller.get(), &Controller::started);
        controller->start();
        if (!started.wait(30000)) {
            error = QStringLiteral("the controller did not start");
            return false;
        }
        popup->showNear({});
        return true;
    }
    QString stepTitle(const QString &step) const
    {
        QWidget *row = guide->findChild<QWidget *>(QStringLiteral("step:") + step);
        QLabel *title = row ? row->findChild<QLabel *>(QStringLiteral("stepTitle")) : nullptr;
        return title ? title->text() : QString();
    }
    QPushButton *prepareButton() const { return guide->findChild<QPushButton *>(QStringLiteral("prepare")); }

    TestEnvironment &env;
    std::unique_ptr<Controller> controller;
    ui::ServiceModels models;
    std::unique_ptr<ui::PopupWindow> popup;
    ui::FirstRunSection *guide = nullptr;
};

} // namespace

class TestTrayPrepare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY2(!fakeSbxPath().isEmpty(), "CHAT2SBX_FAKE_SBX is not set"); }

    void prepareShowsItsStepsAndSavesTheTemplate()
    {
        TestEnvironment env;
        PrepareSession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(s.prepareButton(), scaled(20000));
        QVERIFY(s.guide->isVisible());
        // The sbx checks report one by one: under load the version may come after the template's state.
        QTRY_VERIFY2_WITH_TIMEOUT(s.stepTitle(QStringLiteral("sbx")).startsWith(QStringLiteral("✓")),
                                  qPrintable(s.stepTitle(QStringLiteral("sbx"))), scaled(20000));
        saveScreenshot(*s.popup, QStringLiteral("tray_first_run_template_missing"));
        QTest::mouseClick(s.prepareButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->prepareLines().join(QLatin1Char('\n')).contains(QStringLiteral("[3/7]")), scaled(30000));
        QTRY_VERIFY_WITH_TIMEOUT(!s.guide->preparing(), scaled(120000));
        QVERIFY2(s.guide->result().contains(QStringLiteral("setup complete")), qPrintable(s.guide->result()));
        const QString lines = s.guide->prepareLines().join(QLatin1Char('\n'));
        for (const char *step : {"[1/7]", "[2/7]", "[4/7]", "[5/7]", "[6/7]", "[7/7]"})
            QVERIFY2(lines.contains(QLatin1String(step)), qPrintable(lines));
        QVERIFY2(builders(env).isEmpty(), qPrintable(builders(env).join(QLatin1Char(' '))));
        QTRY_VERIFY_WITH_TIMEOUT(s.stepTitle(QStringLiteral("template")).startsWith(QStringLiteral("✓")), scaled(30000));
        s.popup->fitToContent();
        saveScreenshot(*s.popup, QStringLiteral("tray_first_run_prepared"));
    }

    void aFailingStepRemovesTheBuilder()
    {
        TestEnvironment env;
        PrepareSession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QVERIFY(setFaults(env, {QStringLiteral("FAKE_SBX_FAIL_STOP=sandbox could not be stopped (injected)")}));
        QTRY_VERIFY_WITH_TIMEOUT(s.prepareButton(), scaled(20000));
        QTest::mouseClick(s.prepareButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!s.guide->preparing(), scaled(120000));
        QVERIFY2(s.guide->result().contains(QStringLiteral("stopping the builder failed")), qPrintable(s.guide->result()));
        QVERIFY2(s.guide->prepareLines().join(QLatin1Char('\n')).contains(QStringLiteral("removing the builder")),
                 qPrintable(s.guide->prepareLines().join(QLatin1Char('\n'))));
        QVERIFY2(builders(env).isEmpty(), qPrintable(builders(env).join(QLatin1Char(' '))));
        QVERIFY(s.prepareButton() && s.prepareButton()->isEnabled());   // it can be tried again
        s.popup->fitToContent();
        saveScreenshot(*s.popup, QStringLiteral("tray_first_run_prepare_failed"));
    }

    void cancelRemovesTheBuilder()
    {
        TestEnvironment env;
        PrepareSession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QVERIFY(setFaults(env, {QStringLiteral("FAKE_SBX_SLOW_EXEC=1500")}));
        QTRY_VERIFY_WITH_TIMEOUT(s.prepareButton(), scaled(20000));
        QTest::mouseClick(s.prepareButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->prepareLines().join(QLatin1Char('\n')).contains(QStringLiteral("[4/7]")), scaled(60000));
        auto *cancel = s.guide->findChild<QPushButton *>(QStringLiteral("cancelPrepare"));
        QVERIFY(cancel && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!s.guide->preparing(), scaled(60000));
        QVERIFY2(s.guide->result().contains(QStringLiteral("cancelled")), qPrintable(s.guide->result()));
        QVERIFY2(builders(env).isEmpty(), qPrintable(builders(env).join(QLatin1Char(' '))));
    }

    void aBuilderLeftByAQuitGoesAtTheNextRun()
    {
        TestEnvironment env;
        {
            PrepareSession s(env);
            QString error;
            QVERIFY2(s.start(error), qPrintable(error));
            QVERIFY(setFaults(env, {QStringLiteral("FAKE_SBX_SLOW_EXEC=20000")}));
            QTRY_VERIFY_WITH_TIMEOUT(s.prepareButton(), scaled(20000));
            QTest::mouseClick(s.prepareButton(), Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(s.guide->prepareLines().join(QLatin1Char('\n')).contains(QStringLiteral("[4/7]")), scaled(60000));
        }   // the app quits half-way: its builder stays in sbx
        QCOMPARE(builders(env).size(), 1);
        QVERIFY(setFaults(env, {}));
        PrepareSession again(env);
        QString error;
        QVERIFY2(again.start(error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(again.prepareButton(), scaled(20000));
        QTest::mouseClick(again.prepareButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!again.guide->preparing(), scaled(120000));
        QVERIFY2(again.guide->result().contains(QStringLiteral("setup complete")), qPrintable(again.guide->result()));
        QVERIFY2(again.guide->prepareLines().join(QLatin1Char('\n')).contains(QStringLiteral("left by a setup that did not finish")),
                 qPrintable(again.guide->prepareLines().join(QLatin1Char('\n'))));
        QVERIFY2(builders(env).isEmpty(), qPrintable(builders(env).join(QLatin1Char(' '))));
    }
};

QTEST_MAIN(TestTrayPrepare)
#include "tst_tray_prepare.moc"
