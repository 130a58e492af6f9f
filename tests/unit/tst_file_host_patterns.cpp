// The hosts import_file may download from: whole-label matching of "host", "*.domain" and
// "prefix*.domain" patterns, ports, invalid patterns (matching nothing, and refused by the config).
#include "config/ConfigLoader.h"
#include "config/FileHostPatterns.h"

#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QtTest>

using namespace chat2sbx;

class TestFileHostPatterns : public QObject {
    Q_OBJECT

private slots:
    void matching_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<bool>("allowed");
        const QString azure = QStringLiteral("oaisdmntpr*.blob.core.windows.net");
        QTest::newRow("azure westus") << azure << "oaisdmntprwestus.blob.core.windows.net" << 443 << true;
        QTest::newRow("azure nznorth") << azure << "oaisdmntprnznorth.blob.core.windows.net" << 443 << true;
        QTest::newRow("azure koreacentral, upper case") << azure << "OAISDMNTPRKOREACENTRAL.blob.core.windows.net" << 443 << true;
        QTest::newRow("azure, trailing dot") << azure << "oaisdmntprwestus.blob.core.windows.net." << 443 << true;
        QTest::newRow("azure sibling") << azure << "evil.blob.core.windows.net" << 443 << false;
        QTest::newRow("the prefix alone") << azure << "oaisdmntpr.blob.core.windows.net" << 443 << false;
        QTest::newRow("a label in front") << azure << "x.oaisdmntprwestus.blob.core.windows.net" << 443 << false;
        QTest::newRow("a label more in the middle") << azure << "oaisdmntprwestus.x.blob.core.windows.net" << 443 << false;
        QTest::newRow("the prefix as a suffix") << azure << "evil-oaisdmntprwestus.blob.core.windows.net" << 443 << false;
        QTest::newRow("the domain not at a label") << azure << "oaisdmntprwestus.evilblob.core.windows.net" << 443 << false;
        QTest::newRow("another domain after") << azure << "oaisdmntprwestus.blob.core.windows.net.evil.com" << 443 << false;
        QTest::newRow("another port") << azure << "oaisdmntprwestus.blob.core.windows.net" << 8443 << false;
        QTest::newRow("prefix and suffix") << "cdn-*-files.example.com" << "cdn-eu-files.example.com" << 443 << true;
        QTest::newRow("prefix and suffix, suffix missing") << "cdn-*-files.example.com" << "cdn-eu.example.com" << 443 << false;
        QTest::newRow("subdomain") << "*.oaiusercontent.com" << "files.oaiusercontent.com" << 443 << true;
        QTest::newRow("deeper subdomain") << "*.oaiusercontent.com" << "a.b.oaiusercontent.com" << 443 << true;
        QTest::newRow("the domain itself") << "*.oaiusercontent.com" << "oaiusercontent.com" << 443 << false;
        QTest::newRow("a longer label") << "*.oaiusercontent.com" << "evil-oaiusercontent.com" << 443 << false;
        QTest::newRow("exact") << "files.example.net" << "files.example.net" << 443 << true;
        QTest::newRow("exact, sub") << "files.example.net" << "a.files.example.net" << 443 << false;
        QTest::newRow("host:port") << "localhost:8443" << "localhost" << 8443 << true;
        QTest::newRow("host:port, 443") << "localhost:8443" << "localhost" << 443 << false;
        QTest::newRow("a bad label in the host") << "*.example.com" << "a_b c.example.com" << 443 << false;
        QTest::newRow("invalid pattern matches nothing") << "*" << "anything.com" << 443 << false;
        QTest::newRow("a star in a later label") << "files.*.com" << "files.x.com" << 443 << false;
    }
    void matching()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(bool, allowed);
        QCOMPARE(FileHostPatterns::allows({pattern}, host, port), allowed);
    }

    void problems_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("problem");   // a fragment; empty: valid
        QTest::newRow("default 1") << "*.oaiusercontent.com" << "";
        QTest::newRow("default 2") << "oaisdmntpr*.blob.core.windows.net" << "";
        QTest::newRow("host:port") << "localhost:8443" << "";
        QTest::newRow("bare star") << "*" << "two labels";
        QTest::newRow("star.com") << "*.com" << "two labels";
        QTest::newRow("two stars") << "a*b*.example.com" << "only once";
        QTest::newRow("star later") << "files.*.example.com" << "only once";
        QTest::newRow("bad port") << "example.com:99999" << "port";
        QTest::newRow("empty label") << "a..example.com" << "not a DNS label";
        QTest::newRow("slash") << "example.com/path" << "not a DNS label";
        QTest::newRow("empty") << " " << "no host";
    }
    void problems()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, problem);
        const QString found = FileHostPatterns::problem(pattern);
        if (problem.isEmpty())
            QVERIFY2(found.isEmpty(), qPrintable(found));
        else
            QVERIFY2(found.contains(problem), qPrintable(found));
    }

    void defaultsAreTheTwoChatGptShapes()
    {
        Config c;
        QCOMPARE(c.importFileHosts, QStringList({"*.oaiusercontent.com", "oaisdmntpr*.blob.core.windows.net"}));
        QVERIFY(!FileHostPatterns::allows(c.importFileHosts, QStringLiteral("evil.blob.core.windows.net"), 443));
    }

    void theConfigRefusesAnInvalidPattern()
    {
        QTemporaryDir home;
        QProcessEnvironment env;
        env.insert(QStringLiteral("CHAT2SBX_IMPORT_FILE_HOSTS"), QStringLiteral("*.oaiusercontent.com,*.net"));
        Config c;
        QString error;
        QVERIFY(!ConfigLoader::load(env, home.path(), c, error));
        QVERIFY2(error.contains(QStringLiteral("importFileHosts")) && error.contains(QStringLiteral("*.net")), qPrintable(error));
        env.insert(QStringLiteral("CHAT2SBX_IMPORT_FILE_HOSTS"), QStringLiteral("oaisdmntpr*.blob.core.windows.net,files.example.net:8443"));
        QVERIFY2(ConfigLoader::load(env, home.path(), c, error), qPrintable(error));
        QCOMPARE(c.importFileHosts.size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestFileHostPatterns)
#include "tst_file_host_patterns.moc"
