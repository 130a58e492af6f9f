// SchemaValidator: each supported keyword accepts what conforms and names the field otherwise.
#include "mcp/SchemaValidator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;

namespace {

QJsonObject parse(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

const char *kSchema = R"json({
  "type": "object",
  "additionalProperties": false,
  "required": ["sandbox_id", "command"],
  "properties": {
    "sandbox_id": {"type": "string", "pattern": "^sbx_[0-9a-f]{24}$"},
    "command": {"type": "string", "minLength": 1, "maxLength": 10},
    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "mode": {"type": "string", "enum": ["clone", "direct"]},
    "background": {"type": "boolean"},
    "paths": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string", "maxLength": 5}},
    "env": {"type": "object", "additionalProperties": {"type": "string"}},
    "nullable": {"type": ["string", "null"]},
    "nested": {"type": "object", "additionalProperties": false, "required": ["a"],
               "properties": {"a": {"type": "integer"}}}
  }
})json";

} // namespace

class TestSchemaValidator : public QObject {
    Q_OBJECT
private slots:
    void conforming_data()
    {
        QTest::addColumn<QByteArray>("args");
        QTest::newRow("minimal") << QByteArray(R"({"sandbox_id":"sbx_0123456789abcdef01234567","command":"ls"})");
        QTest::newRow("everything") << QByteArray(R"({"sandbox_id":"sbx_0123456789abcdef01234567","command":"ls -la",
            "timeout_ms":600000,"ratio":0.5,"mode":"direct","background":true,"paths":["a","bc"],
            "env":{"A":"1"},"nullable":null,"nested":{"a":3}})");
        QTest::newRow("integer as 1.0") << QByteArray(R"({"sandbox_id":"sbx_0123456789abcdef01234567","command":"x","timeout_ms":5.0})");
        QTest::newRow("code points") << QByteArray(u8R"({"sandbox_id":"sbx_0123456789abcdef01234567","command":"😀😀😀😀😀😀😀😀😀😀"})");
    }
    void conforming()
    {
        QFETCH(QByteArray, args);
        const QJsonObject value = QJsonDocument::fromJson(args).object();
        QVERIFY(!value.isEmpty());
        QCOMPARE(SchemaValidator::validate(parse(kSchema), value), QString());
    }

    void violations_data()
    {
        QTest::addColumn<QByteArray>("args");
        QTest::addColumn<QString>("message");
        const QByteArray base = R"("sandbox_id":"sbx_0123456789abcdef01234567","command":"ls")";
        QTest::newRow("required") << QByteArray(R"({"command":"ls"})") << R"(invalid argument "sandbox_id": is required)";
        QTest::newRow("type string") << QByteArray(R"({"sandbox_id":5,"command":"ls"})")
                                     << R"(invalid argument "sandbox_id": must be a string, got an integer)";
        QTest::newRow("pattern") << QByteArray(R"({"sandbox_id":"sbx_1","command":"ls"})")
                                 << R"(invalid argument "sandbox_id": must match the pattern ^sbx_[0-9a-f]{24}$)";
        QTest::newRow("minLength") << QByteArray(R"({"sandbox_id":"sbx_0123456789abcdef01234567","command":""})")
                                   << R"(invalid argument "command": must not be empty)";
        QTest::newRow("maxLength") << QByteArray(R"({"sandbox_id":"sbx_0123456789abcdef01234567","command":"01234567890"})")
                                   << R"(invalid argument "command": must be at most 10 characters long, got 11)";
        QTest::newRow("integer") << "{" + base + R"(,"timeout_ms":1.5})" << R"(invalid argument "timeout_ms": must be an integer, got a number)";
        QTest::newRow("integer from string") << "{" + base + R"(,"timeout_ms":"5"})"
                                             << R"(invalid argument "timeout_ms": must be an integer, got a string)";
        QTest::newRow("minimum") << "{" + base + R"(,"timeout_ms":0})" << R"(invalid argument "timeout_ms": must be at least 1, got 0)";
        QTest::newRow("maximum") << "{" + base + R"(,"timeout_ms":600001})"
                                 << R"(invalid argument "timeout_ms": must be at most 600000, got 600001)";
        QTest::newRow("exclusiveMinimum") << "{" + base + R"(,"ratio":0})" << R"(invalid argument "ratio": must be greater than 0, got 0)";
        QTest::newRow("exclusiveMaximum") << "{" + base + R"(,"ratio":1})" << R"(invalid argument "ratio": must be less than 1, got 1)";
        QTest::newRow("number") << "{" + base + R"(,"ratio":true})" << R"(invalid argument "ratio": must be a number, got a boolean)";
        QTest::newRow("enum") << "{" + base + R"(,"mode":"copy"})"
                              << R"(invalid argument "mode": must be one of "clone", "direct", got "copy")";
        QTest::newRow("boolean") << "{" + base + R"(,"background":"true"})"
                                 << R"(invalid argument "background": must be a boolean, got a string)";
        QTest::newRow("array type") << "{" + base + R"(,"paths":"a"})" << R"(invalid argument "paths": must be an array, got a string)";
        QTest::newRow("minItems") << "{" + base + R"(,"paths":[]})" << R"(invalid argument "paths": must have at least 1 items)";
        QTest::newRow("maxItems") << "{" + base + R"(,"paths":["a","b","c"]})"
                                  << R"(invalid argument "paths": must have at most 2 items, got 3)";
        QTest::newRow("items") << "{" + base + R"(,"paths":["a","toolong"]})"
                               << R"(invalid argument "paths[1]": must be at most 5 characters long, got 7)";
        QTest::newRow("additionalProperties false") << "{" + base + R"(,"cwd":"/"})"
                                                    << R"(invalid argument "cwd": unknown field (allowed: background, command, env, mode, nested, nullable, paths, ratio, sandbox_id, timeout_ms))";
        QTest::newRow("additionalProperties schema") << "{" + base + R"(,"env":{"A":1}})"
                                                     << R"(invalid argument "env.A": must be a string, got an integer)";
        QTest::newRow("type list") << "{" + base + R"(,"nullable":3})"
                                   << R"(invalid argument "nullable": must be a string or a null, got an integer)";
        QTest::newRow("nested required") << "{" + base + R"(,"nested":{}})" << R"(invalid argument "nested.a": is required)";
        QTest::newRow("nested unknown") << "{" + base + R"(,"nested":{"a":1,"b":2})" + "}"
                                        << R"(invalid argument "nested.b": unknown field (allowed: a))";
    }
    void violations()
    {
        QFETCH(QByteArray, args);
        QFETCH(QString, message);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(args, &err);
        QVERIFY2(err.error == QJsonParseError::NoError, args.constData());
        QCOMPARE(SchemaValidator::validate(parse(kSchema), doc.object()), message);
    }

    void noArgumentTool()
    {
        const QJsonObject schema = parse(R"({"type":"object","additionalProperties":false})");
        QCOMPARE(SchemaValidator::validate(schema, QJsonObject()), QString());
        QCOMPARE(SchemaValidator::validate(schema, QJsonObject{{"x", 1}}),
                 QStringLiteral("invalid argument \"x\": unknown field (this tool takes no arguments)"));
    }

    void rootMustBeObject()
    {
        QCOMPARE(SchemaValidator::validate(parse(R"({"type":"object"})"), QJsonValue(QJsonArray{1})),
                 QStringLiteral("invalid arguments: must be an object, got an array"));
    }

    void unknownKeywordsAreIgnored()
    {
        const QJsonObject schema = parse(R"({"type":"object","properties":{"a":{"type":"string","format":"uri","description":"d"}}})");
        QCOMPARE(SchemaValidator::validate(schema, QJsonObject{{"a", "x"}, {"extra", 1}}), QString());
    }
};

QTEST_GUILESS_MAIN(TestSchemaValidator)
#include "tst_schema_validator.moc"
