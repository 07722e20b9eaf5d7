#include "outbox/pipeline/stream_core.hpp"

#include <algorithm>
#include <utility>

#include "outbox/pipeline/producer_failed.hpp"
#include "outbox/pipeline/slot_gap_error.hpp"
#include "outbox/replication/walsender_frames.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {
namespace {

constexpr std::chrono::milliseconds kHeldRecheck{10};
// Between connections Kafka's reports are served at least this often.
constexpr std::chrono::milliseconds kServeBetweenConnections{50};

}  // namespace

StreamCore::StreamCore(const config::Config& config, observability::Metrics& metrics, kafka::KafkaConnector& kafka,
                       const Clock& clock, StopRequested stop_requested)
    : config_(config),
      metrics_(metrics),
      kafka_(kafka),
      clock_(clock),
      stop_requested_(stop_requested),
      exactly_once_(config.delivery_guarantee == config::DeliveryGuarantee::exactly_once),
      status_interval_(config.postgres.status_update_interval_ms),
      router_(config),
      slot_start_(config),
      sources_(metrics),
      kafka_txns_(config, kafka, clock, std::move(stop_requested),
                  [this](const std::string& what) {
                      metrics_.health.mark_progress();
                      metrics_.health.set_waiting_for(what);
                  }),
      deliveries_(config, metrics, tracker_, sources_, flush_, exactly_once_ ? &kafka_txns_ : nullptr, clock),
      changes_(config, router_, tracker_, sources_, deliveries_, exactly_once_ ? &kafka_txns_ : nullptr, [this] {
          if (kafka_transaction_due()) commit_kafka_transaction();
      }) {
    for (const auto& table : config.postgres.tables) sources_.id(OutboxSources::Kind::table, table.qualified());
    deliveries_.on_waiting_for_room([this] {
        // The record and everything after it wait for Kafka; a stop does not (what was not handed
        // over comes again from the slot), except while it drains: then for shutdown.timeout.ms.
        if (stop_requested_() && (!stop_deadline_ || clock_.now() >= *stop_deadline_))
            throw TransientError("kafka: stopped while librdkafka's queue was full (queue.buffering.max.messages, "
                                 "queue.buffering.max.kbytes)");
        keep_up_while_kafka_waits();
    });
    // In exactly-once mode the producer is made after the slot is ours (start_kafka_transactions()).
    if (!exactly_once_) make_producer();
}

void StreamCore::on_producer_change(std::function<void(kafka::KafkaProducer*)> watcher) {
    producer_watcher_ = std::move(watcher);
    if (producer_watcher_ && producer_) producer_watcher_(producer_.get());
}

void StreamCore::make_producer(const std::vector<std::pair<std::string, std::string>>& overrides) {
    producer_ = kafka_.producer([this](const kafka::DeliveryReport& r) { deliveries_.on_delivery(r); }, overrides);
    deliveries_.use(producer_.get());
    if (producer_watcher_) producer_watcher_(producer_.get());
}

// The producer and everything it had in flight are given up (recovery replays from the slot).
void StreamCore::drop_producer() {
    if (producer_watcher_) producer_watcher_(nullptr);
    deliveries_.use(nullptr);
    producer_.reset();
    deliveries_.reset();
}

void StreamCore::prepare_slot(replication::SlotPort& slots) {
    slot_start_.prepare(slots, source_, [this] {
        try {
            return kafka_txns_.stored_position(
                {source_.identity.system_id, source_.identity.database, config_.postgres.slot_name});
        } catch (const TransientError& e) {
            throw_if_kafka_refuses_us(e);
            throw;
        }
    });
}

// The offsets topic's client cannot tell brokers that are away from brokers that refuse this
// router's certificate checks or credentials; a producer's connection checks can, as they do for
// init_transactions. No transactional.id is given, so nothing is fenced.
void StreamCore::throw_if_kafka_refuses_us(const TransientError& cause) {
    const auto probe = kafka_.producer([](const kafka::DeliveryReport&) {}, {});
    probe->check_metadata(1000);
    probe->serve(0);
    if (const auto& refused = probe->authentication_failure(); !refused.empty())
        throw DefiniteError(refused + "; " + cause.what());
}

void StreamCore::check_resume_position() const {
    check_position(std::max({tracker_.confirmed_lsn(), kafka_txns_.committed_end(), changes_.handed_over_end()}),
                   "this router has handled events up to");
}

// A position this process (or the exactly-once offsets topic) holds must lie in the server's
// history: after a failover to a server that was behind, or a restore from a copy, trusting it
// would skip every new transaction below it and move the slot past the server's WAL.
void StreamCore::check_position(Lsn position, const std::string& what) const {
    if (position == 0) return;
    const auto& server = source_.identity;
    std::string why;
    if (!source_.previous_system_id.empty() && source_.previous_system_id != server.system_id)
        why = "the server is another cluster (system " + server.system_id + ", before " + source_.previous_system_id + ")";
    else if (position > server.wal_position)
        why = "the server's WAL ends at " + format_lsn(server.wal_position) + " (timeline " +
              std::to_string(server.timeline) + ")";
    else if (source_.previous_timeline_end && position > *source_.previous_timeline_end)
        why = "the server's timeline " + std::to_string(server.timeline) + " left timeline " +
              std::to_string(source_.previous_timeline) + " at " + format_lsn(*source_.previous_timeline_end);
    if (why.empty()) return;
    throw DefiniteError("postgres: " + what + " " + format_lsn(position) + ", but " + why +
                        ": that position is not in this server's WAL history (a failover to a server that was "
                        "behind, or a restored copy?). Events past the slot's position on this server may be in "
                        "Kafka although this server lost them; check them, then start the router again" +
                        (exactly_once_ ? " with a new offsets.topic (or transactional.id), since the stored "
                                         "position would be refused again"
                                       : ", which resumes from the slot"));
}

void StreamCore::attach(replication::WalStream& stream) {
    stream_ = &stream;
    if (source_.server_version < 140000 && !config_.outbox.message_prefixes.empty())
        log::warn("outbox.message.prefix.include.list is set, but PostgreSQL " + std::to_string(source_.server_version / 10000) +
                  " does not stream logical decoding messages (14 and later do): only table rows are routed");
    changes_.connected();
    tracker_.reset_confirmed(source_.slot_confirmed_lsn);
    status_interval_ = std::chrono::milliseconds(config_.postgres.status_update_interval_ms);
    if (source_.wal_sender_timeout_ms > 0)
        status_interval_ = std::min(status_interval_, std::chrono::milliseconds(source_.wal_sender_timeout_ms / 2));
}

// The slot is ours now (START_REPLICATION succeeded): a new transactional producer fences any
// older instance with the same transactional.id, and Kafka says where the last one got to.
void StreamCore::start_kafka_transactions(replication::SlotPort& slots) {
    const kafka::SourceIdentity identity{source_.identity.system_id, source_.identity.database, config_.postgres.slot_name};
    kafka_txns_.decide_transactional_id(identity);
    make_producer(kafka_txns_.producer_overrides());
    const Lsn stored = kafka_txns_.start(*producer_, identity);
    check_position(stored, "the offsets topic \"" + config_.offsets_topic + "\" says events were published up to");
    if (const auto gap = slot_start_.gap(stored, source_)) {
        connection_lost();
        try {
            slots.drop_slot();
        } catch (const TransientError& e) {
            // Left standing, the slot would let the next start stream past the gap.
            throw DefiniteError(*gap + ". Dropping the new slot failed (" + e.what() +
                                "): drop it (SELECT pg_drop_replication_slot('" + config_.postgres.slot_name +
                                "')) before starting the router again");
        }
        throw SlotGapError(*gap + " (the new slot was dropped again)");
    }
    tracker_.restart_from(kafka_txns_.resume_from(stored, source_.slot_confirmed_lsn));
}

void StreamCore::streaming() {
    metrics_.health.set_waiting_for("");
    metrics_.confirmed_lsn.set(static_cast<std::int64_t>(source_.slot_confirmed_lsn));
    metrics_.health.set_streaming(true);
    if (std::exchange(connected_before_, true)) metrics_.reconnects.add();
    next_status_update_ = clock_.now();

    const Lsn server = source_.identity.wal_position;
    const Lsn confirmed = source_.slot_confirmed_lsn;
    log::info("streaming from slot \"" + config_.postgres.slot_name + "\" (publication \"" +
              config_.postgres.publication_name + "\") at confirmed LSN " + format_lsn(confirmed) + ", server at " +
              format_lsn(server) + ", lag " + std::to_string(server > confirmed ? server - confirmed : 0) + " bytes");
}

// A backlog is read faster than it is written, so the router runs out of received messages
// often even then; the commit age tells the two apart. Both times are the server's clock.
bool StreamCore::caught_up() const {
    return config_.caught_up_lag_ms > 0 &&
           newest_send_time_us_ - changes_.newest_commit_time_us() <= 1000L * config_.caught_up_lag_ms;
}

// Caught up, a record's latency is mostly librdkafka's linger.ms: waiting for company that is
// not coming. Behind, linger.ms fills larger batches (fewer produce requests, less CPU) while
// adding little to latencies already longer than the lag limit. Under Kafka transactions the
// commit sends everything, and nothing is readable before it.
bool StreamCore::lingering_while_caught_up() const { return flush_.lingering() && !exactly_once_ && caught_up(); }

bool StreamCore::flush_due() const { return lingering_while_caught_up() && flush_.due(clock_.now()); }

void StreamCore::send_if_caught_up() {
    if (!flush_due()) return;
    metrics_.caught_up_flushes.add();
    flush_.flushing(clock_.now());
    // Long enough for the broker threads to wake up and send.
    flush_.flushed(producer_->flush(1));
    act_on_deliveries();
}

// Transactions count too: behind one unacknowledged event, every transaction received after it
// waits in the tracker, those without outbox rows included.
bool StreamCore::saturated() const {
    // A record waiting for its topic (topic.creation.*) holds everything after it back as well.
    return deliveries_.holding() || static_cast<long>(tracker_.events_in_flight()) >= config_.max_inflight_messages ||
           static_cast<long>(tracker_.transactions_pending()) >= config_.max_inflight_messages ||
           static_cast<long>(deliveries_.bytes_in_flight()) >= config_.max_inflight_bytes;
}

void StreamCore::serve_kafka(int timeout_ms) {
    if (!producer_) return;
    producer_->serve(timeout_ms);
    act_on_deliveries();
}

// Also after reports served elsewhere (produce() waiting for room in librdkafka's queue).
void StreamCore::act_on_deliveries() {
    deliveries_.retry_held();
    deliveries_.send_dead_letters();
    deliveries_.check_health();
}

int StreamCore::process_received(int max_frames) {
    int frames = 0;
    while (frames < max_frames && !saturated()) {
        const auto frame = stream_->next_frame();
        if (!frame) break;
        process_frame(*frame);
        ++frames;
    }
    return frames;
}

void StreamCore::finish_turn() {
    if (exactly_once_ && kafka_transaction_due()) commit_kafka_transaction();
    if (clock_.now() >= next_status_update_) confirm_to_postgres();
    stream_->flush_output();
    metrics_.pending_transactions.set(static_cast<std::int64_t>(tracker_.transactions_pending()));
}

Clock::time_point StreamCore::next_due() const {
    auto wake_at = next_status_update_;
    // Only a Kafka transaction that could commit now: one waiting for a PostgreSQL commit
    // would make an overdue deadline a busy loop.
    if (const auto deadline = kafka_txns_.deadline(changes_.receiving_transaction())) wake_at = std::min(wake_at, *deadline);
    if (lingering_while_caught_up()) wake_at = std::min(wake_at, clock_.now() + CaughtUpFlush::kRecheck);
    // Kafka's answers about a held record's topic wake nothing: look again soon.
    if (deliveries_.holding()) wake_at = std::min(wake_at, clock_.now() + kHeldRecheck);
    return wake_at;
}

void StreamCore::request_reply() {
    confirm_to_postgres(true);
    stream_->flush_output();
}

void StreamCore::process_frame(std::span<const char> frame) {
    const auto parsed = replication::parse_server_frame(frame);
    if (const auto* data = std::get_if<replication::XLogData>(&parsed)) {
        received_lsn_ = std::max(received_lsn_, data->wal_end);
        newest_send_time_us_ = data->send_time_us;
        metrics_.received_lsn.set(static_cast<std::int64_t>(received_lsn_));
        // Many frames carry 0 (only a transaction's last message has a position); name the
        // newest known one in errors instead.
        const Lsn position = data->data_start != 0 ? data->data_start : received_lsn_;
        changes_.handle(decoder_.decode(data->payload, position), position);
        return;
    }
    const auto& keepalive = std::get<replication::PrimaryKeepalive>(parsed);
    received_lsn_ = std::max(received_lsn_, keepalive.wal_end);
    metrics_.received_lsn.set(static_cast<std::int64_t>(received_lsn_));
    tracker_.keepalive(keepalive.wal_end);
    if (keepalive.reply_requested) confirm_to_postgres();
}

void StreamCore::confirm_to_postgres(bool reply_requested) {
    const Lsn flushed = confirmable_lsn();
    // write = flush on purpose: the walsender pings with a keepalive only while the client's
    // write position is behind what it sent, and those keepalives are what let an idle outbox
    // confirm past WAL that other tables wrote.
    stream_->send_status_update(flushed, flushed, reply_requested);
    metrics_.confirmed_lsn.set(static_cast<std::int64_t>(flushed));
    metrics_.transactions_confirmed.add(tracker_.transactions_confirmed() - transactions_reported_);
    transactions_reported_ = tracker_.transactions_confirmed();
    if (flushed != last_sent_flush_) log::debug("confirmed " + format_lsn(flushed) + " to PostgreSQL");
    last_sent_flush_ = flushed;
    next_status_update_ = clock_.now() + status_interval_;
}

Lsn StreamCore::confirmable_lsn() {
    if (!exactly_once_) return tracker_.confirmed_lsn();
    if (!kafka_txns_.open() && tracker_.transactions_pending() == 0) kafka_txns_.adopt_settled(tracker_.confirmed_lsn());
    return kafka_txns_.committed_end();
}

std::optional<Clock::time_point> StreamCore::wait_between_connections(Clock::time_point reconnect_at) {
    const auto now = clock_.now();
    if (now >= reconnect_at || stop_requested_()) return std::nullopt;
    metrics_.health.mark_progress();
    try {
        serve_kafka(0);
    } catch (const ProducerFailed& e) {
        producer_failed(e.what());
    } catch (const TransientError& e) {
        // A dead letter waited for room in librdkafka's queue and a stop ended the wait.
        log::warn(e.what());
        return std::nullopt;
    }
    // Without a producer (exactly-once between connections) there is nothing to serve.
    if (!producer_) return reconnect_at;
    return std::min(reconnect_at, now + kServeBetweenConnections);
}

void StreamCore::connection_lost() {
    metrics_.health.set_waiting_for("");
    // The server re-sends every unconfirmed transaction, so a partial one starts over, with the
    // record that was waiting for its topic.
    deliveries_.drop_held();
    changes_.connection_lost();
    if (exactly_once_) rewind_kafka_transactions();
    stream_ = nullptr;
}

void StreamCore::producer_failed(const std::string& reason) {
    // Everything not yet acknowledged is in doubt; the slot still has it. Confirm what is
    // certain, then replay the rest through a new producer.
    if (stream_) {
        try {
            confirm_to_postgres();
        } catch (const TransientError&) {
        }
    }
    metrics_.producer_errors.add();
    changes_.producer_replaced();
    if (exactly_once_) {
        // The next connection makes a new transactional producer; the stream rewinds to the
        // last committed Kafka transaction.
        log::error(reason + "; rewinding to " + format_lsn(kafka_txns_.committed_end()));
        rewind_kafka_transactions();
        return;
    }
    log::error(reason + "; replacing the producer and replaying from " + format_lsn(tracker_.confirmed_lsn()));
    drop_producer();
    tracker_.discard_pending();
    // The discarded events are never reported: without this the caught-up flush would wait for
    // them, and only ever flush when forced.
    flush_.reset();
    make_producer();
}

void StreamCore::definite_error() {
    metrics_.health.set_streaming(false);
    // Still worth telling the server what is safely delivered: fewer duplicates on restart,
    // and a restart after a schema change then begins after it rather than before it,
    // where the settings made for the new columns could not read the old ones.
    if (!stream_) return;
    // A record waiting for its topic would ask for the topic again while the stop waits (and
    // a refused creation, the usual cause of this stop, would end the wait at once); it is
    // not confirmed, so it comes again on the next start.
    deliveries_.drop_held();
    if (!exactly_once_) deliver_in_flight();
    try {
        confirm_to_postgres();
    } catch (const TransientError&) {
    }
}

bool StreamCore::deliver_in_flight() {
    log::info("stopping: waiting up to " + std::to_string(config_.shutdown_timeout_ms) + " ms for " +
              std::to_string(tracker_.events_in_flight()) + " events in flight");
    const auto deadline = clock_.now() + std::chrono::milliseconds(config_.shutdown_timeout_ms);
    try {
        while (tracker_.events_in_flight() > 0 && clock_.now() < deadline) {
            metrics_.health.mark_progress();
            serve_kafka(50);
        }
    } catch (const std::exception& e) {
        log::warn(std::string("stopping without waiting for the rest: ") + e.what());
        return false;
    }
    return true;
}

void StreamCore::drain_and_stop() {
    if (!stop_deadline_) stop_deadline_ = clock_.now() + std::chrono::milliseconds(config_.shutdown_timeout_ms);
    bool delivered = deliver_in_flight();
    if (exactly_once_ && producer_ && kafka_txns_.open()) {
        try {
            // A Kafka transaction ends only at a PostgreSQL commit: a half-received one is dropped
            // with its Kafka transaction and comes again on the next start.
            if (changes_.receiving_transaction() || kafka_txns_.open_end() == 0)
                rewind_kafka_transactions();
            else
                commit_kafka_transaction();
        } catch (const std::exception& e) {
            delivered = false;
            log::warn(std::string("stopping without committing the last Kafka transaction: ") + e.what());
        }
    }
    deliveries_.drop_held();
    changes_.stopped();
    if (stream_) {
        try {
            confirm_to_postgres();
            stream_->finish();
        } catch (const TransientError& e) {
            log::warn(std::string("could not send the final status update: ") + e.what());
        }
    }
    metrics_.health.set_streaming(false);
    log::info("stopped; confirmed " + format_lsn(tracker_.confirmed_lsn()) + ", " +
              std::to_string(tracker_.events_in_flight()) + " events still unacknowledged");
    if (!delivered && deliveries_.refused_a_record()) deliveries_.check_health();
}

void StreamCore::commit_kafka_transaction() {
    // Only the process whose walsender holds the slot may commit: if ours is gone (a paused
    // process whose connection timed out), a successor may already be replaying these
    // transactions. Kafka fences the old producer epoch as well; this check does not rely on it.
    if (stream_) stream_->check_connected();
    deliveries_.produce_offsets_record(kafka_txns_.offsets_record());
    try {
        kafka_txns_.commit(*producer_, [this] {
            // Kafka is slow or away: keep PostgreSQL informed while the commit is retried. Once a
            // stop is asked for, the commit has shutdown.timeout.ms from then, as the deliveries do.
            if (stop_requested_()) {
                if (!stop_deadline_) stop_deadline_ = clock_.now() + std::chrono::milliseconds(config_.shutdown_timeout_ms);
                if (clock_.now() >= *stop_deadline_)
                    throw TransientError("kafka: stopping: the Kafka transaction was not committed within shutdown.timeout.ms");
            }
            keep_up_while_kafka_waits();
        });
    } catch (const TransientError&) {
        // The commit's flush serves the last delivery reports: one that Kafka refused for good
        // is why the transaction must abort, and a rewind would only meet it again.
        deliveries_.check_health();
        throw;
    }
    deliveries_.check_health();
    kafka_txns_.mark_committed();
}

// The loop is not stuck while it waits for Kafka: PostgreSQL hears from it, and so does /healthz.
void StreamCore::keep_up_while_kafka_waits() {
    metrics_.health.mark_progress();
    if (stream_ && clock_.now() >= next_status_update_) confirm_to_postgres();
    if (stream_) stream_->flush_output();
}

void StreamCore::rewind_kafka_transactions() {
    kafka_txns_.abort(producer_.get());
    // Nothing of the abandoned transaction may reach a broker after the next producer fenced it.
    if (producer_) producer_->purge();
    drop_producer();
    tracker_.restart_from(kafka_txns_.committed_end());
}

}  // namespace outbox::pipeline
