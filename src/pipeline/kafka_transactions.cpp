#include "outbox/pipeline/kafka_transactions.hpp"

#include <algorithm>

#include "outbox/pipeline/producer_failed.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {
namespace {

const config::KafkaProperty* configured_transactional_id(const config::Config& config) {
    const auto found = std::find_if(config.kafka.properties.begin(), config.kafka.properties.end(),
                                    [](const config::KafkaProperty& p) { return p.name == "transactional.id"; });
    return found == config.kafka.properties.end() ? nullptr : &*found;
}

}  // namespace

KafkaTransactions::KafkaTransactions(const config::Config& config, kafka::KafkaConnector& kafka, const Clock& clock,
                                     StopRequested stop_requested, Waiting waiting)
    : config_(config), kafka_(kafka), clock_(clock), stop_requested_(std::move(stop_requested)),
      waiting_(waiting ? std::move(waiting) : [](const std::string&) {}) {}

const std::string& KafkaTransactions::decide_transactional_id(const kafka::SourceIdentity& source) {
    if (!transactional_id_.empty()) return transactional_id_;
    const auto* configured = configured_transactional_id(config_);
    transactional_id_ = configured ? configured->value : source.default_transactional_id();
    log::info("exactly-once: transactional.id \"" + transactional_id_ + "\"" +
              (configured ? "" : " (derived from system id, database and slot)"));
    return transactional_id_;
}

std::vector<std::pair<std::string, std::string>> KafkaTransactions::producer_overrides() const {
    if (configured_transactional_id(config_)) return {};
    return {{"transactional.id", transactional_id_}};
}

void KafkaTransactions::fail(const kafka::TransactionError& error) const {
    using Kind = kafka::TransactionError::Kind;
    if (error.kind == Kind::fenced)
        throw ProducerFencedError("kafka: this router was fenced: another instance with transactional.id \"" +
                            transactional_id_ + "\" took over the slot's work (" + error.what() + ")");
    if (error.kind == Kind::fatal) throw ProducerFailed(error.what());
    // Abortable or retriable: the caller's rewind aborts the transaction and starts over.
    throw TransientError(std::string(error.what()) + "; the Kafka transaction is aborted");
}

Lsn KafkaTransactions::start(kafka::KafkaProducer& producer, const kafka::SourceIdentity& source) {
    // In slices, so that a stop request is seen within a second: a timed-out call is retriable,
    // and the next one carries on with the same initialisation.
    constexpr auto kLimit = std::chrono::seconds(30);
    constexpr int kSliceMs = 500;
    const auto deadline = clock_.now() + kLimit;
    for (;;) {
        waiting_("Kafka: init_transactions");
        try {
            producer.init_transactions(kSliceMs);
            break;
        } catch (const kafka::TransactionError& e) {
            // Brokers that refuse our credentials or certificates time init_transactions out; their
            // errors reach the producer only when it is served.
            producer.serve(0);
            if (const auto& refused = producer.authentication_failure(); !refused.empty()) throw DefiniteError(refused);
            if (e.kind != kafka::TransactionError::Kind::retriable) fail(e);
            if (clock_.now() >= deadline) {
                // A broker that refuses TLS while others serve may be the transaction coordinator:
                // as for a failed delivery, replacing the producer cannot change that.
                if (const auto& refused = producer.refusal_blocking_delivery(); !refused.empty())
                    throw DefiniteError(refused + "; " + e.what());
                fail(e);
            }
            if (stop_requested_())
                throw TransientError("kafka: stopped while initialising Kafka transactions (init_transactions)");
        }
    }
    offsets_.emplace(config_.offsets_topic, source);
    return stored_position(source);
}

Lsn KafkaTransactions::stored_position(const kafka::SourceIdentity& source) {
    // The offsets topic's waits look at the stop request on every turn: progress for /healthz.
    const kafka::StopRequested stop = [this] {
        waiting_("Kafka: the offsets topic \"" + config_.offsets_topic + "\"");
        return stop_requested_();
    };
    const auto topic = kafka_.offsets_topic(config_.offsets_topic, source);
    topic->ensure_topic(stop);
    return topic->read_committed_position(stop);
}

Lsn KafkaTransactions::resume_from(Lsn stored, Lsn slot_confirmed) {
    committed_end_ = std::max({committed_end_, stored, slot_confirmed});
    open_.reset();
    log::info("exactly-once: offsets topic \"" + config_.offsets_topic + "\" holds " + format_lsn(stored) +
              "; transactions committing before " + format_lsn(committed_end_) + " are not published again");
    return committed_end_;
}

void KafkaTransactions::add(kafka::KafkaProducer& producer, std::size_t record_bytes) {
    if (!open_) {
        try {
            producer.begin_transaction();
        } catch (const kafka::TransactionError& e) {
            fail(e);
        }
        open_ = Open{0, 0, clock_.now(), 0};
    }
    ++open_->events;
    open_->bytes += static_cast<long>(record_bytes);
}

void KafkaTransactions::postgres_committed(Lsn end_lsn) {
    if (open_) open_->last_end_lsn = end_lsn;
}

// Only at a PostgreSQL commit: a Kafka transaction holds whole PostgreSQL transactions.
bool KafkaTransactions::due(bool receiving_postgres_transaction, Clock::time_point now) const {
    const auto at = deadline(receiving_postgres_transaction);
    return at && (open_->events >= config_.transaction_max_events || open_->bytes >= config_.transaction_max_bytes ||
                  now >= *at);
}

std::optional<Clock::time_point> KafkaTransactions::deadline(bool receiving_postgres_transaction) const {
    if (!open_ || receiving_postgres_transaction || open_->last_end_lsn == 0) return std::nullopt;
    return open_->started + std::chrono::milliseconds(config_.transaction_max_ms);
}

kafka::Record KafkaTransactions::offsets_record() { return offsets_->record_for(open_end(), clock_.unix_ms()); }

void KafkaTransactions::commit(kafka::KafkaProducer& producer, const std::function<void()>& while_waiting) {
    for (;;) {
        try {
            producer.commit_transaction(500);
            break;
        } catch (const kafka::TransactionError& e) {
            if (e.kind != kafka::TransactionError::Kind::retriable) fail(e);
            while_waiting();
        }
    }
}

void KafkaTransactions::mark_committed() {
    committed_end_ = std::max(committed_end_, open_end());
    open_.reset();
}

void KafkaTransactions::abort(kafka::KafkaProducer* producer) {
    if (producer && open_) {
        try {
            producer->abort_transaction(5000);
        } catch (const kafka::TransactionError& e) {
            // Anything but fencing is settled by the next producer's init_transactions, which
            // aborts whatever this one left open.
            if (e.kind == kafka::TransactionError::Kind::fenced) fail(e);
        }
    }
    open_.reset();
}

}  // namespace outbox::pipeline
