#include "outbox/pipeline/pipeline.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <thread>

#include "outbox/pipeline/shutdown_signal.hpp"
#include "outbox/replication/walsender_frames.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {
namespace {

// Frames handled between two looks at Kafka's delivery reports and the status timer.
constexpr int kFramesPerTurn = 4096;
constexpr auto kMaxReconnectBackoff = std::chrono::milliseconds(30000);

std::chrono::milliseconds jittered(std::chrono::milliseconds base) {
    static std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<long> spread(base.count() / 2, base.count());
    return std::chrono::milliseconds(spread(random));
}

}  // namespace

Pipeline::Pipeline(const config::Config& config, const std::string& bootstrap_servers)
    : config_(config),
      status_interval_(config.postgres.status_update_interval_ms),
      router_(config),
      producer_(config.kafka, bootstrap_servers, [this](const kafka::DeliveryReport& r) { on_delivery(r); }) {}

void Pipeline::run() {
    auto backoff = std::chrono::milliseconds(100);
    while (!ShutdownSignal::requested()) {
        try {
            connect();
            backoff = std::chrono::milliseconds(100);
            stream();
            if (ShutdownSignal::requested()) return drain_and_stop();
        } catch (const TransientError& e) {
            log::warn(std::string(e.what()) + "; reconnecting in about " + std::to_string(backoff.count()) + " ms");
        } catch (const DefiniteError&) {
            // Still worth telling the server what is safely delivered: fewer duplicates on restart.
            if (stream_) {
                try {
                    confirm_to_postgres(false);
                } catch (const TransientError&) {
                }
            }
            throw;
        }
        // The server re-sends the unconfirmed transactions, so this partial one starts over.
        if (open_txn_) tracker_.abandon_open_transaction();
        open_txn_.reset();
        stream_.reset();
        const auto deadline = Clock::now() + jittered(backoff);
        while (Clock::now() < deadline && !ShutdownSignal::requested()) {
            producer_.serve(50);
            check_kafka_health();
        }
        backoff = std::min(backoff * 2, kMaxReconnectBackoff);
    }
    drain_and_stop();
}

void Pipeline::connect() {
    replication::PgConnection connection(config_.postgres.conninfo, replication::PgConnection::Mode::logical_replication);
    replication::SourceSetup setup(config_, connection, replication::SourceSetup::Mode::apply);
    setup.run(source_);
    stream_ = std::make_unique<replication::ReplicationStream>(std::move(connection));
    stream_->start(config_.postgres.slot_name, config_.postgres.publication_name, source_.server_version);
    relations_.clear();
    tracker_.reset_confirmed(source_.slot_confirmed_lsn);

    status_interval_ = std::chrono::milliseconds(config_.postgres.status_update_interval_ms);
    if (source_.wal_sender_timeout_ms > 0)
        status_interval_ = std::min(status_interval_, std::chrono::milliseconds(source_.wal_sender_timeout_ms / 2));
    next_status_update_ = Clock::now();

    const Lsn server = source_.identity.wal_position;
    const Lsn confirmed = source_.slot_confirmed_lsn;
    log::info("streaming from slot \"" + config_.postgres.slot_name + "\" (publication \"" +
              config_.postgres.publication_name + "\") at confirmed LSN " + format_lsn(confirmed) + ", server at " +
              format_lsn(server) + ", lag " + std::to_string(server > confirmed ? server - confirmed : 0) + " bytes");
}

void Pipeline::stream() {
    pollfd fds[3] = {{stream_->socket(), POLLIN, 0}, {producer_.wakeup_fd(), POLLIN, 0}, {ShutdownSignal::fd(), POLLIN, 0}};
    while (!ShutdownSignal::requested()) {
        producer_.serve(0);
        check_kafka_health();

        int frames = 0;
        while (frames < kFramesPerTurn) {
            const auto frame = stream_->next_frame();
            if (!frame) break;
            process_frame(*frame);
            ++frames;
        }
        if (Clock::now() >= next_status_update_) confirm_to_postgres(false);
        stream_->flush_output();
        if (frames == kFramesPerTurn) continue;  // more may be buffered: keep going before sleeping

        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_status_update_ - Clock::now());
        const int timeout = static_cast<int>(std::clamp<long>(wait.count(), 0, status_interval_.count()));
        if (poll(fds, 3, timeout) < 0 && errno != EINTR)
            throw TransientError(std::string("poll: ") + std::strerror(errno));
        if (fds[0].revents & (POLLIN | POLLERR | POLLHUP)) stream_->receive();
    }
}

void Pipeline::process_frame(std::span<const char> frame) {
    const auto parsed = replication::parse_server_frame(frame);
    if (const auto* data = std::get_if<replication::XLogData>(&parsed)) {
        received_lsn_ = std::max(received_lsn_, data->wal_end);
        // Many frames carry 0 (only a transaction's last message has a position); name the
        // newest known one in errors instead.
        const Lsn position = data->data_start != 0 ? data->data_start : received_lsn_;
        process_message(decoder_.decode(data->payload, position), position);
        return;
    }
    const auto& keepalive = std::get<replication::PrimaryKeepalive>(parsed);
    received_lsn_ = std::max(received_lsn_, keepalive.wal_end);
    tracker_.keepalive(keepalive.wal_end);
    if (keepalive.reply_requested) confirm_to_postgres(false);
}

void Pipeline::process_message(const pgoutput::Message& message, Lsn wal_position) {
    if (const auto* begin = std::get_if<pgoutput::Begin>(&message)) {
        if (open_txn_) throw ProtocolError("pgoutput BEGIN at WAL " + format_lsn(wal_position) + " inside an open transaction");
        open_txn_ = tracker_.begin_transaction();
        open_context_ = {begin->final_lsn, postgres_micros_to_unix_millis(begin->commit_time_us), begin->xid};
    } else if (const auto* commit = std::get_if<pgoutput::Commit>(&message)) {
        if (!open_txn_) throw ProtocolError("pgoutput COMMIT at WAL " + format_lsn(wal_position) + " without BEGIN");
        if (commit->commit_lsn != open_context_.commit_lsn)
            throw ProtocolError("pgoutput COMMIT at WAL " + format_lsn(commit->commit_lsn) + " does not match BEGIN's " +
                                format_lsn(open_context_.commit_lsn));
        tracker_.commit_transaction(*open_txn_, commit->end_lsn);
        open_txn_.reset();
    } else if (const auto* relation = std::get_if<pgoutput::Relation>(&message)) {
        on_relation(*relation);
    } else if (const auto* insert = std::get_if<pgoutput::Insert>(&message)) {
        on_insert(*insert);
    } else if (const auto* update = std::get_if<pgoutput::Update>(&message)) {
        on_update(*update);
    } else if (const auto* logical = std::get_if<pgoutput::LogicalMessage>(&message)) {
        on_message(*logical);
    }
    // DELETE and TRUNCATE on an outbox table are housekeeping (insert-then-delete is the
    // recommended pattern); ORIGIN and TYPE carry nothing the router needs.
}

void Pipeline::on_relation(const pgoutput::Relation& relation) {
    relations_[relation.relid] = RelationEntry{router_.bind(relation)};
}

const Pipeline::RelationEntry& Pipeline::relation(std::uint32_t relid) const {
    const auto found = relations_.find(relid);
    if (found == relations_.end())
        throw ProtocolError("pgoutput: change for relation " + std::to_string(relid) + " before its RELATION message");
    return found->second;
}

void Pipeline::on_insert(const pgoutput::Insert& insert) {
    const auto& entry = relation(insert.relid);
    if (!entry.outbox) return;
    if (!open_txn_) throw ProtocolError("pgoutput INSERT outside a transaction");
    publish(router_.route_insert(*entry.outbox, insert.new_tuple, open_context_));
}

void Pipeline::on_update(const pgoutput::Update& update) {
    const auto& entry = relation(update.relid);
    if (entry.outbox) router_.on_update(*entry.outbox, open_context_);
}

void Pipeline::on_message(const pgoutput::LogicalMessage& message) {
    if (!router_.watches_prefix(message.prefix)) return;
    // A non-transactional message has no transaction: the router refuses it as an invalid row.
    const router::TransactionContext context = open_txn_ ? open_context_ : router::TransactionContext{message.lsn, 0, 0};
    const auto record = router_.route_message(message, context);
    if (!open_txn_) throw ProtocolError("pgoutput: transactional MESSAGE outside a transaction");
    publish(record);
}

void Pipeline::publish(const router::OutboxRecord& record) {
    producer_.produce(record, *open_txn_);
    tracker_.event_sent(*open_txn_);
}

void Pipeline::on_delivery(const kafka::DeliveryReport& report) {
    if (report.error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        // Never acknowledged, so its transaction is never confirmed: the slot keeps the event.
        if (delivery_failure_.empty())
            delivery_failure_ = "kafka: delivery to topic \"" + std::string(report.topic) + "\" failed: " +
                                rd_kafka_err2str(report.error);
        return;
    }
    tracker_.event_delivered(report.tag);
}

void Pipeline::check_kafka_health() const {
    if (!delivery_failure_.empty())
        throw DefiniteError(delivery_failure_ + "; confirmed up to " + format_lsn(tracker_.confirmed_lsn()) +
                            " and nothing past it");
    if (const auto fatal = producer_.fatal_error(); !fatal.empty())
        throw DefiniteError("kafka: fatal producer error: " + fatal);
}

void Pipeline::confirm_to_postgres(bool reply_requested) {
    const Lsn flushed = tracker_.confirmed_lsn();
    // write = flush on purpose: the walsender pings with a keepalive only while the client's
    // write position is behind what it sent, and those keepalives are what let an idle outbox
    // confirm past WAL that other tables wrote.
    stream_->send_status_update(flushed, flushed, reply_requested);
    if (flushed != last_sent_flush_) log::debug("confirmed " + format_lsn(flushed) + " to PostgreSQL");
    last_sent_flush_ = flushed;
    next_status_update_ = Clock::now() + status_interval_;
}

void Pipeline::drain_and_stop() {
    log::info("stopping: waiting up to " + std::to_string(config_.shutdown_timeout_ms) + " ms for " +
              std::to_string(tracker_.events_in_flight()) + " events in flight");
    const auto deadline = Clock::now() + std::chrono::milliseconds(config_.shutdown_timeout_ms);
    while (tracker_.events_in_flight() > 0 && Clock::now() < deadline && delivery_failure_.empty())
        producer_.serve(50);
    if (open_txn_) tracker_.abandon_open_transaction();
    open_txn_.reset();
    if (stream_) {
        try {
            confirm_to_postgres(false);
            stream_->finish();
        } catch (const TransientError& e) {
            log::warn(std::string("could not send the final status update: ") + e.what());
        }
    }
    log::info("stopped; confirmed " + format_lsn(tracker_.confirmed_lsn()) + ", " +
              std::to_string(tracker_.events_in_flight()) + " events still unacknowledged");
    check_kafka_health();
}

}  // namespace outbox::pipeline
