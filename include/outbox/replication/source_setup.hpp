#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/replication/pg_connection.hpp"
#include "outbox/replication/slot_port.hpp"
#include "outbox/replication/source_state.hpp"

namespace outbox::replication {

// Validates (and, when allowed, creates) what the router needs on the PostgreSQL side, on the
// replication connection itself: wal_level, the outbox tables and their configured columns,
// the publication, and in check mode the slot. In apply mode the slot is the core's to decide
// (pipeline::SlotStart): this class looks it up and creates it when asked, after everything a
// new slot depends on exists.
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

    // Returns false in check mode when any check failed. In apply mode the slot comes next,
    // through look_up_slot() and create_slot().
    bool run(SourceState& state);

    // The slot, checked as one the router can stream from; nothing when there is none.
    std::optional<Lsn> look_up_slot();
    SlotPort::Creation create_slot();

private:
    void identify(SourceState& state);
    void check_wal_level();
    void check_tables();
    void check_partitioned(const std::string& table);
    bool publish_via_root() const;
    void ensure_publication(SourceState& state);
    void check_slot(SourceState& state);
    std::string slot_query() const;
    std::optional<Lsn> checked_slot(const PgResult& result);
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
    SourceState* state_ = nullptr;
    bool ok_ = true;
    int server_version_ = 0;
    bool in_recovery_ = false;
    std::vector<std::string> partitioned_tables_;  // outbox tables that are partitioned (qualified)
};

}  // namespace outbox::replication
