#include "outbox/replication/source_setup.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "outbox/config/outbox_columns.hpp"
#include "outbox/replication/failover_readiness.hpp"
#include "outbox/replication/timeline_history.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::replication {
namespace {

std::string value(const PgResult& result, int row, int column) {
    return PQgetisnull(result.get(), row, column) ? std::string() : PQgetvalue(result.get(), row, column);
}

}  // namespace

SourceSetup::SourceSetup(const config::Config& config, PgConnection& connection, Mode mode, Reporter report,
                         Warner warn)
    : config_(config), conn_(connection), mode_(mode), report_(std::move(report)), warn_(std::move(warn)) {}

void SourceSetup::fail(const std::string& message) {
    if (mode_ == Mode::apply) throw DefiniteError(message);
    ok_ = false;
    if (report_) report_(false, message);
}

void SourceSetup::pass(const std::string& message) {
    if (report_) report_(true, message);
}

void SourceSetup::warn(const std::string& message) {
    if (warn_) warn_(message);
    else if (mode_ == Mode::apply) log::warn(message);
    else pass(message);
}

bool SourceSetup::run(SourceState& state) {
    state_ = &state;
    identify(state);
    check_wal_level();
    check_tables();
    ensure_publication(state);
    if (mode_ == Mode::check) check_slot(state);
    return ok_;
}

void SourceSetup::identify(SourceState& state) {
    const auto result = conn_.exec("IDENTIFY_SYSTEM", "IDENTIFY_SYSTEM");
    if (PQntuples(result.get()) != 1 || PQnfields(result.get()) < 4)
        throw ProtocolError("postgres: IDENTIFY_SYSTEM returned an unexpected shape");
    state.previous_system_id = state.identity.system_id;
    state.previous_timeline = state.identity.timeline;
    state.identity.system_id = value(result, 0, 0);
    state.identity.timeline = std::stoi(value(result, 0, 1));
    state.identity.wal_position = parse_lsn(value(result, 0, 2)).value_or(0);
    state.identity.database = value(result, 0, 3);
    state.previous_timeline_end.reset();
    if (state.previous_system_id == state.identity.system_id && state.previous_timeline != 0 &&
        state.previous_timeline != state.identity.timeline) {
        // A server behind the timeline the router streamed from has no history of that timeline
        // (timeline 1 has no history file at all), so it cannot say whether what the router
        // handled is part of its WAL: an older copy of the cluster, not its successor.
        if (state.identity.timeline < state.previous_timeline)
            throw DefiniteError(
                "postgres: the server is on timeline " + std::to_string(state.identity.timeline) +
                ", but this router streamed from timeline " + std::to_string(state.previous_timeline) +
                " of the same cluster before: it is an older copy (a restore, or a standby that did not follow the "
                "promotion), whose WAL history cannot tell whether the events this router handled are part of it. "
                "Events past the slot's position on this server may be in Kafka although this server lost them; "
                "check them, then start the router again, which resumes from the slot");
        // A promoted standby: what the router read past the switch point came from another history.
        const auto history = conn_.exec("TIMELINE_HISTORY " + std::to_string(state.identity.timeline),
                                        "reading the history of timeline " + std::to_string(state.identity.timeline));
        if (PQntuples(history.get()) != 1 || PQnfields(history.get()) < 2)
            throw ProtocolError("postgres: TIMELINE_HISTORY returned an unexpected shape");
        state.previous_timeline_end = timeline_switch_point(value(history, 0, 1), state.previous_timeline).value_or(0);
    }
    state.server_version = server_version_ = conn_.server_version();
    state.in_recovery = in_recovery_ =
        value(conn_.exec("SELECT pg_catalog.pg_is_in_recovery()", "asking whether the server is a standby"), 0, 0) == "t";
    if (state.identity.database.empty())
        throw DefiniteError("postgres: the connection is not a database replication connection");

    const auto timeout = conn_.exec("SELECT setting FROM pg_settings WHERE name = 'wal_sender_timeout'",
                                    "reading wal_sender_timeout");
    if (PQntuples(timeout.get()) == 1) state.wal_sender_timeout_ms = std::stoi(value(timeout, 0, 0));
    pass("postgres: connected (PostgreSQL " + std::to_string(state.server_version / 10000) +
         (in_recovery_ ? ", a hot standby" : "") + ", database " + state.identity.database + ", system " +
         state.identity.system_id + ")");
}

void SourceSetup::check_wal_level() {
    const auto result = conn_.exec("SHOW wal_level", "SHOW wal_level");
    const std::string level = value(result, 0, 0);
    if (level != "logical")
        fail("postgres: wal_level is \"" + level + "\"; logical decoding needs wal_level = logical (restart required)");
    else
        pass("postgres: wal_level = logical");
}

void SourceSetup::check_tables() {
    partitioned_tables_.clear();
    for (const auto& table : config_.postgres.tables) {
        const auto result = conn_.exec(
            "SELECT a.attname, c.relkind FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
            "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = " +
                conn_.quote_literal(table.schema) + " AND c.relname = " + conn_.quote_literal(table.name) +
                " AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            "reading the columns of " + table.qualified());
        if (PQntuples(result.get()) == 0) {
            fail("postgres: outbox table " + table.qualified() + " does not exist (postgres.table.include.list)");
            continue;
        }
        if (value(result, 0, 1) == "p") check_partitioned(table.qualified());
        std::vector<std::string> columns;
        for (int row = 0; row < PQntuples(result.get()); ++row) columns.push_back(value(result, row, 0));
        const auto missing = config::missing_outbox_columns(columns, config_.outbox.for_table(table));
        if (missing.empty()) {
            pass("postgres: outbox table " + table.qualified() + " has the configured columns");
            continue;
        }
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
        fail("postgres: outbox table " + table.qualified() + " has no column " + list);
    }
}

// A partitioned table's rows are decoded under its partitions' names unless the publication
// publishes them via the partition root; the router only knows the configured name, so without
// that it would skip every row of the table and still confirm past it.
void SourceSetup::check_partitioned(const std::string& table) {
    partitioned_tables_.push_back(table);
    if (server_version_ < 130000) {
        fail("postgres: outbox table " + table + " is partitioned, and PostgreSQL " +
             std::to_string(server_version_ / 10000) + " cannot publish a partitioned table (13 and later can)");
    } else if (config_.postgres.publish_via_partition_root == false) {
        fail("postgres: outbox table " + table +
             " is partitioned, so its rows would reach the router under its partitions' names and not be routed; "
             "set postgres.publish.via.partition.root to true");
    }
}

bool SourceSetup::publish_via_root() const {
    return server_version_ >= 130000 && config_.postgres.publish_via_partition_root.value_or(!partitioned_tables_.empty());
}

void SourceSetup::ensure_publication(SourceState& state) {
    const auto& pg = config_.postgres;
    const std::string name = conn_.quote_literal(pg.publication_name);
    const std::string via_root_column = server_version_ >= 130000 ? "pubviaroot" : "false";
    const auto exists = conn_.exec("SELECT pubinsert, " + via_root_column +
                                       " FROM pg_catalog.pg_publication WHERE pubname = " + name,
                                   "looking up publication " + pg.publication_name);
    if (PQntuples(exists.get()) == 0) {
        if (state.publication_seen)
            throw DefiniteError("postgres: publication \"" + pg.publication_name +
                                "\" was dropped while the router was running; outbox rows written since were not "
                                "published to this slot. Re-create the publication, check the outbox for events "
                                "that must be re-sent, then restart the router");
        if (in_recovery_) {
            fail("postgres: publication \"" + pg.publication_name +
                 "\" does not exist on this standby, which is read-only: create it on the primary "
                 "(CREATE PUBLICATION ... FOR TABLE <outbox tables>), or wait until the standby has replayed it");
            return;
        }
        if (pg.publication_autocreate == config::PublicationAutocreate::disabled) {
            fail("postgres: publication \"" + pg.publication_name +
                 "\" does not exist and postgres.publication.autocreate.mode is disabled; create it with "
                 "CREATE PUBLICATION ... FOR TABLE <outbox tables>");
            return;
        }
        std::string tables;
        for (const auto& t : pg.tables)
            tables += (tables.empty() ? "" : ", ") + conn_.quote_identifier(t.schema) + "." + conn_.quote_identifier(t.name);
        if (mode_ == Mode::check) {
            const auto can = conn_.exec(
                "SELECT has_database_privilege(current_user, current_database(), 'CREATE')",
                "checking the CREATE privilege");
            if (value(can, 0, 0) == "t")
                pass("postgres: publication \"" + pg.publication_name + "\" is missing and can be created");
            else
                fail("postgres: publication \"" + pg.publication_name +
                     "\" is missing and this role lacks CREATE on the database to create it");
            return;
        }
        // Stored generated columns are published only when asked for (PostgreSQL 18 and later),
        // and an outbox column may be one (an aggregatetype derived from another column).
        std::string options;
        if (publish_via_root()) options = "publish_via_partition_root = true";
        if (server_version_ >= 180000) options += (options.empty() ? "" : ", ") + std::string("publish_generated_columns = stored");
        const std::string with = options.empty() ? "" : " WITH (" + options + ")";
        const std::string statement =
            "CREATE PUBLICATION " + conn_.quote_identifier(pg.publication_name) + " FOR TABLE " + tables + with;
        try {
            conn_.exec(statement, "creating publication " + pg.publication_name);
        } catch (const DefiniteError&) {
            // The other router of an active/standby pair may have created it a moment ago.
            if (PQntuples(conn_.exec("SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = " + name,
                                     "looking up publication " + pg.publication_name)
                              .get()) == 0)
                throw;
            return ensure_publication(state);
        }
        log::info("postgres: created publication \"" + pg.publication_name + "\" FOR TABLE " + tables + with);
        state.publication_seen = true;
        check_columns_published();
        return;
    }
    state.publication_seen = true;
    if (value(exists, 0, 0) != "t")
        fail("postgres: publication \"" + pg.publication_name + "\" does not publish INSERTs (publish = 'insert' needed)");
    if (!partitioned_tables_.empty() && value(exists, 0, 1) != "t")
        fail("postgres: publication \"" + pg.publication_name + "\" does not publish via the partition root, so rows of " +
             "the partitioned outbox table " + partitioned_tables_.front() +
             " reach the router under its partitions' names and would not be routed; ALTER PUBLICATION " +
             pg.publication_name + " SET (publish_via_partition_root = true)");
    for (const auto& table : pg.tables) {
        const auto covered = conn_.exec(
            "SELECT 1 FROM pg_catalog.pg_publication_tables WHERE pubname = " + name + " AND schemaname = " +
                conn_.quote_literal(table.schema) + " AND tablename = " + conn_.quote_literal(table.name),
            "checking publication " + pg.publication_name);
        if (PQntuples(covered.get()) == 0)
            fail("postgres: publication \"" + pg.publication_name + "\" does not include outbox table " +
                 table.qualified() + "; ALTER PUBLICATION " + pg.publication_name + " ADD TABLE " + table.qualified());
    }
    check_columns_published();
    if (ok_) pass("postgres: publication \"" + pg.publication_name + "\" covers the outbox tables");
}

// A column the publication leaves out reaches the router as absent from the row, which would
// read as a table without that column. PostgreSQL 15 and later list what is published
// (pg_publication_tables.attnames): a column list without it, or a stored generated column.
void SourceSetup::check_columns_published() {
    if (server_version_ < 150000) return;
    const auto& pg = config_.postgres;
    for (const auto& table : pg.tables) {
        const auto result = conn_.exec(
            "SELECT a.attname, a.attgenerated = 's', a.attname = ANY(pt.attnames) FROM pg_catalog.pg_publication_tables pt "
            "JOIN pg_catalog.pg_namespace n ON n.nspname = pt.schemaname "
            "JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = pt.tablename "
            "JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
            "WHERE pt.pubname = " + conn_.quote_literal(pg.publication_name) + " AND pt.schemaname = " +
                conn_.quote_literal(table.schema) + " AND pt.tablename = " + conn_.quote_literal(table.name) +
                " ORDER BY a.attnum",
            "reading the columns publication " + pg.publication_name + " publishes");
        if (PQntuples(result.get()) == 0) continue;  // not in the publication: reported above
        std::vector<std::string> all;
        std::vector<std::string> published;
        std::vector<std::string> generated;
        for (int row = 0; row < PQntuples(result.get()); ++row) {
            all.push_back(value(result, row, 0));
            if (value(result, row, 2) == "t") published.push_back(all.back());
            if (value(result, row, 1) == "t") generated.push_back(all.back());
        }
        const auto& settings = config_.outbox.for_table(table);
        const auto absent = config::missing_outbox_columns(all, settings);
        for (const auto& column : config::missing_outbox_columns(published, settings)) {
            if (std::find(absent.begin(), absent.end(), column) != absent.end()) continue;  // not in the table at all
            const std::string name = column.substr(1, column.find('"', 1) - 1);  // `"name" (option)`
            const bool is_generated = std::find(generated.begin(), generated.end(), name) != generated.end();
            std::string what = "postgres: publication \"" + pg.publication_name + "\" does not publish column " + column +
                               " of outbox table " + table.qualified();
            if (is_generated && server_version_ >= 180000)
                what += ", a stored generated column, which is published only with publish_generated_columns: "
                        "ALTER PUBLICATION " + pg.publication_name + " SET (publish_generated_columns = stored)";
            else if (is_generated)
                what += ", a stored generated column, which PostgreSQL " + std::to_string(server_version_ / 10000) +
                        " does not publish (18 and later can): make it a column the writer fills";
            else
                what += " (its column list leaves it out): ALTER PUBLICATION " + pg.publication_name + " SET TABLE " +
                        table.qualified();
            fail(what);
        }
    }
}

bool SourceSetup::slot_failover() const {
    return server_version_ >= 170000 && !in_recovery_ && config_.postgres.slot_failover.value_or(true);
}

// The slot is created on the replication connection, whose protocol takes the failover option
// from PostgreSQL 17 on (in the parenthesized form, which 15 introduced).
SlotPort::Creation SourceSetup::create_slot() {
    const auto& slot = config_.postgres.slot_name;
    const std::string statement =
        "CREATE_REPLICATION_SLOT " + conn_.quote_identifier(slot) + " LOGICAL pgoutput" +
        (slot_failover() ? " (SNAPSHOT 'nothing', FAILOVER true)" : " NOEXPORT_SNAPSHOT");
    try {
        conn_.exec(statement, "creating replication slot " + slot);
        log::info("postgres: created replication slot \"" + slot + "\" (pgoutput" +
                  (slot_failover() ? ", failover: synchronized to standbys that sync replication slots" : "") + ")");
        return SlotPort::Creation::created;
    } catch (const DefiniteError&) {
        // The other router of an active/standby pair may have created it a moment ago.
        if (PQntuples(conn_.exec(slot_query(), "looking up replication slot " + slot).get()) == 0) throw;
        return SlotPort::Creation::already_exists;
    }
}

std::string SourceSetup::slot_query() const {
    // wal_status (a slot invalidated by max_slot_wal_keep_size) exists from PostgreSQL 13 on,
    // two_phase from 14, conflicting from 16 (there true for any invalidation: with WAL still
    // there, a conflict with recovery), failover, synced and invalidation_reason from 17.
    const std::string reason = server_version_ >= 170000   ? "invalidation_reason"
                               : server_version_ >= 160000 ? "CASE WHEN conflicting AND wal_status <> 'lost' THEN 'conflict' END"
                                                           : "NULL";
    return std::string("SELECT plugin, slot_type, database, confirmed_flush_lsn, ") +
           (server_version_ >= 130000 ? "wal_status" : "NULL") + ", " +
           (server_version_ >= 140000 ? "two_phase" : "false") + ", " +
           (server_version_ >= 170000 ? "failover, synced" : "false, false") + ", " + reason +
           " FROM pg_catalog.pg_replication_slots WHERE slot_name = " + conn_.quote_literal(config_.postgres.slot_name);
}

std::optional<Lsn> SourceSetup::look_up_slot() {
    const auto result = conn_.exec(slot_query(), "looking up replication slot " + config_.postgres.slot_name);
    if (PQntuples(result.get()) == 0) return std::nullopt;
    return checked_slot(result);
}

void SourceSetup::check_slot(SourceState& state) {
    const auto& slot = config_.postgres.slot_name;
    const auto result = conn_.exec(slot_query(), "looking up replication slot " + slot);
    if (PQntuples(result.get()) > 0) {
        if (const auto confirmed = checked_slot(result)) state.slot_confirmed_lsn = *confirmed;
        return;
    }
    const auto role = conn_.exec("SELECT rolreplication OR rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user",
                                 "checking the REPLICATION attribute");
    if (value(role, 0, 0) == "t")
        pass("postgres: replication slot \"" + slot + "\" is missing and can be created" +
             (slot_failover() ? " (with failover)" : ""));
    else
        fail("postgres: replication slot \"" + slot + "\" is missing and this role lacks REPLICATION");
    if (slot_failover()) check_failover(true);
}

// The slot found by slot_query(), checked; its confirmed position, or nothing when a check
// failed in check mode.
std::optional<Lsn> SourceSetup::checked_slot(const PgResult& result) {
    const auto& slot = config_.postgres.slot_name;
    const SourceState& state = *state_;
    const std::string plugin = value(result, 0, 0);
    const std::string database = value(result, 0, 2);
    const std::string wal_status = value(result, 0, 4);
    const Lsn confirmed = parse_lsn(value(result, 0, 3)).value_or(0);
    if (value(result, 0, 1) != "logical" || plugin != "pgoutput") {
        fail("postgres: replication slot \"" + slot + "\" is not a logical pgoutput slot (plugin \"" + plugin +
             "\"); use another postgres.slot.name or drop that slot");
        return std::nullopt;
    }
    if (database != state.identity.database) {
        fail("postgres: replication slot \"" + slot + "\" belongs to database \"" + database +
             "\", not \"" + state.identity.database + "\"");
        return std::nullopt;
    }
    // Such a slot decodes PREPARE TRANSACTION whatever the client asks (PostgreSQL 15 and later),
    // and its events would have to wait for COMMIT PREPARED in the router: not supported.
    if (value(result, 0, 5) == "t") {
        fail("postgres: replication slot \"" + slot +
             "\" was created with two_phase, so the server streams prepared transactions at PREPARE "
             "TRANSACTION, which the router does not decode. Use a slot without two_phase (another "
             "postgres.slot.name, or drop this one and let the router create it)");
        return std::nullopt;
    }
    if (!value(result, 0, 8).empty() || wal_status == "lost") {
        fail(invalidation(value(result, 0, 8), confirmed));
        return std::nullopt;
    }
    if (in_recovery_ && value(result, 0, 7) == "t") {
        fail("postgres: replication slot \"" + slot +
             "\" on this standby is synchronized from the primary (synced), and such a slot cannot be decoded "
             "on the standby: point conninfo at the primary (name both hosts with target_session_attrs=read-write), "
             "or give decoding on this standby a slot.name of its own");
        return std::nullopt;
    }
    const bool has_failover = value(result, 0, 6) == "t";
    if (server_version_ >= 170000 && !in_recovery_ && has_failover != slot_failover()) {
        const std::string setting = slot_failover() ? "true" : "false";
        if (mode_ == Mode::check) {
            pass("postgres: replication slot \"" + slot + "\" has failover " + (has_failover ? "on" : "off") +
                 "; the router sets it to " + setting + " at start (slot.failover)");
        } else {
            conn_.exec("ALTER_REPLICATION_SLOT " + conn_.quote_identifier(slot) + " (FAILOVER " + setting + ")",
                       "setting failover on replication slot " + slot);
            log::info("postgres: replication slot \"" + slot + "\" now has failover " + setting + " (slot.failover)");
        }
    }
    if (config_.postgres.slot_failover.value_or(false) && server_version_ < 170000)
        warn("postgres: slot.failover is true, but PostgreSQL " + std::to_string(server_version_ / 10000) +
             " does not synchronize replication slots to standbys (17 and later do): after a failover the router "
             "finds no slot and stops, naming the events that may be missing");
    const bool first_on_this_history = !state.slot_seen || state.previous_timeline != state.identity.timeline;
    if (slot_failover() && (mode_ == Mode::check || first_on_this_history)) check_failover(false);
    pass("postgres: replication slot \"" + slot + "\" is ready (confirmed " + format_lsn(confirmed) +
         (slot_failover() ? ", failover" : "") + ")");
    return confirmed;
}

void SourceSetup::check_failover(bool slot_missing) {
    FailoverReadiness readiness(conn_, config_.postgres.slot_name, [this](bool ok, const std::string& line) {
        if (ok) pass(line);
        else warn(line);
    });
    readiness.check_primary();
    if (mode_ == Mode::check && !slot_missing) readiness.check_standbys(config_.postgres.conninfo);
}

std::string SourceSetup::invalidation(const std::string& reason, Lsn confirmed) const {
    const std::string slot = "postgres: replication slot \"" + config_.postgres.slot_name + "\" is invalidated (" +
                             (reason.empty() ? "wal_status = lost" : "invalidation_reason = " + reason) + ")";
    const std::string gap = "events committed after its confirmed position " + format_lsn(confirmed) +
                            " can no longer be read from it. Drop the slot, let the router create a new one, and "
                            "re-publish what the outbox still holds from that position on";
    if (reason == "idle_timeout") {
        const auto timeout = conn_.exec("SHOW idle_replication_slot_timeout", "reading idle_replication_slot_timeout");
        return slot + ": it was inactive for longer than idle_replication_slot_timeout (" + value(timeout, 0, 0) +
               "), so the server stopped keeping WAL for it and " + gap +
               ". Raise idle_replication_slot_timeout (or set it to 0) above the longest time the router may be down";
    }
    if (reason == "rows_removed" || reason == "conflict")
        return slot + ": the primary removed catalog rows this standby's slot needed (hot_standby_feedback off, or "
                      "no physical slot for this standby), so " + gap;
    if (reason == "wal_level_insufficient")
        return slot + ": the primary's wal_level is below logical, so " + gap;
    return slot + ": the server removed WAL it still needed (max_slot_wal_keep_size), so " + gap;
}

}  // namespace outbox::replication
