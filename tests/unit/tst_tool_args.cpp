// ToolArgs (reads of tool arguments) and the schema:: fragments the tools are described with. The
// schema states a rule once (SchemaValidator checks it before a handler runs); ToolArgs checks only
// types and what a schema cannot state (sizes in bytes, NUL). Rows show both sides.
#include "mcp/SchemaValidator.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;

Q_DECLARE_METATYPE(chat2sbx::ToolArgs::Presence)

namespace {

QJsonObject args(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

} // namespace

class TestToolArgs : public QObject {
    Q_OBJECT
private slots:
    void strings_data()
    {
        using Presence = ToolArgs::Presence;
        constexpr Presence Required = Presence::Required, Optional = Presence::Optional,
                           RequiredMayBeEmpty = Presence::RequiredMayBeEmpty;
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<ToolArgs::Presence>("presence");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("error");
        QTest::newRow("present") << QByteArray(R"({"path":"a.txt"})") << Required << true << "a.txt" << "";
        QTest::newRow("missing, required") << QByteArray("{}") << Required << false << "" << "path is required";
        QTest::newRow("missing, optional") << QByteArray("{}") << Optional << true << "" << "";
        QTest::newRow("null, optional") << QByteArray(R"({"path":null})") << Optional << true << "" << "";
        QTest::newRow("number") << QByteArray(R"({"path":5})") << Required << false << ""
                                << "path must be a string";
        QTest::newRow("empty, required") << QByteArray(R"({"path":""})") << Required << false << ""
                                         << "path must not be empty";
        QTest::newRow("8 bytes: at the limit") << QByteArray(R"({"path":"12345678"})") << Required << true
                                               << "12345678" << "";
        QTest::newRow("9 bytes: too long") << QByteArray(R"({"path":"123456789"})") << Required << false << ""
                                           << "path is too long (at most 8 bytes)";
        QTest::newRow("4 two-byte characters: 8 bytes") << QByteArray(R"({"path":"éééé"})") << Required << true
                                                        << "éééé" << "";
        QTest::newRow("5 two-byte characters: 10 bytes") << QByteArray(R"({"path":"ééééé"})") << Required << false
                                                         << "" << "path is too long (at most 8 bytes)";
        QTest::newRow("empty, optional") << QByteArray(R"({"path":""})") << Optional << true << "" << "";
        QTest::newRow("empty, required but may be empty")
            << QByteArray(R"({"path":""})") << RequiredMayBeEmpty << true << "" << "";
        QTest::newRow("missing, required but may be empty")
            << QByteArray("{}") << RequiredMayBeEmpty << false << "" << "path is required";
        QTest::newRow("NUL") << QByteArray(R"({"path":"a\u0000b"})") << Required << false << ""
                             << "path must not contain NUL characters";
    }
    void strings()
    {
        QFETCH(QByteArray, json);
        QFETCH(ToolArgs::Presence, presence);
        QFETCH(bool, ok);
        QFETCH(QString, value);
        QFETCH(QString, error);
        const QJsonObject a = args(json.constData());
        ToolArgs reader(a);
        QString out;
        QCOMPARE(reader.string(QStringLiteral("path"), out, 8, presence), ok);
        QCOMPARE(reader.error(), error);
        if (ok)
            QCOMPARE(out, value);
    }

    void integers_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<bool>("readOk");
        QTest::addColumn<bool>("schemaOk");
        QTest::addColumn<qint64>("value");
        QTest::newRow("inside") << QByteArray(R"({"n":5})") << true << true << qint64(5);
        QTest::newRow("minimum") << QByteArray(R"({"n":1})") << true << true << qint64(1);
        QTest::newRow("maximum") << QByteArray(R"({"n":600000})") << true << true << qint64(600000);
        // The range is the schema's rule alone.
        QTest::newRow("below") << QByteArray(R"({"n":0})") << true << false << qint64(0);
        QTest::newRow("above") << QByteArray(R"({"n":600001})") << true << false << qint64(600001);
        QTest::newRow("fraction") << QByteArray(R"({"n":1.5})") << false << false << qint64(0);
        QTest::newRow("integral float") << QByteArray(R"({"n":2.0})") << true << true << qint64(2);
        QTest::newRow("string") << QByteArray(R"({"n":"5"})") << false << false << qint64(0);
        QTest::newRow("bool") << QByteArray(R"({"n":true})") << false << false << qint64(0);
        // Not an exactly representable integer: the read refuses rather than convert it.
        QTest::newRow("huge") << QByteArray(R"({"n":1e300})") << false << false << qint64(0);
        QTest::newRow("2^53 + 2") << QByteArray(R"({"n":9007199254740994})") << false << false << qint64(0);
    }
    void integers()
    {
        QFETCH(QByteArray, json);
        QFETCH(bool, readOk);
        QFETCH(bool, schemaOk);
        QFETCH(qint64, value);
        const QJsonObject a = args(json.constData());
        ToolArgs reader(a);
        qint64 out = -1;
        QCOMPARE(reader.integer(QStringLiteral("n"), out, std::nullopt), readOk);
        if (readOk)
            QCOMPARE(out, value);
        else
            QCOMPARE(reader.error(), QStringLiteral("n must be an integer"));

        const QJsonObject schema = schema::object({{QStringLiteral("n"), schema::integer(QStringLiteral("n"), 1, 600000)}},
                                                  {QStringLiteral("n")});
        QCOMPARE(SchemaValidator::validate(schema, a).isEmpty(), schemaOk);
    }

    void integerFallbackWhenMissing()
    {
        const QJsonObject a = args("{}");
        ToolArgs reader(a);
        qint64 out = 0;
        QVERIFY(reader.integer(QStringLiteral("n"), out, 7));
        QCOMPARE(out, 7);
        QVERIFY(!reader.integer(QStringLiteral("n"), out, std::nullopt));
        QCOMPARE(reader.error(), QStringLiteral("n is required"));
    }

    void booleans_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("value");
        QTest::newRow("true") << QByteArray(R"({"b":true})") << true << true;
        QTest::newRow("false") << QByteArray(R"({"b":false})") << true << false;
        QTest::newRow("missing: fallback") << QByteArray("{}") << true << true;
        QTest::newRow("string") << QByteArray(R"({"b":"true"})") << false << false;
        QTest::newRow("number") << QByteArray(R"({"b":1})") << false << false;
    }
    void booleans()
    {
        QFETCH(QByteArray, json);
        QFETCH(bool, ok);
        QFETCH(bool, value);
        const QJsonObject a = args(json.constData());
        ToolArgs reader(a);
        bool out = false;
        QCOMPARE(reader.boolean(QStringLiteral("b"), out, true), ok);
        if (ok)
            QCOMPARE(out, value);
        else
            QCOMPARE(reader.error(), QStringLiteral("b must be true or false"));
        const QJsonObject schema = schema::object({{QStringLiteral("b"), schema::boolean(QStringLiteral("b"))}}, {});
        QCOMPARE(SchemaValidator::validate(schema, a).isEmpty(), ok);
    }

    void sandboxIds_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<bool>("readOk");
        QTest::addColumn<bool>("schemaOk");
        QTest::newRow("well formed") << QByteArray(R"({"sandbox_id":"sbx_0123456789abcdef01234567"})") << true << true;
        // The form is the schema's pattern alone.
        QTest::newRow("upper case hex") << QByteArray(R"({"sandbox_id":"sbx_0123456789ABCDEF01234567"})") << true << false;
        QTest::newRow("short") << QByteArray(R"({"sandbox_id":"sbx_0123"})") << true << false;
        QTest::newRow("other prefix") << QByteArray(R"({"sandbox_id":"ws_0123456789abcdef01234567"})") << true << false;
        QTest::newRow("runtime name") << QByteArray(R"({"sandbox_id":"chat2sbx-0123456789abcdef"})") << true << false;
        QTest::newRow("missing") << QByteArray("{}") << false << false;
        QTest::newRow("number") << QByteArray(R"({"sandbox_id":7})") << false << false;
    }
    void sandboxIds()
    {
        QFETCH(QByteArray, json);
        QFETCH(bool, readOk);
        QFETCH(bool, schemaOk);
        const QJsonObject a = args(json.constData());
        ToolArgs reader(a);
        QString out;
        QCOMPARE(reader.sandboxId(out), readOk);
        QCOMPARE(reader.error().isEmpty(), readOk);
        const QJsonObject schema = schema::object({{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()}},
                                                  {QStringLiteral("sandbox_id")});
        QCOMPARE(SchemaValidator::validate(schema, a).isEmpty(), schemaOk);
    }

    // bash reads each env entry through a ToolArgs made from entry.toObject(), a temporary: the
    // reader must keep the object alive itself (an optimised build reuses the temporary's storage).
    void readerMadeFromATemporaryKeepsItsObject()
    {
        const QJsonArray entries = QJsonDocument::fromJson(
            R"([{"name":"A","value":"1"},{"name":"BB","value":""},{"name":"CCC","value":"three"}])").array();
        QStringList read;
        for (const QJsonValue &entry : entries) {
            ToolArgs variable(entry.toObject());
            QString name, value;
            QVERIFY2(variable.string(QStringLiteral("name"), name, 64), qPrintable(variable.error()));
            QVERIFY2(variable.string(QStringLiteral("value"), value, 64, ToolArgs::Presence::RequiredMayBeEmpty),
                     qPrintable(variable.error()));
            read << name + QLatin1Char('=') + value;
        }
        QCOMPARE(read, QStringList({"A=1", "BB=", "CCC=three"}));

        ToolArgs direct(QJsonObject{{QStringLiteral("sandbox_id"), QStringLiteral("sbx_0123456789abcdef01234567")}});
        QString id;
        QVERIFY2(direct.sandboxId(id), qPrintable(direct.error()));
        QCOMPARE(id, QStringLiteral("sbx_0123456789abcdef01234567"));
    }
    void idAndNullableFragments()
    {
        const QJsonObject id = schema::id(QStringLiteral("ws_"), QStringLiteral("a workspace"));
        QCOMPARE(id.value(QStringLiteral("pattern")).toString(), QStringLiteral("^ws_[0-9a-f]{24}$"));
        QCOMPARE(id.value(QStringLiteral("maxLength")).toInt(), 27);
        const QJsonObject s = schema::object({{QStringLiteral("w"), id},
                                              {QStringLiteral("n"), schema::nullable(schema::boolean(QStringLiteral("n")))},
                                              {QStringLiteral("m"), schema::oneOf({QStringLiteral("clone"), QStringLiteral("direct")},
                                                                                  QStringLiteral("m"))}},
                                             {});
        QVERIFY(SchemaValidator::validate(s, args(R"({"w":"ws_0123456789abcdef01234567","n":null,"m":"direct"})")).isEmpty());
        QVERIFY(SchemaValidator::validate(s, args(R"({"n":true})")).isEmpty());
        QVERIFY(!SchemaValidator::validate(s, args(R"({"w":"ws_0123"})")).isEmpty());
        QVERIFY(!SchemaValidator::validate(s, args(R"({"n":"yes"})")).isEmpty());
        QVERIFY(!SchemaValidator::validate(s, args(R"({"m":"managed"})")).isEmpty());
    }

    void objectSchemaIsClosedAndListsRequired()
    {
        const QJsonObject s = schema::object({{QStringLiteral("a"), schema::str(QStringLiteral("a"), 10)}},
                                             {QStringLiteral("a")});
        QCOMPARE(s.value(QStringLiteral("type")).toString(), QStringLiteral("object"));
        QCOMPARE(s.value(QStringLiteral("additionalProperties")), QJsonValue(false));
        QCOMPARE(s.value(QStringLiteral("required")).toArray(), QJsonArray{QStringLiteral("a")});
        QVERIFY(!SchemaValidator::validate(s, args(R"({"a":"x","b":1})")).isEmpty());
        QVERIFY(!SchemaValidator::validate(s, args(R"({"a":"01234567890"})")).isEmpty());
        QVERIFY(SchemaValidator::validate(s, args(R"({"a":"0123456789"})")).isEmpty());
        QVERIFY(!schema::object({}, {}).contains(QStringLiteral("required")));
    }

    void resultSchemaIsOpen()
    {
        // isError results carry {"error": ...} in structuredContent: an output schema must accept it.
        const QJsonObject s = schema::result({{QStringLiteral("ok"), schema::boolean(QStringLiteral("ok"))}});
        QVERIFY(!s.contains(QStringLiteral("required")));
        QVERIFY(!s.contains(QStringLiteral("additionalProperties")));
        QVERIFY(SchemaValidator::validate(s, args(R"({"error":"sandbox is gone"})")).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestToolArgs)
#include "tst_tool_args.moc"
