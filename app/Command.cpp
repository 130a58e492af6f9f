#include "Command.h"

#include "OwnedVerb.h"

#include "core/LogText.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace chat2sbx::app {

namespace {
QList<CommandSpec> &registry()
{
    static QList<CommandSpec> list;
    return list;
}
} // namespace

bool registerCommand(const CommandSpec &spec)
{
    CommandSpec registered = spec;
    if (!registered.run && registered.act) {
        const QString name = registered.name;
        registered.run = [name](CommandContext &ctx) { return runOwnedVerb(ctx, name); };
    }
    registry().append(registered);
    return true;
}

const CommandSpec *findCommand(const QString &name)
{
    for (const CommandSpec &c : registry())
        if (c.name == name)
            return &c;
    return nullptr;
}

const QList<CommandSpec> &commands()
{
    return registry();
}

QString CommandContext::currentDirectory() const
{
    return workingDirectory.isEmpty() ? QDir::currentPath() : workingDirectory;
}

void CommandContext::print(const QString &text) const
{
    writeOut(terminalSafe(text));
}

void CommandContext::writeOut(const QString &text) const
{
    if (sink)
        return sink(text.endsWith(QLatin1Char('\n')) ? text.toUtf8() : (text + QLatin1Char('\n')).toUtf8(), false);
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
    if (!text.endsWith(QLatin1Char('\n')))
        std::fputc('\n', stdout);
    std::fflush(stdout);
}

void CommandContext::printJson(const QJsonValue &value) const
{
    QJsonDocument doc;
    if (value.isArray())
        doc = QJsonDocument(value.toArray());
    else
        doc = QJsonDocument(value.toObject());
    writeOut(jsonTerminalSafe(QString::fromUtf8(doc.toJson(QJsonDocument::Indented))));
}

void logLine(const QString &text)
{
    const QByteArray b = (text + QLatin1Char('\n')).toUtf8();
    std::fwrite(b.constData(), 1, static_cast<size_t>(b.size()), stderr);
    std::fflush(stderr);
}

int CommandContext::fail(const QString &message) const
{
    const QByteArray bytes = (QStringLiteral("chat2sbx: ") + terminalSafe(message.trimmed()) + QLatin1Char('\n')).toUtf8();
    if (sink) {
        sink(bytes, true);
        return 1;
    }
    std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stderr);
    std::fflush(stderr);
    return 1;
}

int CommandContext::usage(const QString &message) const
{
    fail(message);
    return 2;
}

} // namespace chat2sbx::app
