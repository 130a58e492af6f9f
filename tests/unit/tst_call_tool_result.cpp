// The CallToolResult and JSON-RPC message are written from already serialized parts (JsonText);
// every byte must be what serializing the whole object with QJsonDocument gives.
#include "core/JsonRpc.h"
#include "core/JsonText.h"
#include "mcp/ToolCallRunner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace chat2sbx;

namespace {

// The CallToolResult as it was built before: objects, serialized once at the end.
QJsonObject wholeObject(const ToolResult &result, bool hasOutputSchema)
{
    QJsonObject structured = result.structuredObject();
    QString text;
    if (result.isError) {
        text = result.message;
        if (hasOutputSchema && !structured.isEmpty())
            text += QStringLiteral("\n") + QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Compact));
        structured.insert(QStringLiteral("error"), result.message);
    } else {
        text = QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Compact));
    }
    QJsonArray content{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}}};
    for (const QJsonValue &block : result.extraContent)
        content.append(block);
    QJsonObject out{{QStringLiteral("content"), content}, {QStringLiteral("isError"), result.isError}};
    if (!(result.isError && hasOutputSchema))
        out.insert(QStringLiteral("structuredContent"), structured);
    return out;
}

QString everyAsciiCharacter()
{
    QString s;
    for (char16_t c = 0; c < 0x80; ++c)
        s.append(QChar(c));
    return s;
}

} // namespace

class TestCallToolResult : public QObject {
    Q_OBJECT

private slots:
    void stringsAreEscapedAsQtDoes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("plain") << QStringLiteral("hello world");
        QTest::newRow("every ascii character") << everyAsciiCharacter();
        QTest::newRow("quotes and backslashes") << QStringLiteral("\"a\\\"b\\\\\"");
        QTest::newRow("controls at the ends") << QStringLiteral("\x01x\x1f");
        QTest::newRow("non-ascii") << QStringLiteral("é ü 日本 \u2028 \u2029 \U0001F600 /slash/ <b>&");
        QTest::newRow("json text") << QStringLiteral("{\"a\":\"b\\\"c\",\"d\":[1,2.5,null,true],\"e\":\"\\n\"}");
    }
    void stringsAreEscapedAsQtDoes()
    {
        QFETCH(QString, text);
        QByteArray mine;
        json::appendString(mine, text.toUtf8());
        const QByteArray qt = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
        QCOMPARE(mine, qt.mid(1, qt.size() - 2));
        QCOMPARE(QJsonDocument::fromJson('[' + mine + ']').array().at(0).toString(), text);
    }

    void valuesAreWrittenAsQtDoes()
    {
        const QJsonArray values{QJsonValue(), true, false, 0, -7, 4.5, 9007199254740991.0, QStringLiteral("s\"\n"),
                                QJsonArray{1, QStringLiteral("x")}, QJsonObject{{QStringLiteral("b"), 1}, {QStringLiteral("a"), 2}}};
        for (const QJsonValue &v : values) {
            QByteArray mine;
            json::appendValue(mine, v);
            const QByteArray qt = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
            QCOMPARE(mine, qt.mid(1, qt.size() - 2));
        }
    }

    void resultIsTheWholeObjectSerialized_data()
    {
        QTest::addColumn<bool>("hasOutputSchema");
        QTest::addColumn<bool>("asText");   // the tool gave its structured result already serialized
        QTest::newRow("object") << false << false;
        QTest::newRow("object, output schema") << true << false;
        QTest::newRow("serialized") << false << true;
        QTest::newRow("serialized, output schema") << true << true;
    }
    void resultIsTheWholeObjectSerialized()
    {
        QFETCH(bool, hasOutputSchema);
        QFETCH(bool, asText);
        const QJsonObject structured{{QStringLiteral("sandboxes"), QJsonArray{QJsonObject{{QStringLiteral("id"), QStringLiteral("sbx_\"1\"")},
                                                                                         {QStringLiteral("note"), QStringLiteral("a\nb\té")}}}},
                                     {QStringLiteral("max"), QStringLiteral("unlimited")},
                                     {QStringLiteral("n"), 2.5}};
        const QJsonArray image{QJsonObject{{QStringLiteral("type"), QStringLiteral("image")}, {QStringLiteral("data"), QStringLiteral("AAAA")},
                                           {QStringLiteral("mimeType"), QStringLiteral("image/png")}}};
        QList<ToolResult> results{asText ? ToolResult::okJson(json::compact(structured)) : ToolResult::ok(structured),
                                  ToolResult::ok({}),
                                  ToolResult::error(QStringLiteral("it \"failed\"\n")),
                                  ToolResult::error(QStringLiteral("no such file"), structured)};
        if (!asText)
            results.append(ToolResult::ok(structured, image));
        for (const ToolResult &r : results) {
            const QByteArray mine = ToolCallRunner::callToolResultJson(r, hasOutputSchema);
            QCOMPARE(mine, json::compact(wholeObject(r, hasOutputSchema)));
            for (const QJsonValue &id : {QJsonValue(7), QJsonValue(QStringLiteral("req-\"1\"")), QJsonValue(-9007199254740991.0)})
                QCOMPARE(jsonrpc::serializeResult(id, mine), jsonrpc::serialize(jsonrpc::result(id, wholeObject(r, hasOutputSchema))));
        }
    }

    // With a card and payload fields, in both text forms, the bytes are still what QJsonDocument writes.
    void laidOutResultIsTheWholeObjectSerialized_data()
    {
        QTest::addColumn<int>("form");
        QTest::addColumn<bool>("asText");
        QTest::newRow("full") << int(ResultTextForm::Full) << false;
        QTest::newRow("full, serialized") << int(ResultTextForm::Full) << true;
        QTest::newRow("compact") << int(ResultTextForm::Compact) << false;
        QTest::newRow("compact, serialized") << int(ResultTextForm::Compact) << true;
    }
    void laidOutResultIsTheWholeObjectSerialized()
    {
        QFETCH(int, form);
        QFETCH(bool, asText);
        const QJsonObject structured{{QStringLiteral("output"), QStringLiteral("é \"x\"\n").repeated(100)},
                                     {QStringLiteral("status"), QStringLiteral("exited")},
                                     {QStringLiteral("exit_code"), 3}};
        const QJsonArray image{QJsonObject{{QStringLiteral("type"), QStringLiteral("image")}, {QStringLiteral("data"), QStringLiteral("AAAA")}}};
        const ToolResult r = asText ? ToolResult::okJson(json::compact(structured)) : ToolResult::ok(structured, image);
        ToolCallRunner::ResultLayout layout;
        layout.hasOutputSchema = true;
        layout.payloadFields = {QStringLiteral("output")};
        layout.form = ResultTextForm(form);
        layout.cardTool = QStringLiteral("bash");
        layout.cardView = ToolCardView::Terminal;
        const QString text = QString::fromUtf8(resultText(structured, layout.payloadFields, layout.form));
        QJsonArray content{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}}};
        for (const QJsonValue &block : r.extraContent)
            content.append(block);
        const QJsonObject whole{{QStringLiteral("_meta"), QJsonObject{{QStringLiteral("chat2sbx/tool"), QStringLiteral("bash")},
                                                                      {QStringLiteral("chat2sbx/view"), QStringLiteral("terminal")}}},
                                {QStringLiteral("content"), content},
                                {QStringLiteral("isError"), false},
                                {QStringLiteral("structuredContent"), structured}};
        QCOMPARE(ToolCallRunner::callToolResultJson(r, layout), json::compact(whole));
        // The payload reaches the text at most once, and raw only in the full form.
        const int raw = text.count(structured.value(QStringLiteral("output")).toString());
        QCOMPARE(raw, form == int(ResultTextForm::Full) ? 1 : 0);
    }

    void annotationsReachASerializedResult()
    {
        ToolResult seen;
        ToolResponder responder([&](const ToolResult &r) { seen = r; });
        responder.annotate(QStringLiteral("woke"), true);
        responder.okJson("{\"a\":1}");
        QCOMPARE(seen.structuredObject(), (QJsonObject{{QStringLiteral("a"), 1}, {QStringLiteral("woke"), true}}));
        QCOMPARE(ToolCallRunner::callToolResultJson(seen), json::compact(wholeObject(seen, false)));
    }
};

QTEST_GUILESS_MAIN(TestCallToolResult)
#include "tst_call_tool_result.moc"
