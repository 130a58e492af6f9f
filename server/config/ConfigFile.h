#pragma once

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

// Edits of ~/.chat2sbx/config.json that the user makes through the tray (a folder added in the
// first-run guide): the file is read, changed in one key and written whole (a temporary file, then
// renamed; readable by the user only), every other key kept as it was. A file that is not a JSON
// object is never overwritten: the error says to fix it.
class ConfigFile {
public:
    // Appends `value` to the string list `key` (made when absent); nothing when it is there already.
    static bool appendToList(const QString &configPath, const QString &key, const QString &value, QString &error);
    // Sets the string `key` to `value`.
    static bool setString(const QString &configPath, const QString &key, const QString &value, QString &error);

private:
    static bool read(const QString &configPath, QJsonObject &root, QString &error);
    static bool write(const QString &configPath, const QJsonObject &root, QString &error);
};

} // namespace chat2sbx
