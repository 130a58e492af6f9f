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
#include "sandbox/sbx/SbxDriver.h"
#include "tunnel/TunnelSupervisor.h"
#include "workspace/ApprovalService.h"
#include "config/Config.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
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
        stopController(*controller);
    }
    bool start(QString &error)
    {
        if (!startController(*controller, error))
            return false;
        popup->showNear({});
        return true;
    }
    QString stepTitle(const QString &step) const
    {
        QWidget *row = guide->findChild<QWidget *>(QStringLiteral("step:") + step);
        QLabel *title = row ? row->findChild<QLabel *>(QStringLiteral("stepTitle")) : nullptr;
        return title ? title->text() : QString();
    }
    // The one on screen, as a person could click it: a rebuilt guide's old rows stay (hidden) until
    // the loop deletes them, and the guide shows only once a step is to do (not while sbx is being
    // checked), the popup growing to it a turn of the loop later. A click goes to where the button
    // is in the window: outside it, it reaches nothing.
    QPushButton *prepareButton() const
    {
        for (QPushButton *b : guide->findChildren<QPushButton *>(QStringLiteral("prepare"))) {
            QWidget *window = b->window();
            if (b->isVisible() && window->rect().contains(b->mapTo(window, b->rect().center())))
                return b;
        }
        return nullptr;
    }

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

    // "ChatGPT connected" while the tunnel has no usable credentials: Choose tunnel files takes the id
    // and key files (in either order), stores them where the server reads them (here: the secret
    // directory's files, which come before the keychain, replaced; readable by the user only), shows
    // the steps in ChatGPT with the tunnel id to copy, and starts the tunnel again with them. Files
    // that hold no tunnel id store nothing and say why.
    void tunnelFilesAreStoredAndTheStepsInChatGptShown()
    {
        TestEnvironment env;
        const QString secrets = env.root() + QStringLiteral("/secrets");
        const QString picked = env.root() + QStringLiteral("/Downloads");
        QVERIFY(QDir().mkpath(secrets) && QDir().mkpath(picked));
        const QString oldId = QStringLiteral("tunnel_") + QString(32, QLatin1Char('0'));
        const QString newId = QStringLiteral("tunnel_0123456789abcdef0123456789abcdef");
        QVERIFY(writeFile(secrets + QStringLiteral("/tunnel-id"), oldId.toUtf8()));   // no key: the tunnel cannot start
        QVERIFY(writeFile(picked + QStringLiteral("/my-tunnel-id.txt"), newId.toUtf8() + '\n'));
        QVERIFY(writeFile(picked + QStringLiteral("/my-tunnel-key.txt"), "sk-tunnel-secret-value\n"));
        QVERIFY(writeFile(picked + QStringLiteral("/notes.txt"), "hello\n"));
        env.set(QStringLiteral("CHAT2SBX_ENABLE_TUNNEL"), QStringLiteral("1"));
        env.set(QStringLiteral("CHAT2SBX_SECRET_DIR"), secrets);
        env.set(QStringLiteral("CHAT2SBX_TUNNEL_CLIENT"), env.root() + QStringLiteral("/no-tunnel-client"));
        PrepareSession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QPushButton *choose = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((choose = s.guide->findChild<QPushButton *>(QStringLiteral("chooseTunnelFiles"))), scaled(20000));
        QVERIFY(!choose->accessibleName().isEmpty());

        s.guide->importTunnelFiles({picked + QStringLiteral("/notes.txt"), picked + QStringLiteral("/my-tunnel-key.txt")});
        QTRY_VERIFY_WITH_TIMEOUT(!s.guide->result().isEmpty(), scaled(10000));
        QVERIFY2(s.guide->result().contains(QStringLiteral("Nothing was stored")) && !s.guide->result().contains(QStringLiteral("sk-tunnel")),
                 qPrintable(s.guide->result()));
        QCOMPARE(readFile(secrets + QStringLiteral("/tunnel-id")).trimmed(), oldId.toUtf8());
        s.guide->importTunnelFiles({picked + QStringLiteral("/notes.txt")});
        QVERIFY2(s.guide->result().contains(QStringLiteral("two files")), qPrintable(s.guide->result()));

        // The key first, the id second: told apart by their content.
        s.guide->importTunnelFiles({picked + QStringLiteral("/my-tunnel-key.txt"), picked + QStringLiteral("/my-tunnel-id.txt")});
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->result().contains(newId), scaled(10000));
        const QString result = s.guide->result();
        QVERIFY2(result.contains(QStringLiteral("Connection: Tunnel")) && result.contains(secrets) && !result.contains(QStringLiteral("sk-tunnel")),
                 qPrintable(result));
        QCOMPARE(readFile(secrets + QStringLiteral("/tunnel-id")).trimmed(), newId.toUtf8());
        QCOMPARE(readFile(secrets + QStringLiteral("/key")).trimmed(), QByteArray("sk-tunnel-secret-value"));
        const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup
                                                | QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
        QCOMPARE(QFile::permissions(secrets + QStringLiteral("/key")) & others, QFileDevice::Permissions());
        QCOMPARE(QFile::permissions(secrets + QStringLiteral("/tunnel-id")) & others, QFileDevice::Permissions());
        QCOMPARE(s.guide->tunnelId(), newId);
        QPushButton *copy = s.guide->findChild<QPushButton *>(QStringLiteral("copyTunnelId"));
        QVERIFY(copy && copy->isVisible() && s.guide->focusChain().contains(copy));
        // The tunnel started again with them: now it is the missing tunnel-client that stops it.
        QTRY_VERIFY_WITH_TIMEOUT(controllerTunnelDetail(s).contains(QStringLiteral("no-tunnel-client")), scaled(10000));
        saveScreenshot(*s.popup, QStringLiteral("tray_first_run_tunnel_files"));
    }

    // "Host folders": Add a folder… allows the folder at once (an agent's request below it waits for
    // approval instead of being refused), saves it in config.json's allowedHostRoots (other keys kept)
    // and marks the step done; the whole disk and chat2sbx's own folders are refused, nothing saved.
    void aFolderAddedInTheGuideIsAllowedAtOnceAndSaved()
    {
        TestEnvironment env;
        const QString projects = env.root() + QStringLiteral("/projects");
        QVERIFY(QDir().mkpath(projects + QStringLiteral("/thesis")));
        const QString configPath = env.config().configFilePath;
        QVERIFY(writeFile(configPath, R"({"warmSandboxes": 0})"));
        PrepareSession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->findChild<QPushButton *>(QStringLiteral("addHostFolder")), scaled(20000));
        QVERIFY(!s.stepTitle(QStringLiteral("folders")).startsWith(QStringLiteral("✓")));
        using Status = ApprovalService::RequestOutcome::Status;
        QCOMPARE(s.controller->approvals().request(projects + QStringLiteral("/thesis"), WorkspaceMode::Direct).status, Status::Refused);

        s.guide->addHostFolder(QStringLiteral("/"));
        QVERIFY2(s.guide->result().contains(QStringLiteral("whole disk")), qPrintable(s.guide->result()));
        s.guide->addHostFolder(env.config().dataRoot);
        QVERIFY2(s.guide->result().contains(QStringLiteral("chat2sbx's own folders")), qPrintable(s.guide->result()));
        QCOMPARE(readFile(configPath), QByteArray(R"({"warmSandboxes": 0})"));

        s.guide->addHostFolder(projects);
        QVERIFY2(s.guide->result().contains(QStringLiteral("Agents may now ask for folders below ") + projects), qPrintable(s.guide->result()));
        const QJsonObject saved = QJsonDocument::fromJson(readFile(configPath)).object();
        QCOMPARE(saved.value(QStringLiteral("allowedHostRoots")).toArray(), QJsonArray{projects});
        QCOMPARE(saved.value(QStringLiteral("warmSandboxes")).toInt(-1), 0);
        QTRY_VERIFY_WITH_TIMEOUT(s.stepTitle(QStringLiteral("folders")).startsWith(QStringLiteral("✓")), scaled(5000));
        saveScreenshot(*s.popup, QStringLiteral("tray_first_run_folder_added"));
        QCOMPARE(s.controller->approvals().request(projects + QStringLiteral("/thesis"), WorkspaceMode::Direct).status,
                 Status::ApprovalRequired);
        s.guide->addHostFolder(projects);   // twice: saved once
        QCOMPARE(QJsonDocument::fromJson(readFile(configPath)).object().value(QStringLiteral("allowedHostRoots")).toArray().size(), 1);
    }

    // "Docker Sandboxes installed" with sbx not where the config says: Choose sbx… checks the program
    // (`version`: sbx of a supported version), saves it as sbx in config.json and uses it at once
    // (the step turns done); a program that is not sbx, or no program, changes nothing.
    void aChosenSbxIsCheckedSavedAndUsed()
    {
        TestEnvironment env;
        env.set(QStringLiteral("CHAT2SBX_SBX"), env.root() + QStringLiteral("/elsewhere/sbx"));
        const QString configPath = env.config().configFilePath;
        PrepareSession s(env);
        QString error;
        QVERIFY2(s.start(error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->findChild<QPushButton *>(QStringLiteral("chooseSbx")), scaled(20000));
        QVERIFY(!s.stepTitle(QStringLiteral("sbx")).startsWith(QStringLiteral("✓")));

        s.guide->useSbxProgram(QStringLiteral("/bin/true"));
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->result().contains(QStringLiteral("did not answer")), scaled(10000));
        s.guide->useSbxProgram(env.root() + QStringLiteral("/nothing-here"));
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->result().contains(QStringLiteral("not a program")), scaled(10000));
        QVERIFY(!QFileInfo::exists(configPath) || !readFile(configPath).contains("\"sbx\""));

        s.guide->useSbxProgram(fakeSbxPath());
        QTRY_VERIFY_WITH_TIMEOUT(s.guide->result().contains(QStringLiteral("Using sbx")), scaled(10000));
        QCOMPARE(QJsonDocument::fromJson(readFile(configPath)).object().value(QStringLiteral("sbx")).toString(), fakeSbxPath());
        QCOMPARE(s.controller->sbx().sbxPath(), fakeSbxPath());
        QTRY_VERIFY_WITH_TIMEOUT(s.stepTitle(QStringLiteral("sbx")).startsWith(QStringLiteral("✓")), scaled(20000));
        saveScreenshot(*s.popup, QStringLiteral("tray_first_run_sbx_chosen"));
    }

private:
    static QString controllerTunnelDetail(PrepareSession &s)
    {
        const QJsonObject tunnel = s.controller->tunnel().toJson();
        return QString::fromUtf8(QJsonDocument(tunnel).toJson(QJsonDocument::Compact));
    }
};

QTEST_MAIN(TestTrayPrepare)
#include "tst_tray_prepare.moc"
