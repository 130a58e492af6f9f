#pragma once

#include <QString>

#include <optional>

namespace chat2sbx {

class Database;

// Small named values the server keeps across restarts (the settings table). Every write is
// committed before it returns.
class SettingsRepository {
public:
    explicit SettingsRepository(Database &db) : m_db(db) {}

    std::optional<QString> value(const QString &key) const;
    bool setValue(const QString &key, const QString &value, qint64 nowMs, QString &error);

private:
    Database &m_db;
};

} // namespace chat2sbx
