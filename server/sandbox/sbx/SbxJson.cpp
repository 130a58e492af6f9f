#include "sandbox/sbx/SbxJson.h"

namespace chat2sbx {

QJsonDocument parseSbxJson(const QByteArray &stdoutBytes)
{
    qsizetype lineStart = 0;
    while (lineStart < stdoutBytes.size()) {
        qsizetype i = lineStart;
        while (i < stdoutBytes.size() && (stdoutBytes.at(i) == ' ' || stdoutBytes.at(i) == '\t' || stdoutBytes.at(i) == '\r'))
            ++i;
        if (i < stdoutBytes.size() && (stdoutBytes.at(i) == '{' || stdoutBytes.at(i) == '['))
            return QJsonDocument::fromJson(stdoutBytes.mid(i));
        const qsizetype nl = stdoutBytes.indexOf('\n', lineStart);
        if (nl < 0)
            break;
        lineStart = nl + 1;
    }
    return {};
}

} // namespace chat2sbx
