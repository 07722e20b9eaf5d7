#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "outbox/ack/ack_tracker.hpp"
#include "outbox/config/config.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/pipeline/deliveries.hpp"
#include "outbox/pipeline/kafka_transactions.hpp"
#include "outbox/pipeline/outbox_sources.hpp"
#include "outbox/router/outbox_router.hpp"

namespace outbox::pipeline {

// What the decoded stream means for the outbox: relations bound to outbox tables (or not),
// transactions registered with the tracker, outbox rows and logical messages routed and handed to
// Deliveries, UPDATEs per table.op.invalid.behavior, and what a replay after a reconnect must
// not send again. One per process: it outlives connections.
class ChangeHandler {
public:
    using TxnId = ack::AckTracker::TxnId;

    // `transactions` is null at-least-once; `commit_due` commits the Kafka transaction when it
    // is due after a PostgreSQL commit.
    ChangeHandler(const config::Config& config, router::OutboxRouter& router, ack::AckTracker& tracker,
                  OutboxSources& sources, Deliveries& deliveries, KafkaTransactions* transactions,
                  std::function<void()> commit_due);

    // One decoded message; `wal_position` names it in errors.
    void handle(const pgoutput::Message& message, Lsn wal_position);

    // A new connection: the server describes every relation again.
    void connected() { relations_.clear(); }
    // The connection was lost: the transaction being received comes again from BEGIN; the rows of
    // it the producer has are not sent twice.
    void connection_lost();
    // The producer was replaced: what it had is in doubt, so everything unacknowledged is replayed.
    void producer_replaced();
    // Stopping: a transaction being received is dropped (it comes again on the next start).
    void stopped();

    bool receiving_transaction() const { return open_txn_.has_value(); }
    // The server's commit time of the newest BEGIN, PostgreSQL epoch.
    std::int64_t newest_commit_time_us() const { return newest_commit_time_us_; }
    // The newest position this process has handed to the producer (at-least-once).
    Lsn handed_over_end() const { return handed_over_end_; }

private:
    struct RelationEntry {
        std::shared_ptr<const router::BoundTable> outbox;  // null: not an outbox table
        OutboxSources::Id source = 0;
        // An outbox table whose columns do not fit the settings; raised only by a row that must
        // be routed, so replayed transactions that were delivered before do not stop the router.
        std::optional<std::string> bind_error;
    };

    void on_begin(const pgoutput::Begin& begin);
    void on_commit(const pgoutput::Commit& commit, Lsn wal_position);
    void on_relation(const pgoutput::Relation& relation);
    void on_insert(const pgoutput::Insert& insert);
    void on_update(const pgoutput::Update& update);
    void on_row(std::uint32_t relid, pgoutput::Tuple row, const pgoutput::Update* key_change);
    void on_message(const pgoutput::LogicalMessage& message);
    const RelationEntry& relation(std::uint32_t relid) const;
    Lsn delivered_position() const;
    Lsn replay_skip_position() const;
    bool handed_over_before();
    void postgres_committed(Lsn end_lsn);

    const config::Config& config_;
    router::OutboxRouter& router_;
    ack::AckTracker& tracker_;
    OutboxSources& sources_;
    Deliveries& deliveries_;
    KafkaTransactions* const transactions_;
    const std::function<void()> commit_due_;

    std::unordered_map<std::uint32_t, RelationEntry> relations_;
    std::int64_t newest_commit_time_us_ = 0;

    // The transaction being received (between BEGIN and COMMIT).
    std::optional<TxnId> open_txn_;
    bool open_txn_delivered_before_ = false;  // replayed after a reconnect: publish nothing
    router::TransactionContext open_context_;
    std::size_t open_txn_rows_ = 0;  // its outbox rows the producer has (or dead-lettered, or skipped)
    std::size_t rows_to_skip_ = 0;   // its first rows, handed over before a reconnect cut it short

    // At-least-once: what the current producer already has, so that a reconnect replays none of
    // it (Kafka acknowledges it without the walsender). The end of the newest transaction handed
    // over in full, and the transaction a lost connection cut short with how many of its rows
    // went, kept through the replay of the earlier transactions before it and through further
    // losses until its COMMIT is received. Forgotten when the producer is replaced: then its
    // records are in doubt.
    Lsn handed_over_end_ = 0;
    struct PartlyHandedOver {
        Lsn commit_lsn = 0;
        std::size_t rows = 0;
    };
    std::optional<PartlyHandedOver> partly_handed_over_;
};

}  // namespace outbox::pipeline
