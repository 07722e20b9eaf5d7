#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/replication/pg_connection.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::replication {

struct SystemIdentity {
    std::string system_id;
    int timeline = 0;
    Lsn wal_position = 0;
    std::string database;
};

// What start-up learned about the source, for the resume log line and the stream.
struct SourceState {
    SystemIdentity identity;
    int server_version = 0;
    bool in_recovery = false;  // a hot standby (logical decoding there: PostgreSQL 16 and later)
    int wal_sender_timeout_ms = 60000;  // 0 means disabled
    bool slot_created = false;
    Lsn slot_confirmed_lsn = 0;
    // Set once this process has seen them: if either disappears later, events may be gone,
    // and re-creating it silently would hide that.
    bool slot_seen = false;
    bool publication_seen = false;
    // Set when this connection's server is not on the timeline the previous one was: where that
    // timeline ended in this server's history (0 when it is not an ancestor of this timeline).
    std::optional<Lsn> previous_timeline_end;
    int previous_timeline = 0;
    std::string previous_system_id;  // of the previous connection's server
};

// Validates (and, when allowed, creates) what the router needs on the PostgreSQL side, on the
// replication connection itself: wal_level, the outbox tables and their configured columns,
// the publication and the slot. Tables are checked first and the slot created last, so a new
// slot starts after everything it depends on exists.
class SourceSetup {
public:
    enum class Mode {
        apply,  // create what is missing; throw DefiniteError on the first problem
        check,  // create nothing; report every check through `report`
    };
    // One line per check: ok or not, and a human-readable description.
    using Reporter = std::function<void(bool ok, const std::string& line)>;
    // What is allowed but unsafe (a failover that could lose or invent events); logged in apply mode.
    using Warner = std::function<void(const std::string& line)>;

    SourceSetup(const config::Config& config, PgConnection& connection, Mode mode, Reporter report = {},
                Warner warn = {});

    // Returns false in check mode when any check failed.
    bool run(SourceState& state);

private:
    void identify(SourceState& state);
    void check_wal_level();
    void check_tables();
    void check_partitioned(const std::string& table);
    bool publish_via_root() const;
    void ensure_publication(SourceState& state);
    void ensure_slot(SourceState& state);
    void create_slot(const std::string& lookup);
    bool slot_failover() const;
    void check_failover(bool slot_has_failover);
    void check_columns_published();
    std::string invalidation(const std::string& reason, Lsn confirmed) const;
    void fail(const std::string& message);
    void pass(const std::string& message);
    void warn(const std::string& message);

    const config::Config& config_;
    PgConnection& conn_;
    Mode mode_;
    Reporter report_;
    Warner warn_;
    bool ok_ = true;
    int server_version_ = 0;
    bool in_recovery_ = false;
    std::vector<std::string> partitioned_tables_;  // outbox tables that are partitioned (qualified)
};

}  // namespace outbox::replication
