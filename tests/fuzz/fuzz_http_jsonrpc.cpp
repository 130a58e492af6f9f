// Bytes a client sends: the request head checks (RequestIntake) fed in arbitrary pieces, then the body
// as JSON-RPC (parse, id peek, message build and serialization). Nothing may crash, and a refusal
// must come with a status the server can send.
#include "http/RequestIntake.h"
#include "core/JsonRpc.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace chat2sbx;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    RequestIntake::Limits limits;
    limits.maxHeadBytes = 512;
    limits.maxBodyBytes = 1024;
    RequestIntake intake(limits);
    // The first byte picks the piece size, so splits across reads are explored too.
    const qsizetype piece = size ? (data[0] % 64) + 1 : 1;
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        const QByteArray chunk = bytes.mid(at, piece);
        if (const auto r = intake.onBytes(chunk.size(), intake.wantsBytes() ? chunk : QByteArray())) {
            if (r->status != 400 && r->status != 413 && r->status != 431)
                std::abort();
            if (r->message.isEmpty())
                std::abort();
            break;
        }
        if (intake.bytesSinceRequest() > intake.budget() + piece)
            std::abort();   // a connection buffered past its budget
    }
    (void)RequestIntake::checkHead(bytes, limits);

    const QJsonValue id = jsonrpc::peekId(bytes);
    if (!id.isUndefined() && !jsonrpc::isValidId(id))
        std::abort();
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    const QJsonObject message = doc.object();
    const QJsonValue messageId = message.value(QStringLiteral("id"));
    if (jsonrpc::isValidId(messageId)) {
        (void)jsonrpc::idKey(messageId);
        const QByteArray out = jsonrpc::serialize(jsonrpc::error(messageId, jsonrpc::InvalidRequest, QStringLiteral("x")));
        if (QJsonDocument::fromJson(out).object().value(QStringLiteral("id")) != messageId)
            std::abort();   // an answer must carry the request's id unchanged
    }
    return 0;
}
