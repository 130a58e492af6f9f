#include "tray/Autostart.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace chat2sbx::ui::Autostart {

namespace {
// Desktop Entry spec: quote the program, escaping ", `, $ and \ inside the quotes.
QString quotedExec(const QString &path)
{
    QString out;
    for (const QChar c : path) {
        if (c == QLatin1Char('"') || c == QLatin1Char('`') || c == QLatin1Char('$') || c == QLatin1Char('\\'))
            out += QLatin1Char('\\');
        out += c;
    }
    // '%' is a field code in Exec; a literal one is written twice.
    out.replace(QLatin1Char('%'), QStringLiteral("%%"));
    return QLatin1Char('"') + out + QLatin1Char('"');
}
} // namespace

QString entryPath()
{
    QString base = qEnvironmentVariable("XDG_CONFIG_HOME");
    if (base.isEmpty() || QDir::isRelativePath(base))
        base = QDir::homePath() + QStringLiteral("/.config");
    return base + QStringLiteral("/autostart/chat2sbx.desktop");
}

bool isEnabled()
{
    return QFileInfo::exists(entryPath());
}

QString entryText(const QString &executable)
{
    return QStringLiteral("[Desktop Entry]\n"
                          "Type=Application\n"
                          "Name=chat2sbx\n"
                          "Comment=Tray and MCP server for disposable Docker Sandboxes\n"
                          "Exec=%1 tray\n"
                          "Icon=chat2sbx\n"
                          "Terminal=false\n"
                          "X-GNOME-Autostart-enabled=true\n")
        .arg(quotedExec(executable));
}

bool setEnabled(bool enabled, const QString &executable, QString &error)
{
    const QString path = entryPath();
    if (!enabled) {
        if (QFileInfo::exists(path) && !QFile::remove(path)) {
            error = QStringLiteral("could not remove %1").arg(path);
            return false;
        }
        return true;
    }
    if (!QDir().mkpath(QFileInfo(path).path())) {
        error = QStringLiteral("could not create %1").arg(QFileInfo(path).path());
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(entryText(executable).toUtf8()) < 0 || !file.commit()) {
        error = QStringLiteral("could not write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace chat2sbx::ui::Autostart
