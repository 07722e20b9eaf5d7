#pragma once

#include <memory>
#include <string>

#include "pg_server.hpp"

namespace outbox::test {

// A primary and its physical standby of one fetched PostgreSQL major, the standby made from a
// copy of the stopped primary's data directory (the fetched binaries have no pg_basebackup):
// streaming from physical slot "standby1" with hot_standby_feedback on and, from 17 on,
// sync_replication_slots on. `database` holds the outbox (create_outbox_database).
class PgPair {
public:
    static constexpr const char* kStandbySlot = "standby1";

    PgPair(int major, const std::string& prefix);

    PgServer& primary() { return *primary_; }
    PgServer& standby() { return *standby_; }
    const std::string& database() const { return database_; }
    Sql primary_sql() const { return Sql(primary_->conninfo(database_)); }
    Sql standby_sql() const { return Sql(standby_->conninfo(database_)); }
    // Both hosts, primary first; libpq takes the one that accepts writes.
    std::string pair_conninfo() const;
    // The logical slot `slot` is on the standby, synchronized and persisted (17 and later).
    bool slot_synced_to_standby(const std::string& slot) const;

private:
    int major_;
    std::unique_ptr<PgServer> primary_;
    std::unique_ptr<PgServer> standby_;
    std::string database_;
};

}  // namespace outbox::test
