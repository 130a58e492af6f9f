#include "config/ConfigFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace chat2sbx {

namespace {
constexpr qint64 kMaxConfigBytes = 1 << 20;
}

bool ConfigFile::read(const QString &configPath, QJsonObject &root, QString &error)
{
    root = {};
    QFile in(configPath);
    if (!in.exists())
        return true;
    if (in.size() > kMaxConfigBytes || !in.open(QIODevice::ReadOnly)) {
        error = QStringLiteral("cannot read %1").arg(configPath);
        return false;
    }
    const QByteArray text = in.readAll();
    if (text.trimmed().isEmpty())
        return true;
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        error = QStringLiteral("%1 is not a JSON object (%2): fix it first, nothing was changed")
                    .arg(configPath, parse.error != QJsonParseError::NoError ? parse.errorString() : QStringLiteral("not an object"));
        return false;
    }
    root = doc.object();
    return true;
}

bool ConfigFile::write(const QString &configPath, const QJsonObject &root, QString &error)
{
    if (!QDir().mkpath(QFileInfo(configPath).path())) {
        error = QStringLiteral("cannot make %1").arg(QFileInfo(configPath).path());
        return false;
    }
    QSaveFile out(configPath);
    if (!out.open(QIODevice::WriteOnly)) {
        error = QStringLiteral("cannot write %1: %2").arg(configPath, out.errorString());
        return false;
    }
    out.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    out.write(QJsonDocument(root).toJson(QJsonDocument::Indented));
    if (!out.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(configPath, out.errorString());
        return false;
    }
    return true;
}

bool ConfigFile::appendToList(const QString &configPath, const QString &key, const QString &value, QString &error)
{
    QJsonObject root;
    if (!read(configPath, root, error))
        return false;
    const QJsonValue current = root.value(key);
    if (!current.isUndefined() && !current.isArray()) {
        error = QStringLiteral("%1 in %2 is not a list: fix it first, nothing was changed").arg(key, configPath);
        return false;
    }
    QJsonArray list = current.toArray();
    if (list.contains(value))
        return true;
    list.append(value);
    root.insert(key, list);
    return write(configPath, root, error);
}

bool ConfigFile::setString(const QString &configPath, const QString &key, const QString &value, QString &error)
{
    QJsonObject root;
    if (!read(configPath, root, error))
        return false;
    if (root.value(key) == QJsonValue(value))
        return true;
    root.insert(key, value);
    return write(configPath, root, error);
}

} // namespace chat2sbx
