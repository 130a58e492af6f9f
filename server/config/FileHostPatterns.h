#pragma once

#include <QString>
#include <QStringList>

namespace chat2sbx {

// The hosts import_file may download from (config importFileHosts), matched on whole DNS labels:
//   "files.example.com"                   that host, port 443 ("host:port" for another port)
//   "*.oaiusercontent.com"                any host one or more labels below oaiusercontent.com
//   "oaisdmntpr*.blob.core.windows.net"   one label that starts with "oaisdmntpr" (and, with text
//                                         after the '*', ends with it), then exactly the rest:
//                                         oaisdmntprwestus.blob.core.windows.net, not
//                                         evil.blob.core.windows.net nor a.oaisdmntprx.blob.core.windows.net
// The '*' stands only in the first label, once, and what follows it has at least two labels (so no
// "*.com" and no "*"). Hosts and patterns compare in lower case, IDNs in their ASCII form.
class FileHostPatterns {
public:
    // The default: the two shapes ChatGPT's attachment links have been seen in, and nothing broader.
    static QStringList defaults();

    // Why `pattern` is not a valid host pattern; empty when it is.
    static QString problem(const QString &pattern);

    // Whether `host` (as in a URL, ASCII) on `port` matches one of `patterns`; invalid ones match nothing.
    static bool allows(const QStringList &patterns, const QString &host, int port);

private:
    static bool matches(const QString &pattern, const QString &host, int port);
};

} // namespace chat2sbx
