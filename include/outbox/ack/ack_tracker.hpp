#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "outbox/util/lsn.hpp"

namespace outbox::ack {

// Decides which WAL position may be confirmed to PostgreSQL.
//
// Transactions are registered in commit order as they are received. Each counts the Kafka
// deliveries it still waits for. The confirmable position is the commit end_lsn of the newest
// transaction whose deliveries, and those of every earlier transaction, have all succeeded.
// Delivery reports may arrive in any order (different partitions, different transactions);
// the watermark only ever moves over a contiguous prefix of finished transactions.
class AckTracker {
public:
    using TxnId = std::uint64_t;

    // Ids count from `first_id` (a test can start them where they no longer fit in fewer bits).
    explicit AckTracker(TxnId first_id = 0) : first_id_(first_id), next_id_(first_id) {}

    // What the router remembers of a transaction while its events are in flight.
    struct TxnInfo {
        Lsn commit_lsn = 0;  // of the commit record, from BEGIN
        std::uint32_t xid = 0;
        std::int64_t commit_time_ms = 0;
    };

    // A transaction's first message arrived (BEGIN). Returns its id for tagging its events.
    TxnId begin_transaction(const TxnInfo& info);
    TxnId begin_transaction() { return begin_transaction(TxnInfo{}); }

    // One event of the open transaction was handed to Kafka.
    void event_sent(TxnId txn);

    // The open transaction's COMMIT arrived; `end_lsn` becomes confirmable once it is delivered.
    void commit_transaction(TxnId txn, Lsn end_lsn);

    // The connection dropped before the open transaction's COMMIT: the server will send it
    // again, so it must never advance the watermark. Its already-sent events still report.
    void abandon_open_transaction();

    // Kafka acknowledged one event of `txn`. Returns what was remembered of the transaction,
    // which the tracker forgets once the transaction is confirmed.
    TxnInfo event_delivered(TxnId txn);

    // The server's keepalive says everything up to `wal_end` was sent. With no transaction
    // pending, nothing before it can still need delivery, so the slot may move there: this is
    // what keeps an idle outbox on a busy database from holding WAL.
    void keepalive(Lsn wal_end);

    // The position to report as flushed to PostgreSQL (0 until something is confirmed).
    Lsn confirmed_lsn() const { return confirmed_; }
    // Committed transactions confirmed so far (cumulative, never reset).
    std::uint64_t transactions_confirmed() const { return transactions_confirmed_; }

    // Events handed to Kafka and not yet acknowledged.
    std::size_t events_in_flight() const { return events_in_flight_; }
    // Transactions received and not yet confirmed (including the open one).
    std::size_t transactions_pending() const { return pending_count_; }
    bool has_open_transaction() const { return open_; }

    // Resume point after (re)connecting: the slot's confirmed position as the server reports it.
    void reset_confirmed(Lsn lsn);

    // Forgets every pending transaction (the producer that carried their events is gone and the
    // stream will replay them). Ids keep counting, so late reports for them are recognisable.
    void discard_pending();
    // Forgets every pending transaction and moves the confirmed position to `lsn`, backwards if
    // need be: a Kafka transaction was aborted, so positions adopted while it was open are void.
    void restart_from(Lsn lsn);

    // Whether `txn` was forgotten by discard_pending() (its reports must be ignored).
    bool discarded(TxnId txn) const { return txn < first_id_; }

    // The id of an issued transaction known only by its low `bits` bits (a delivery tag has no
    // room for all 64), assuming fewer than 2^bits transactions began after it. Ids never wrap
    // in practice, but their low bits do.
    TxnId issued_id(std::uint64_t low_bits, unsigned bits) const {
        const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
        return next_id_ - ((next_id_ - low_bits) & mask);
    }

    const TxnInfo& info(TxnId txn) const;

private:
    struct Transaction {
        TxnInfo info;
        std::size_t undelivered = 0;
        Lsn end_lsn = 0;
        bool committed = false;
        bool abandoned = false;
    };

    Transaction& find(TxnId txn);
    Transaction& pending(std::size_t index) { return ring_[(first_slot_ + index) & (ring_.size() - 1)]; }
    void push_pending();
    void advance();

    // The pending transactions, oldest first, in a ring whose size is a power of two: the one
    // with id first_id_ + i is in slot (first_slot_ + i) mod size, so finding one by id is an
    // index, not a search, and neither end allocates once the ring is big enough.
    std::vector<Transaction> ring_;
    std::size_t first_slot_ = 0;
    std::size_t pending_count_ = 0;
    TxnId first_id_ = 0;
    TxnId next_id_ = 0;
    bool open_ = false;
    std::size_t events_in_flight_ = 0;
    Lsn confirmed_ = 0;
    std::uint64_t transactions_confirmed_ = 0;
};

}  // namespace outbox::ack
