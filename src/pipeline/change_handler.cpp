#include "outbox/pipeline/change_handler.hpp"

#include <algorithm>
#include <variant>

#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {

ChangeHandler::ChangeHandler(const config::Config& config, router::OutboxRouter& router, ack::AckTracker& tracker,
                             OutboxSources& sources, Deliveries& deliveries, KafkaTransactions* transactions,
                             std::function<void()> commit_due)
    : config_(config),
      router_(router),
      tracker_(tracker),
      sources_(sources),
      deliveries_(deliveries),
      transactions_(transactions),
      commit_due_(std::move(commit_due)) {
    // A row that waited for its topic counts once it went (the loop reads nothing meanwhile).
    deliveries_.on_held_record_handed_over([this] { ++open_txn_rows_; });
}

void ChangeHandler::connection_lost() {
    if (open_txn_) {
        // A loss while the cut-short transaction is replayed again may come before the rows
        // already handed over: the record keeps the larger count.
        if (!transactions_ && !open_txn_delivered_before_) {
            std::size_t rows = open_txn_rows_;
            if (partly_handed_over_ && partly_handed_over_->commit_lsn == open_context_.commit_lsn)
                rows = std::max(rows, partly_handed_over_->rows);
            partly_handed_over_ = PartlyHandedOver{open_context_.commit_lsn, rows};
        }
        tracker_.abandon_open_transaction();
    }
    open_txn_.reset();
}

void ChangeHandler::producer_replaced() {
    // The transaction being received is replayed whole by the next connection.
    open_txn_.reset();
    handed_over_end_ = 0;
    partly_handed_over_.reset();
}

void ChangeHandler::stopped() {
    if (open_txn_) tracker_.abandon_open_transaction();
    open_txn_.reset();
}

Lsn ChangeHandler::delivered_position() const {
    return transactions_ ? transactions_->committed_end() : tracker_.confirmed_lsn();
}

// A PostgreSQL transaction (or a non-transactional message) ending at `end_lsn` is complete.
void ChangeHandler::postgres_committed(Lsn end_lsn) {
    if (!transactions_) {
        handed_over_end_ = std::max(handed_over_end_, end_lsn);
        return;
    }
    if (!transactions_->open()) return;
    transactions_->postgres_committed(end_lsn);
    commit_due_();
}

void ChangeHandler::handle(const pgoutput::Message& message, Lsn wal_position) {
    if (const auto* begin = std::get_if<pgoutput::Begin>(&message)) {
        if (open_txn_) throw ProtocolError("pgoutput BEGIN at WAL " + format_lsn(wal_position) + " inside an open transaction");
        on_begin(*begin);
    } else if (const auto* commit = std::get_if<pgoutput::Commit>(&message)) {
        on_commit(*commit, wal_position);
        // Debezium's sequence names the previous COMMIT message's position (its lastCommitLsn).
        open_context_.previous_commit_lsn = wal_position;
    } else if (const auto* relation = std::get_if<pgoutput::Relation>(&message)) {
        on_relation(*relation);
    } else if (const auto* insert = std::get_if<pgoutput::Insert>(&message)) {
        open_context_.change_lsn = wal_position;
        on_insert(*insert);
    } else if (const auto* update = std::get_if<pgoutput::Update>(&message)) {
        open_context_.change_lsn = wal_position;
        on_update(*update);
    } else if (const auto* logical = std::get_if<pgoutput::LogicalMessage>(&message)) {
        open_context_.change_lsn = wal_position;
        on_message(*logical);
    }
    // DELETE and TRUNCATE on an outbox table are housekeeping (insert-then-delete is the
    // recommended pattern); ORIGIN and TYPE carry nothing the router needs.
}

void ChangeHandler::on_begin(const pgoutput::Begin& begin) {
    newest_commit_time_us_ = begin.commit_time_us;
    const Lsn previous_commit = open_context_.previous_commit_lsn;
    open_context_ = {begin.final_lsn, postgres_micros_to_unix_millis(begin.commit_time_us), begin.xid,
                     postgres_micros_to_unix_micros(begin.commit_time_us), 0, previous_commit};
    open_txn_ = tracker_.begin_transaction({begin.final_lsn, begin.xid, open_context_.commit_time_ms});
    // After a reconnect the server replays from the position it last persisted, which may be
    // behind what this process already delivered or handed to the producer; sending that again
    // would only make duplicates.
    open_txn_delivered_before_ = begin.final_lsn < replay_skip_position();
    open_txn_rows_ = 0;
    rows_to_skip_ = 0;
    // The server replays from the slot's position: earlier transactions, delivered or with the
    // producer, come before the cut-short one, and their BEGINs must not make it forget what
    // went. It is forgotten once the transaction is past.
    if (!partly_handed_over_) return;
    if (partly_handed_over_->commit_lsn == begin.final_lsn)
        rows_to_skip_ = partly_handed_over_->rows;
    else if (partly_handed_over_->commit_lsn < begin.final_lsn)
        partly_handed_over_.reset();
}

// Commits before this position need nothing sent: delivered, or (at-least-once) already with
// the producer, which outlives the connection.
Lsn ChangeHandler::replay_skip_position() const { return std::max(delivered_position(), handed_over_end_); }

// For an outbox row of the open transaction: whether the producer already has it (the first
// rows of a transaction a lost connection cut short); such a row counts as handed over again.
bool ChangeHandler::handed_over_before() {
    if (rows_to_skip_ == 0) return false;
    --rows_to_skip_;
    ++open_txn_rows_;
    return true;
}

void ChangeHandler::on_commit(const pgoutput::Commit& commit, Lsn wal_position) {
    if (!open_txn_) throw ProtocolError("pgoutput COMMIT at WAL " + format_lsn(wal_position) + " without BEGIN");
    if (commit.commit_lsn != open_context_.commit_lsn)
        throw ProtocolError("pgoutput COMMIT at WAL " + format_lsn(commit.commit_lsn) + " does not match BEGIN's " +
                            format_lsn(open_context_.commit_lsn));
    tracker_.commit_transaction(*open_txn_, commit.end_lsn);
    open_txn_.reset();
    if (partly_handed_over_ && partly_handed_over_->commit_lsn == commit.commit_lsn) partly_handed_over_.reset();
    postgres_committed(commit.end_lsn);
}

void ChangeHandler::on_relation(const pgoutput::Relation& relation) {
    RelationEntry entry;
    try {
        entry.outbox = router_.bind(relation);
    } catch (const DefiniteError& e) {
        entry.bind_error = e.what();
        relations_[relation.relid] = std::move(entry);
        return;
    }
    if (entry.outbox) entry.source = sources_.id(OutboxSources::Kind::table, entry.outbox->name().qualified());
    // The publication follows a table through ALTER TABLE ... RENAME or SET SCHEMA; under its new
    // name it is no longer a configured outbox table, and skipping its rows would lose them.
    if (const auto known = relations_.find(relation.relid);
        !entry.outbox && known != relations_.end() && known->second.outbox)
        throw DefiniteError("postgres: outbox table " + known->second.outbox->name().qualified() + " is now called " +
                            std::string(relation.nspname) + "." + std::string(relation.relname) +
                            ", which is not in postgres.table.include.list; its rows since then are not confirmed. "
                            "Put the new name in table.include.list, then restart the router");
    // The router made this publication for its outbox tables: another table in it is most likely
    // an outbox table added to the publication before the configuration.
    if (!entry.outbox && config_.postgres.publication_autocreate == config::PublicationAutocreate::filtered &&
        !relations_.contains(relation.relid))
        log::warn("postgres: publication \"" + config_.postgres.publication_name + "\" also publishes " +
                  std::string(relation.nspname) + "." + std::string(relation.relname) +
                  ", which is not in postgres.table.include.list: its rows are skipped");
    relations_[relation.relid] = std::move(entry);
}

const ChangeHandler::RelationEntry& ChangeHandler::relation(std::uint32_t relid) const {
    const auto found = relations_.find(relid);
    if (found == relations_.end())
        throw ProtocolError("pgoutput: change for relation " + std::to_string(relid) + " before its RELATION message");
    return found->second;
}

void ChangeHandler::on_insert(const pgoutput::Insert& insert) { on_row(insert.relid, insert.new_tuple, nullptr); }

// An INSERT, or the create of an UPDATE that changed the row's key (`key_change`).
void ChangeHandler::on_row(std::uint32_t relid, pgoutput::Tuple row, const pgoutput::Update* key_change) {
    const auto& entry = relation(relid);
    if (!entry.outbox && !entry.bind_error) return;
    if (!open_txn_) throw ProtocolError("pgoutput INSERT outside a transaction");
    if (open_txn_delivered_before_) return;
    if (entry.bind_error) throw DefiniteError(*entry.bind_error);
    if (handed_over_before()) return;
    sources_[entry.source].received->add();
    bool handed_over = true;
    try {
        handed_over = deliveries_.publish(key_change ? router_.route_key_change(*entry.outbox, *key_change, open_context_)
                                                     : router_.route_insert(*entry.outbox, row, open_context_),
                                          entry.source, *open_txn_, open_context_);
    } catch (const router::InvalidRowError& e) {
        deliveries_.reject(e, entry.source, *open_txn_, open_context_, "", "route",
                           e.id ? HeaderList{{"id", e.id}} : HeaderList{});
    }
    // Only once the producer has it: a row that failed or still waits for its topic must come
    // again after a reconnect.
    if (handed_over) ++open_txn_rows_;
}

void ChangeHandler::on_update(const pgoutput::Update& update) {
    const auto& entry = relation(update.relid);
    if (!entry.outbox) return;
    // Debezium emits a key change as a delete and a create, and its EventRouter routes the create.
    if (router_.changes_key(*entry.outbox, update)) return on_row(update.relid, update.new_tuple, &update);
    router_.on_update(*entry.outbox, open_context_);  // throws under table.op.invalid.behavior: fatal
    sources_[entry.source].skipped_update->add();
}

void ChangeHandler::on_message(const pgoutput::LogicalMessage& message) {
    if (!router_.watches_prefix(message.prefix)) return;
    // A non-transactional message is a transaction of its own, ending at the message. Its lsn is
    // where its record ends (decode.c queues it at the record's end), so unlike a commit record's
    // start it is past the position only when above it.
    if (open_txn_ ? open_txn_delivered_before_ : message.lsn <= replay_skip_position()) return;
    if (open_txn_ && handed_over_before()) return;
    const auto source = sources_.id(OutboxSources::Kind::message_prefix, message.prefix);
    sources_[source].received->add();
    if (open_txn_) {
        bool handed_over = true;
        try {
            handed_over = deliveries_.publish(router_.route_message(message, open_context_), source, *open_txn_, open_context_);
        } catch (const router::InvalidRowError& e) {
            deliveries_.reject(e, source, *open_txn_, open_context_, "", "route", {});
        }
        if (handed_over) ++open_txn_rows_;
        return;
    }
    // A non-transactional message is outside any transaction; the router refuses it. To
    // dead-letter it, track it as a transaction of its own ending at the message: everything
    // the server sent before it is ahead of it in the tracker.
    try {
        router_.route_message(message, {message.lsn, 0, 0});
        throw ProtocolError("pgoutput: the router accepted a non-transactional message");
    } catch (const router::InvalidRowError& e) {
        open_context_ = {message.lsn, 0, 0, 0, 0, open_context_.previous_commit_lsn};
        open_txn_ = tracker_.begin_transaction({message.lsn, 0, 0});
        try {
            deliveries_.reject(e, source, *open_txn_, open_context_, "", "route", {});
        } catch (...) {
            tracker_.abandon_open_transaction();
            open_txn_.reset();
            throw;
        }
        tracker_.commit_transaction(*open_txn_, message.lsn);
        open_txn_.reset();
        // A dead letter opened a Kafka transaction, which only ends at a commit.
        postgres_committed(message.lsn);
    }
}

}  // namespace outbox::pipeline
