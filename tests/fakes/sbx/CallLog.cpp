#include "CallLog.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace fakesbx {

void appendCall(const QString &logPath, const QStringList &args)
{
    QByteArray line = QJsonDocument(QJsonArray::fromStringList(args)).toJson(QJsonDocument::Compact);
    line.append('\n');
    const int fd = ::open(logPath.toLocal8Bit().constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        std::perror("fake sbx: cannot open calls.log");
        return;
    }
    const ssize_t written = ::write(fd, line.constData(), static_cast<size_t>(line.size()));
    if (written != static_cast<ssize_t>(line.size()))
        std::perror("fake sbx: cannot write calls.log");
    ::close(fd);
}

} // namespace fakesbx
