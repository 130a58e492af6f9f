// Another process holds the state database locked: the server's event loop
// keeps answering: a ping sent right behind a tool call whose write meets the lock answers at once
// (it used to wait out the 5 s busy timeout), the tool call itself answers within a bound, and
// everything works again once the lock goes.
#include "TestSupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTcpSocket>
#include <QtTest>

#include <memory>

using namespace chat2sbx;
using namespace chat2sbx::test;

namespace {

QList<QPair<QByteArray, QByteArray>> headers(const QByteArray &session = {})
{
    QList<QPair<QByteArray, QByteArray>> h{{"Content-Type", "application/json"},
                                           {"Accept", "application/json, text/event-stream"}};
    if (!session.isEmpty()) {
        h.append({QByteArray("Mcp-Session-Id"), session});
        h.append({QByteArray("MCP-Protocol-Version"), QByteArray("2025-06-18")});
    }
    return h;
}

QByteArray rawPost(quint16 port, const QByteArray &session, const QByteArray &body)
{
    return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port)
           + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: "
           + session + "\r\nMCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\nContent-Length: "
           + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

// The whole response (the server closes after it: Connection: close).
QByteArray readAll(QTcpSocket &socket, int timeoutMs)
{
    QByteArray in;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        in += socket.readAll();
        const qsizetype end = in.indexOf("\r\n\r\n");
        if (end >= 0) {
            const qsizetype cl = in.toLower().indexOf("content-length:");
            if (cl >= 0 && cl < end) {
                const qsizetype eol = in.indexOf("\r\n", cl);
                if (in.size() >= end + 4 + in.mid(cl + 15, eol - cl - 15).trimmed().toLongLong())
                    return in;
            }
        }
        if (socket.state() != QAbstractSocket::ConnectedState)
            return in + socket.readAll();
        socket.waitForReadyRead(20);
    }
    return in;
}

} // namespace

class TestLockedDatabase : public QObject {
    Q_OBJECT
private slots:
    void serverKeepsAnsweringWhileTheDatabaseIsLocked()
    {
        TestEnvironment env;
        ServerProcess server(env);
        QVERIFY(server.start());
        const HttpResult init = httpRequest("POST", env.mcpUrl(), headers(),
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lock","version":"1"}}})");
        QCOMPARE(init.status, 200);
        const QByteArray session = init.header("mcp-session-id");
        QVERIFY(!session.isEmpty());
        QCOMPARE(httpRequest("POST", env.mcpUrl(), headers(session), R"({"jsonrpc":"2.0","method":"notifications/initialized"})").status, 202);

        {
            // Another process writes: it holds SQLite's write lock (WAL readers are not blocked,
            // every writer waits for it).
            QSqlDatabase locker = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("locker"));
            locker.setDatabaseName(env.config().databasePath);
            QVERIFY(locker.open());
            QSqlQuery q(locker);
            QVERIFY2(q.exec(QStringLiteral("BEGIN IMMEDIATE")), qPrintable(q.lastError().text()));
            QVERIFY2(q.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS lock_probe (x INTEGER)")), qPrintable(q.lastError().text()));

            for (int round = 0; round < 3; ++round) {
                // A tool call (its audit row is a write) and, right behind it, a ping on another connection.
                QTcpSocket toolSocket, pingSocket;
                toolSocket.connectToHost(QStringLiteral("127.0.0.1"), env.port());
                pingSocket.connectToHost(QStringLiteral("127.0.0.1"), env.port());
                QVERIFY(toolSocket.waitForConnected(5000) && pingSocket.waitForConnected(5000));
                QElapsedTimer t;
                t.start();
                toolSocket.write(rawPost(env.port(), session,
                    R"({"jsonrpc":"2.0","id":50,"method":"tools/call","params":{"name":"sandbox_list","arguments":{}}})"));
                toolSocket.flush();
                pingSocket.write(rawPost(env.port(), session, R"({"jsonrpc":"2.0","id":51,"method":"ping"})"));
                pingSocket.flush();
                const QByteArray ping = readAll(pingSocket, 20000);
                const qint64 pingMs = t.elapsed();
                QVERIFY2(ping.startsWith("HTTP/1.1 200"), ping.constData());
                QVERIFY2(pingMs < 1000, qPrintable(QStringLiteral("ping took %1 ms behind a locked write").arg(pingMs)));
                const QByteArray tool = readAll(toolSocket, 20000);
                const qint64 toolMs = t.elapsed();
                QVERIFY2(tool.startsWith("HTTP/1.1 200"), tool.constData());
                QVERIFY2(toolMs < 3000, qPrintable(QStringLiteral("sandbox_list took %1 ms").arg(toolMs)));
            }
            q.exec(QStringLiteral("ROLLBACK"));
            q.finish();
            locker.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("locker"));

        // Lock gone: the same call succeeds.
        const HttpResult after = httpRequest("POST", env.mcpUrl(), headers(session),
            R"({"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"sandbox_list","arguments":{}}})");
        QCOMPARE(after.status, 200);
        QVERIFY2(!QJsonDocument::fromJson(after.body).object().value("result").toObject().value("isError").toBool(),
                 after.body.constData());
        QCOMPARE(server.terminate(), 0);
    }
};

QTEST_GUILESS_MAIN(TestLockedDatabase)
#include "tst_locked_database.moc"
