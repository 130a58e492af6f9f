#pragma once

#include <QByteArray>
#include <QHttpServerResponder>
#include <QList>
#include <QPair>

#include <QPointer>

#include <functional>
#include <memory>

class QHttpServer;
class QHttpServerRequest;
class QObject;
class QString;
class QTcpSocket;

namespace chat2sbx::qthttp {

// The one place that knows which QtHttpServer chat2sbx is built against. 6.4 (Debian 12, Ubuntu
// 24.04) and 6.8 (Debian 13; later Qt keeps 6.8's API) differ in:
// - the responder: 6.4 exposes its socket and writes a status line, headers and body piece by
//   piece; 6.8 hides the connection and writes a whole answer with write();
// - request headers: a list of pairs in 6.4, QHttpHeaders in 6.8;
// - the missing handler: takes the responder by rvalue in 6.4, by reference (with a context) in 6.8;
// - lifetime: a 6.4 responder holds a plain socket pointer and its destructor touches nothing; a 6.8
//   responder points into the connection's stream, tells the stream when it goes (which then
//   resumes reading the connection) and must never outlive it.
// 6.8 disconnects its reader from the socket's readyRead while a request is answered and connects
// it again after (behind every slot connected meanwhile); 6.4 connects it once.
constexpr bool kReaderReconnects = QT_VERSION >= QT_VERSION_CHECK(6, 8, 0);

using HeaderList = QList<QPair<QByteArray, QByteArray>>;
using Handler = std::function<void(const QHttpServerRequest &, QHttpServerResponder &&)>;

HeaderList requestHeaders(const QHttpServerRequest &request);
// A route taking every method, and the handler of requests no route takes. The handler gets the
// responder to keep (6.8 lends it by reference; a moved-out responder is still valid there).
void route(QHttpServer &http, const QString &path, Handler handler);
void setMissingHandler(QHttpServer &http, QObject *context, Handler handler);

// BoundedTcpServer says which connection QtHttpServer is about to read; a route handler runs inside
// that read, so the responder it gets answers on that connection (6.8 cannot tell us otherwise).
void setReadingSocket(QTcpSocket *socket);

// Where `responder` answers, valid inside the route handler only: the socket (null if unknown) and
// the object that must outlive the responder (6.4: nothing; 6.8: the connection's stream).
struct Connection {
    QTcpSocket *socket = nullptr;
    QObject *owner = nullptr;
};
Connection connectionOf(QHttpServerResponder &responder);

// Lets the responder go once the route handler has returned. 6.8 resumes reading the connection only
// then (a responder dropped inside the handler makes it read each later request twice), and when
// `owner` is gone the responder is leaked rather than let touch freed memory.
void release(std::unique_ptr<QHttpServerResponder> responder, const QPointer<QObject> &owner);

// Writes a whole answer; Content-Length is added here, Connection handling is QtHttpServer's.
void write(QHttpServerResponder &responder, int status, const HeaderList &headers, const QByteArray &body);

} // namespace chat2sbx::qthttp
