// JSON-RPC 2.0 message building and id handling (core/JsonRpc.h): pure functions, no socket.
#include "core/JsonRpc.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;

namespace {

QJsonObject parse(const QByteArray &json)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    return err.error == QJsonParseError::NoError ? doc.object() : QJsonObject{{QStringLiteral("unparsable"), true}};
}

} // namespace

class TestJsonRpc : public QObject {
    Q_OBJECT
private slots:
    void resultCarriesIdAndVersion()
    {
        const QJsonObject m = jsonrpc::result(QJsonValue(5), {{QStringLiteral("ok"), true}});
        QCOMPARE(m.value(QStringLiteral("jsonrpc")).toString(), QStringLiteral("2.0"));
        QCOMPARE(m.value(QStringLiteral("id")), QJsonValue(5));
        QCOMPARE(m.value(QStringLiteral("result")).toObject().value(QStringLiteral("ok")), QJsonValue(true));
        QVERIFY(!m.contains(QStringLiteral("error")));
    }

    void errorShape_data()
    {
        QTest::addColumn<QJsonValue>("id");
        QTest::addColumn<QJsonValue>("data");
        QTest::addColumn<QJsonValue>("expectedId");
        QTest::addColumn<bool>("hasData");
        QTest::newRow("undefined id becomes null") << QJsonValue(QJsonValue::Undefined) << QJsonValue()
                                                   << QJsonValue(QJsonValue::Null) << false;
        QTest::newRow("null id stays null") << QJsonValue(QJsonValue::Null) << QJsonValue()
                                            << QJsonValue(QJsonValue::Null) << false;
        QTest::newRow("string id kept") << QJsonValue(QStringLiteral("a")) << QJsonValue()
                                        << QJsonValue(QStringLiteral("a")) << false;
        QTest::newRow("data included") << QJsonValue(1) << QJsonValue(QStringLiteral("why"))
                                       << QJsonValue(1) << true;
        QTest::newRow("null data left out") << QJsonValue(1) << QJsonValue(QJsonValue::Null)
                                            << QJsonValue(1) << false;
    }
    void errorShape()
    {
        QFETCH(QJsonValue, id);
        QFETCH(QJsonValue, data);
        QFETCH(QJsonValue, expectedId);
        QFETCH(bool, hasData);
        const QJsonObject m = jsonrpc::error(id, jsonrpc::InvalidParams, QStringLiteral("bad"), data);
        QCOMPARE(m.value(QStringLiteral("jsonrpc")).toString(), QStringLiteral("2.0"));
        QVERIFY(m.contains(QStringLiteral("id")));
        QCOMPARE(m.value(QStringLiteral("id")), expectedId);
        const QJsonObject err = m.value(QStringLiteral("error")).toObject();
        QCOMPARE(err.value(QStringLiteral("code")).toInt(), -32602);
        QCOMPARE(err.value(QStringLiteral("message")).toString(), QStringLiteral("bad"));
        QCOMPARE(err.contains(QStringLiteral("data")), hasData);
        QVERIFY(!m.contains(QStringLiteral("result")));
    }

    void serializeIsCompactJson()
    {
        const QByteArray bytes = jsonrpc::serialize(jsonrpc::result(QJsonValue(1), {}));
        QVERIFY(!bytes.contains('\n'));
        QCOMPARE(parse(bytes).value(QStringLiteral("id")), QJsonValue(1));
    }

    void serializeResultSplicesPreserializedResult_data()
    {
        QTest::addColumn<QJsonValue>("id");
        QTest::newRow("integer") << QJsonValue(42);
        QTest::newRow("negative") << QJsonValue(-7);
        QTest::newRow("string") << QJsonValue(QStringLiteral("req-1"));
        QTest::newRow("string with quotes") << QJsonValue(QStringLiteral("a\"b\\c"));
        QTest::newRow("large integer") << QJsonValue(9007199254740991.0);
    }
    void serializeResultSplicesPreserializedResult()
    {
        QFETCH(QJsonValue, id);
        const QByteArray bytes = jsonrpc::serializeResult(id, QByteArrayLiteral("{\"tools\":[]}"));
        const QJsonObject m = parse(bytes);
        QVERIFY2(!m.contains(QStringLiteral("unparsable")), bytes.constData());
        QCOMPARE(m.value(QStringLiteral("id")), id);
        QCOMPARE(m.value(QStringLiteral("jsonrpc")).toString(), QStringLiteral("2.0"));
        QVERIFY(m.value(QStringLiteral("result")).toObject().value(QStringLiteral("tools")).isArray());
        // The same message as building the object and serializing it.
        QCOMPARE(m, jsonrpc::result(id, {{QStringLiteral("tools"), QJsonArray()}}));
    }

    void validIds_data()
    {
        QTest::addColumn<QJsonValue>("id");
        QTest::addColumn<bool>("valid");
        QTest::newRow("string") << QJsonValue(QStringLiteral("x")) << true;
        QTest::newRow("empty string") << QJsonValue(QString()) << true;
        QTest::newRow("zero") << QJsonValue(0) << true;
        QTest::newRow("negative integer") << QJsonValue(-3) << true;
        QTest::newRow("2^53-1") << QJsonValue(9007199254740991.0) << true;
        QTest::newRow("2^53") << QJsonValue(9007199254740992.0) << false;
        QTest::newRow("fraction") << QJsonValue(1.5) << false;
        QTest::newRow("null") << QJsonValue(QJsonValue::Null) << false;
        QTest::newRow("undefined") << QJsonValue(QJsonValue::Undefined) << false;
        QTest::newRow("bool") << QJsonValue(true) << false;
        QTest::newRow("object") << QJsonValue(QJsonObject{}) << false;
        QTest::newRow("array") << QJsonValue(QJsonArray{1}) << false;
    }
    void validIds()
    {
        QFETCH(QJsonValue, id);
        QFETCH(bool, valid);
        QCOMPARE(jsonrpc::isValidId(id), valid);
    }

    void peekId_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QJsonValue>("expected");
        QTest::newRow("integer id") << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"ping"})") << QJsonValue(3);
        QTest::newRow("string id") << QByteArray(R"({"id":"abc"})") << QJsonValue(QStringLiteral("abc"));
        QTest::newRow("fractional id") << QByteArray(R"({"id":2.5})") << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("no id") << QByteArray(R"({"method":"notifications/initialized"})")
                               << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("batch array") << QByteArray(R"([{"id":1}])") << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("not json") << QByteArray("{\"id\":1") << QJsonValue(QJsonValue::Undefined);
        QTest::newRow("empty") << QByteArray() << QJsonValue(QJsonValue::Undefined);
    }
    void peekId()
    {
        QFETCH(QByteArray, body);
        QFETCH(QJsonValue, expected);
        QCOMPARE(jsonrpc::peekId(body), expected);
    }

    void idKeysSeparateStringsFromNumbers()
    {
        QCOMPARE(jsonrpc::idKey(QJsonValue(5)), QStringLiteral("n:5"));
        QCOMPARE(jsonrpc::idKey(QJsonValue(QStringLiteral("5"))), QStringLiteral("s:5"));
        QVERIFY(jsonrpc::idKey(QJsonValue(5)) != jsonrpc::idKey(QJsonValue(QStringLiteral("5"))));
        QCOMPARE(jsonrpc::idKey(QJsonValue(-9007199254740991.0)), QStringLiteral("n:-9007199254740991"));
    }
};

QTEST_GUILESS_MAIN(TestJsonRpc)
#include "tst_jsonrpc.moc"
