#pragma once

#include "mcp/Tool.h"

#include <QCryptographicHash>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <memory>

class QNetworkReply;

namespace chat2sbx {

class SandboxChannel;

// One import_file download streamed into the sandbox as it arrives: the reply is read a part at a
// time and each part is appended in the VM (upload_part) before the next is read, so the host holds
// at most a part or two of the file whatever its size; the file gets its name in the VM only when
// complete and its sha256 checked (upload_done), and a failure anywhere removes what was staged
// (upload_drop). Owned by the callbacks that reference it; answers the call exactly once.
class ImportStream : public std::enable_shared_from_this<ImportStream> {
public:
    struct Target {
        QPointer<SandboxChannel> channel;
        QString destination;   // as the helper resolves it
        QString shown;         // as the result shows it
        QString fileName;      // the attachment's name, for the result and the card
        QString mimeType;
    };
    struct Limits {
        QStringList allowedHosts;   // a redirect must stay on these (FileHostPatterns)
        qint64 maxBytes = 0;
    };

    // Bytes read from the reply and sent to the VM per request.
    static constexpr qint64 kPartBytes = 1024 * 1024;

    static void start(QNetworkReply *reply, Target target, Limits limits, ToolResponder responder,
                      const CancellationToken &cancellation);

private:
    ImportStream(QNetworkReply *reply, Target target, Limits limits, ToolResponder responder);
    void connectReply();
    void pump();
    void sendPart(const QByteArray &part);
    void finishUpload();
    void fail(const QString &reason);
    void dropStaged();   // removes what the VM staged, then answers with m_failure
    void abortLater();
    void refuse(const QString &reason);   // stops the download; pump() then fails with the reason
    bool httpFailed(int status);
    QString httpFailure(int status) const;

    QPointer<QNetworkReply> m_reply;
    Target m_target;
    Limits m_limits;
    ToolResponder m_responder;
    QString m_token;
    QString m_refusal;
    QString m_failure;   // the answer once the staged file is gone
    QByteArray m_errorBody;   // the first KiB of an error answer (the storage service's error code)
    qint64 m_sent = 0;
    bool m_started = false;   // the VM may have a staged file
    bool m_inFlight = false;
    bool m_downloaded = false;
    int m_redirects = 0;   // redirects followed
    bool m_done = false;
    QCryptographicHash m_hash{QCryptographicHash::Sha256};
};

} // namespace chat2sbx
