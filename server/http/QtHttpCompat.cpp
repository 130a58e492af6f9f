#include "http/QtHttpCompat.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)
#include <QHttpHeaders>
#endif

namespace chat2sbx::qthttp {

namespace {
QPointer<QTcpSocket> &readingSocket()
{
    static QPointer<QTcpSocket> socket;   // the event loop's thread only, like every QtHttpServer call
    return socket;
}
} // namespace

void setReadingSocket(QTcpSocket *socket)
{
    readingSocket() = socket;
}

#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)

HeaderList requestHeaders(const QHttpServerRequest &request)
{
    const QHttpHeaders headers = request.headers();
    HeaderList list;
    list.reserve(headers.size());
    for (qsizetype i = 0; i < headers.size(); ++i)
    {
        const QLatin1StringView name = headers.nameAt(i);
        list.append({QByteArray(name.data(), name.size()), headers.valueAt(i).toByteArray()});
    }
    return list;
}

void route(QHttpServer &http, const QString &path, Handler handler)
{
    http.route(path, [handler = std::move(handler)](const QHttpServerRequest &request, QHttpServerResponder &responder) {
        handler(request, std::move(responder));
    });
}

void setMissingHandler(QHttpServer &http, QObject *context, Handler handler)
{
    http.setMissingHandler(context, [handler = std::move(handler)](const QHttpServerRequest &request,
                                                                    QHttpServerResponder &responder) {
        handler(request, std::move(responder));
    });
}

Connection connectionOf(QHttpServerResponder &)
{
    // QtHttpServer 6.8 makes each connection's socket a child of the stream that reads it.
    QTcpSocket *socket = readingSocket();
    return Connection{socket, socket ? socket->parent() : nullptr};
}

void release(std::unique_ptr<QHttpServerResponder> responder, const QPointer<QObject> &owner)
{
    if (!responder)
        return;
    if (!owner) {
        (void)responder.release();   // its stream is gone: destroying it would call into freed memory
        return;
    }
    // The timer drops this functor without calling it when the owner goes first; by then the
    // QPointer reads null, so the responder is leaked instead of destroyed.
    struct Pending {
        std::unique_ptr<QHttpServerResponder> responder;
        QPointer<QObject> owner;
        ~Pending()
        {
            if (!owner)
                (void)responder.release();
        }
    };
    auto pending = std::make_shared<Pending>();
    pending->responder = std::move(responder);
    pending->owner = owner;
    QTimer::singleShot(0, owner.data(), [pending] { pending->responder.reset(); });
}

void write(QHttpServerResponder &responder, int status, const HeaderList &headers, const QByteArray &body)
{
    QHttpHeaders h;
    h.reserve(headers.size());
    for (const auto &pair : headers)
        h.append(pair.first, pair.second);
    responder.write(body, h, static_cast<QHttpServerResponder::StatusCode>(status));   // adds Content-Length
}

#else

HeaderList requestHeaders(const QHttpServerRequest &request)
{
    return request.headers();
}

void route(QHttpServer &http, const QString &path, Handler handler)
{
    http.route(path, [handler = std::move(handler)](const QHttpServerRequest &request, QHttpServerResponder &&responder) {
        handler(request, std::move(responder));
    });
}

void setMissingHandler(QHttpServer &http, QObject *, Handler handler)
{
    http.setMissingHandler([handler = std::move(handler)](const QHttpServerRequest &request,
                                                          QHttpServerResponder &&responder) {
        handler(request, std::move(responder));
    });
}

Connection connectionOf(QHttpServerResponder &responder)
{
    return Connection{responder.socket(), nullptr};
}

void release(std::unique_ptr<QHttpServerResponder> responder, const QPointer<QObject> &)
{
    responder.reset();   // a 6.4 responder's destructor touches nothing
}

void write(QHttpServerResponder &responder, int status, const HeaderList &headers, const QByteArray &body)
{
    responder.writeStatusLine(static_cast<QHttpServerResponder::StatusCode>(status));
    for (const auto &h : headers)
        responder.writeHeader(h.first, h.second);
    responder.writeHeader(QByteArrayLiteral("Content-Length"), QByteArray::number(body.size()));
    responder.writeBody(body.constData(), body.size());
}

#endif

} // namespace chat2sbx::qthttp
