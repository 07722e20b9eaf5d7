#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_connector.hpp"
#include "outbox/kafka/kafka_producer.hpp"
#include "outbox/kafka/offsets_record.hpp"
#include "outbox/pipeline/stop_request.hpp"
#include "outbox/util/clock.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::pipeline {

// Exactly-once: Kafka transactions that each hold whole PostgreSQL transactions, the offsets
// record that rides in each, and the newest PostgreSQL commit whose Kafka transaction has
// committed, which is what may be confirmed to PostgreSQL. The producer belongs to the caller.
// Failed calls throw DefiniteError (fenced), ProducerFailed (fatal) or TransientError
// (abortable or retriable: the caller rewinds).
class KafkaTransactions {
public:
    // Called on every turn of a wait at start, with what it waits for (for /healthz).
    using Waiting = std::function<void(const std::string& what)>;

    KafkaTransactions(const config::Config& config, kafka::KafkaConnector& kafka, const Clock& clock,
                      StopRequested stop_requested, Waiting waiting = {});

    // The configured transactional.id, or one derived from system id, database and slot; decided
    // at the first call. Empty overrides when the configuration sets it.
    const std::string& decide_transactional_id(const kafka::SourceIdentity& source);
    const std::string& transactional_id() const { return transactional_id_; }
    std::vector<std::pair<std::string, std::string>> producer_overrides() const;

    // The slot is ours and `producer` is new: initialises its transactions (which fences any
    // older instance and aborts what it left open) and returns the position the offsets topic
    // holds for `source`. Nothing is adopted until resume_from().
    Lsn start(kafka::KafkaProducer& producer, const kafka::SourceIdentity& source);
    // The position the offsets topic holds for `source` (0: none), read without a producer:
    // before a slot is created.
    Lsn stored_position(const kafka::SourceIdentity& source);
    // Transactions committing before the returned position are not published again.
    Lsn resume_from(Lsn stored, Lsn slot_confirmed);

    // One record joins the Kafka transaction, which begins here if none is open.
    void add(kafka::KafkaProducer& producer, std::size_t record_bytes);
    // A PostgreSQL transaction (or a non-transactional message) ending at `end_lsn` is whole in
    // the open Kafka transaction.
    void postgres_committed(Lsn end_lsn);
    bool open() const { return open_.has_value(); }
    // Whether the open transaction may commit now (it ends at a PostgreSQL commit, none is being
    // received) and should (a size or time limit is reached).
    bool due(bool receiving_postgres_transaction, Clock::time_point now) const;
    // When the open transaction's time limit makes it due; nothing if it cannot commit yet.
    std::optional<Clock::time_point> deadline(bool receiving_postgres_transaction) const;
    // Where the position record of the open transaction says it ends (0 before any PostgreSQL commit).
    Lsn open_end() const { return open_ ? open_->last_end_lsn : 0; }
    // The record that stores the open transaction's end in the offsets topic; produce it last.
    kafka::Record offsets_record();
    // Commits, calling `while_waiting` between attempts while Kafka is slow; then, once the caller
    // has found the producer healthy, mark_committed() adopts the transaction's end.
    void commit(kafka::KafkaProducer& producer, const std::function<void()>& while_waiting);
    void mark_committed();
    // Aborts the open transaction (fencing is the only failure that matters: the next producer's
    // start() aborts anything else) and forgets it.
    void abort(kafka::KafkaProducer* producer);

    // The newest PostgreSQL commit whose Kafka transaction has committed.
    Lsn committed_end() const { return committed_end_; }
    // Nothing is pending and no Kafka transaction is open: every delivered event is committed,
    // so `confirmed` (keepalive positions included) is safe as well.
    void adopt_settled(Lsn confirmed) { committed_end_ = std::max(committed_end_, confirmed); }

    // The error for a failed transactional call, thrown.
    [[noreturn]] void fail(const kafka::TransactionError& error) const;

private:
    struct Open {
        long events = 0;
        long bytes = 0;
        Clock::time_point started{};
        Lsn last_end_lsn = 0;  // 0 until a whole PostgreSQL transaction is in it
    };

    const config::Config& config_;
    kafka::KafkaConnector& kafka_;
    const Clock& clock_;
    StopRequested stop_requested_;
    Waiting waiting_;
    std::string transactional_id_;
    std::optional<Open> open_;
    Lsn committed_end_ = 0;
    std::optional<kafka::OffsetsRecord> offsets_;
};

}  // namespace outbox::pipeline
