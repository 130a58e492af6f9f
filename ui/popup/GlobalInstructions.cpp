#include "popup/GlobalInstructions.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace chat2sbx::ui {

bool ensureGlobalInstructions(const QString &path, QString &error)
{
    if (QFileInfo::exists(path))
        return true;
    QFile example(QStringLiteral(":/AGENTS.md.example"));
    if (!example.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("the bundled AGENTS.md example is missing");
        return false;
    }
    if (!QDir().mkpath(QFileInfo(path).path())) {
        error = QStringLiteral("could not create %1").arg(QFileInfo(path).path());
        return false;
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(example.readAll()) < 0 || !out.commit()) {
        error = QStringLiteral("could not write %1: %2").arg(path, out.errorString());
        return false;
    }
    return true;
}

} // namespace chat2sbx::ui
