// DockerImageKeeper::invalid: the docker_images an agent names follow the distribution grammar,
// registry part included; nothing with spaces, shell text or control characters passes, and the
// refusal never echoes a control character.
#include "sandbox/changes/DockerImageKeeper.h"

#include <QtTest>

using namespace chat2sbx;

class TestDockerImageReference : public QObject {
    Q_OBJECT
private slots:
    void accepted_data()
    {
        QTest::addColumn<QString>("image");
        for (const char *ok : {"myapp:dev", "web", "library/ubuntu:24.04", "ghcr.io/acme/tool:1.2.3", "localhost:5000/app:latest",
                               "localhost/app", "registry.example.com:443/team/app_x__y-z:v1",
                               "app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"})
            QTest::newRow(ok) << QString::fromLatin1(ok);
    }
    void accepted()
    {
        QFETCH(QString, image);
        QCOMPARE(DockerImageKeeper::invalid({image}), QString());
    }

    void refused_data()
    {
        QTest::addColumn<QString>("image");
        QTest::newRow("space in the registry") << QStringLiteral("my registry.io/app:1");
        QTest::newRow("semicolon in the registry") << QStringLiteral("reg.io;rm -rf ~:5000/app");
        QTest::newRow("newline in the registry") << QStringLiteral("reg.io\nx:1/app");
        QTest::newRow("backquote in the registry") << QStringLiteral("reg`id`.io/app");
        QTest::newRow("port not a number") << QStringLiteral("reg.io:abc/app");
        QTest::newRow("shell after the tag") << QStringLiteral("web:dev; rm -rf ~");
        QTest::newRow("upper-case path") << QStringLiteral("MyApp:dev");
        QTest::newRow("empty component") << QStringLiteral("acme//app");
        QTest::newRow("leading separator") << QStringLiteral("-app");
        QTest::newRow("empty") << QString();
    }
    void refused()
    {
        QFETCH(QString, image);
        const QString why = DockerImageKeeper::invalid({image});
        QVERIFY2(why.contains(QStringLiteral("is not a Docker image reference")), qPrintable(why));
        for (const QChar c : why)
            QVERIFY2(c.isPrint(), "a control character in the refusal");
    }
};

QTEST_APPLESS_MAIN(TestDockerImageReference)
#include "tst_docker_image_reference.moc"
