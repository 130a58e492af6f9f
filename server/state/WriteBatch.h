#pragma once

namespace chat2sbx {

class Database;

// Groups the writes made while it lives into one transaction: one commit instead of one per
// statement (start-up reconciliation of many records). Inside a transaction already open it does
// nothing. A write that fails inside it fails as it would alone; the others still commit.
class WriteBatch {
public:
    explicit WriteBatch(Database &db);
    ~WriteBatch();
    WriteBatch(const WriteBatch &) = delete;
    WriteBatch &operator=(const WriteBatch &) = delete;

private:
    // Outlives this: a batch is a local of the database's user.
    Database &m_db;
    bool m_began = false;
};

} // namespace chat2sbx
