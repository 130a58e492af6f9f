// Config precedence (defaults < config.json < environment) and every invalid-value error.
#include "config/ConfigLoader.h"
#include "TestSupport.h"

#include <QtTest>

using namespace chat2sbx;

class TestConfig : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;

    bool load(const QProcessEnvironment &env, Config &c, QString &error) { return ConfigLoader::load(env, m_home.path(), c, error); }
    void writeConfigJson(const QByteArray &json) { test::writeFile(m_home.path() + "/.chat2sbx/config.json", json); }

private slots:
    void init() { QFile::remove(m_home.path() + "/.chat2sbx/config.json"); }

    void defaultsMatchTheReadme()
    {
        Config c;
        QString error;
        QVERIFY2(load({}, c, error), qPrintable(error));
        const QString h = m_home.path();
        QCOMPARE(c.host, QStringLiteral("127.0.0.1"));
        QCOMPARE(c.port, quint16(18788));
        QCOMPARE(c.dataRoot, h + "/.chat2sbx");
        QCOMPARE(c.stateDir, h + "/.chat2sbx/state");
        QCOMPARE(c.workspaceRoot, h + "/.chat2sbx/workspaces");
        QCOMPARE(c.databasePath, h + "/.chat2sbx/state/chat2sbx.sqlite");
        QVERIFY(c.allowedHostRoots.isEmpty());
        QCOMPARE(c.enableTunnel, true);
        QCOMPARE(c.toolCards, true);
        QCOMPARE(c.tunnelClient, h + "/.local/bin/tunnel-client");
        QCOMPARE(c.secretDir, h + "/.secrets/tunnel-client");
        QCOMPARE(c.maxActiveSandboxes, 0);
        QCOMPARE(c.sbxPath, QStringLiteral("sbx"));
        QCOMPARE(c.mcpUrl(), QStringLiteral("http://127.0.0.1:18788/mcp"));
        QVERIFY(c.isLoopbackBind());
    }

    void derivedPathsFollowTheDataRoot()
    {
        QProcessEnvironment env;
        env.insert("CHAT2SBX_DATA_ROOT", "/srv/c2s");
        Config c;
        QString error;
        QVERIFY2(load(env, c, error), qPrintable(error));
        QCOMPARE(c.stateDir, QStringLiteral("/srv/c2s/state"));
        QCOMPARE(c.workspaceRoot, QStringLiteral("/srv/c2s/workspaces"));
        QCOMPARE(c.databasePath, QStringLiteral("/srv/c2s/state/chat2sbx.sqlite"));
        QCOMPARE(c.configFilePath, QStringLiteral("/srv/c2s/config.json"));

        env.insert("CHAT2SBX_STATE_DIR", "/var/c2s-state");
        QVERIFY2(load(env, c, error), qPrintable(error));
        QCOMPARE(c.databasePath, QStringLiteral("/var/c2s-state/chat2sbx.sqlite"));
    }

    void configJsonOverridesDefaults()
    {
        writeConfigJson(R"({"port": 19000, "maxActiveSandboxes": 3, "enableTunnel": false, "toolCards": false,
                            "allowedHostRoots": ["~/repositories", "/srv/code"], "sbx": "/opt/sbx/bin/sbx"})");
        Config c;
        QString error;
        QVERIFY2(load({}, c, error), qPrintable(error));
        QCOMPARE(c.port, quint16(19000));
        QCOMPARE(c.maxActiveSandboxes, 3);
        QCOMPARE(c.enableTunnel, false);
        QCOMPARE(c.toolCards, false);
        QCOMPARE(c.allowedHostRoots, QStringList({m_home.path() + "/repositories", "/srv/code"}));
        QCOMPARE(c.sbxPath, QStringLiteral("/opt/sbx/bin/sbx"));
    }

    void environmentOverridesConfigJson()
    {
        writeConfigJson(R"({"port": 19000, "maxActiveSandboxes": 3, "toolCards": true})");
        QProcessEnvironment env;
        env.insert("CHAT2SBX_TOOL_CARDS", "0");
        env.insert("CHAT2SBX_PORT", "19001");
        env.insert("CHAT2SBX_MAX_ACTIVE_SANDBOXES", "unlimited");
        env.insert("CHAT2SBX_ALLOWED_HOST_ROOTS", "/a:/b/c");
        env.insert("CHAT2SBX_ENABLE_TUNNEL", "0");
        env.insert("CHAT2SBX_SBX", "/usr/local/bin/sbx");
        env.insert("CHAT2SBX_TUNNEL_CLIENT", "~/bin/tc");
        env.insert("CHAT2SBX_SECRET_DIR", "/run/secrets");
        env.insert("CHAT2SBX_WORKSPACE_ROOT", "/ws");
        env.insert("CHAT2SBX_DATABASE_PATH", "/db/x.sqlite");
        Config c;
        QString error;
        QVERIFY2(load(env, c, error), qPrintable(error));
        QCOMPARE(c.port, quint16(19001));
        QCOMPARE(c.maxActiveSandboxes, 0);
        QCOMPARE(c.allowedHostRoots, QStringList({"/a", "/b/c"}));
        QCOMPARE(c.enableTunnel, false);
        QCOMPARE(c.toolCards, false);
        QCOMPARE(c.sbxPath, QStringLiteral("/usr/local/bin/sbx"));
        QCOMPARE(c.tunnelClient, m_home.path() + "/bin/tc");
        QCOMPARE(c.secretDir, QStringLiteral("/run/secrets"));
        QCOMPARE(c.workspaceRoot, QStringLiteral("/ws"));
        QCOMPARE(c.databasePath, QStringLiteral("/db/x.sqlite"));
    }

    void invalidEnvironmentValues_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::newRow("port 0") << "CHAT2SBX_PORT" << "0";
        QTest::newRow("port 70000") << "CHAT2SBX_PORT" << "70000";
        QTest::newRow("port text") << "CHAT2SBX_PORT" << "http";
        QTest::newRow("negative limit") << "CHAT2SBX_MAX_ACTIVE_SANDBOXES" << "-1";
        QTest::newRow("zero limit") << "CHAT2SBX_MAX_ACTIVE_SANDBOXES" << "0";
        QTest::newRow("limit text") << "CHAT2SBX_MAX_ACTIVE_SANDBOXES" << "many";
        QTest::newRow("tunnel flag") << "CHAT2SBX_ENABLE_TUNNEL" << "maybe";
        QTest::newRow("relative data root") << "CHAT2SBX_DATA_ROOT" << "relative/dir";
        QTest::newRow("relative state dir") << "CHAT2SBX_STATE_DIR" << "state";
        QTest::newRow("relative workspace root") << "CHAT2SBX_WORKSPACE_ROOT" << "ws";
        QTest::newRow("relative database") << "CHAT2SBX_DATABASE_PATH" << "db.sqlite";
        QTest::newRow("relative host root") << "CHAT2SBX_ALLOWED_HOST_ROOTS" << "/ok:not/ok";
        QTest::newRow("relative tunnel client") << "CHAT2SBX_TUNNEL_CLIENT" << "tunnel-client";
        QTest::newRow("relative secret dir") << "CHAT2SBX_SECRET_DIR" << "secrets";
        QTest::newRow("empty sbx") << "CHAT2SBX_SBX" << "";
        QTest::newRow("bad host") << "CHAT2SBX_HOST" << "not a host";
        QTest::newRow("non-loopback without token") << "CHAT2SBX_HOST" << "0.0.0.0";
        QTest::newRow("export over budget") << "CHAT2SBX_EXPORT_OVER_BUDGET" << "sometimes";
        QTest::newRow("export approval flag") << "CHAT2SBX_EXPORT_NEEDS_APPROVAL" << "perhaps";
    }

    void invalidEnvironmentValues()
    {
        QFETCH(QString, name);
        QFETCH(QString, value);
        QProcessEnvironment env;
        env.insert(name, value);
        Config c;
        QString error;
        QVERIFY(!load(env, c, error));
        QVERIFY2(error.contains(name), qPrintable(error));
        if (!value.isEmpty())
            QVERIFY2(error.contains(value), qPrintable(error));
        QVERIFY2(!error.contains('\n'), "one line");
    }

    void invalidConfigJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("malformed") << QByteArray("{\"port\": 19000,") << "malformed JSON";
        QTest::newRow("not an object") << QByteArray("[1,2]") << "JSON object";
        QTest::newRow("port 0") << QByteArray(R"({"port": 0})") << "port=0";
        QTest::newRow("port 70000") << QByteArray(R"({"port": 70000})") << "port=70000";
        QTest::newRow("port fraction") << QByteArray(R"({"port": 80.5})") << "port=80.5";
        QTest::newRow("negative limit") << QByteArray(R"({"maxActiveSandboxes": -2})") << "maxActiveSandboxes=-2";
        QTest::newRow("bool as text") << QByteArray(R"({"enableTunnel": "sometimes"})") << "enableTunnel=sometimes";
        QTest::newRow("unknown key") << QByteArray(R"({"prot": 1})") << "unknown setting \"prot\"";
        QTest::newRow("export over budget") << QByteArray(R"({"exportOverBudget": "never"})") << "exportOverBudget \"never\"";
    }

    void invalidConfigJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        writeConfigJson(json);
        Config c;
        QString error;
        QVERIFY(!load({}, c, error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY2(error.contains("config.json"), qPrintable(error));
    }

    void nonLoopbackBindNeedsALongBearerToken()
    {
        QProcessEnvironment env;
        env.insert("CHAT2SBX_HOST", "0.0.0.0");
        env.insert("CHAT2SBX_BEARER_TOKEN", "short");
        Config c;
        QString error;
        QVERIFY(!load(env, c, error));
        QVERIFY2(error.contains("CHAT2SBX_BEARER_TOKEN"), qPrintable(error));
        QVERIFY2(!error.contains("short"), "the token value is never printed");
        env.insert("CHAT2SBX_BEARER_TOKEN", QString(32, 'x'));
        QVERIFY2(load(env, c, error), qPrintable(error));
        QVERIFY(!c.isLoopbackBind());
    }
};

QTEST_GUILESS_MAIN(TestConfig)
#include "tst_config.moc"
