#include "outbox/pipeline/pipeline.hpp"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "outbox/pipeline/column_catalog_reader.hpp"
#include "outbox/pipeline/type_catalog_reader.hpp"
#include "outbox/pipeline/producer_failed.hpp"
#include "outbox/pipeline/shutdown_signal.hpp"
#include "outbox/pipeline/slot_gap_error.hpp"
#include "outbox/registry/schema_registry_client.hpp"
#include "outbox/replication/connection_settings.hpp"
#include "outbox/replication/source_setup.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::pipeline {
namespace {

// Frames handled between two looks at Kafka's delivery reports and the status timer.
constexpr int kFramesPerTurn = 4096;

// Waits of the replication connection before the stream (connecting, setting up, starting) end
// at a shutdown request: SIGTERM must not wait on a server that stopped answering. Connecting
// gives up at `deadline` (when set): a connection that is accepted and then never answered
// (a stalled proxy) would wait for ever. They wake every second to report progress to /healthz,
// which says what they wait for. Each statement's answer is bounded by bound_answers().
bool wait_unless_stopping(int socket, bool for_write, std::optional<std::chrono::steady_clock::time_point> deadline,
                          observability::Health& health) {
    pollfd fds[2] = {{socket, static_cast<short>(for_write ? POLLOUT : POLLIN), 0}, {ShutdownSignal::fd(), POLLIN, 0}};
    health.set_waiting_for("PostgreSQL: connecting and setting up the replication connection");
    for (;;) {
        health.mark_progress();
        int timeout = 1000;
        if (deadline) {
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) throw TransientError("postgres: the server did not answer while connecting");
            timeout = static_cast<int>(std::min<long>(left.count(), timeout));
        }
        const int ready = poll(fds, 2, timeout);
        if (ShutdownSignal::requested()) return false;
        if (ready > 0 || (ready < 0 && errno != EINTR)) return true;
    }
}

constexpr auto kFirstReconnectDelay = std::chrono::milliseconds(100);
// Dropping a slot this start created: how long, and how often while its walsender exits.
constexpr auto kDropLimit = std::chrono::milliseconds(10000);
constexpr auto kDropRetry = std::chrono::milliseconds(200);

std::chrono::milliseconds jittered(std::chrono::milliseconds base) {
    static std::mt19937 random{std::random_device{}()};
    std::uniform_int_distribution<long> spread(base.count() / 2, base.count());
    return std::chrono::milliseconds(spread(random));
}

}  // namespace

Pipeline::Pipeline(const config::Config& config, const std::string& bootstrap_servers,
                   observability::Metrics& metrics)
    : config_(config),
      metrics_(metrics),
      silence_(std::chrono::milliseconds(config.postgres.receive_timeout_ms)),
      kafka_(config.kafka, bootstrap_servers),
      core_(config, metrics, kafka_, SystemClock::instance(), &ShutdownSignal::requested) {
    core_.router().set_type_catalog([&conninfo = config.postgres.conninfo](std::uint32_t relid,
                                                                         const config::TableName& table) {
        return read_type_catalog(conninfo, relid, table);
    });
    core_.router().set_catalog([&conninfo = config.postgres.conninfo](std::uint32_t relid, const config::TableName& table) {
        return read_column_catalog(conninfo, relid, table);
    });
    // /readyz asks the current producer for metadata from the HTTP thread (librdkafka handles are
    // thread-safe); registering waits for a running probe, so the previous producer can then go.
    core_.on_producer_change([this](kafka::KafkaProducer* producer) {
        kafka_probe_.reset();
        if (producer)
            kafka_probe_.emplace(metrics_.health.register_kafka_probe([producer] { return producer->check_metadata(1000); }));
    });
    if (config.postgres.heartbeat_interval_ms > 0)
        heartbeat_ = std::make_unique<replication::Heartbeat>(config.postgres.conninfo,
                                                              config.postgres.heartbeat_action_query,
                                                              std::chrono::milliseconds(config.postgres.heartbeat_interval_ms));
}

void Pipeline::run() {
    auto backoff = kFirstReconnectDelay;
    const auto backoff_cap = std::chrono::milliseconds(config_.postgres.reconnect_backoff_max_ms);
    while (!ShutdownSignal::requested()) {
        try {
            connect();
            backoff = kFirstReconnectDelay;
            stream();
            if (ShutdownSignal::requested()) return core_.drain_and_stop();
        } catch (const ProducerFailed& e) {
            core_.producer_failed(e.what());
        } catch (const TransientError& e) {
            metrics_.health.set_streaming(false);
            metrics_.health.set_interrupted_by(log::mask_conninfo(e.what()));
            if (dynamic_cast<const registry::RegistryUnavailableError*>(&e)) metrics_.schema_registry_unavailable.add();
            // A stop that ended a wait (room in librdkafka's queue, a Kafka commit) drains over the
            // same connection, so that what Kafka acknowledges meanwhile is confirmed.
            if (ShutdownSignal::requested()) return core_.drain_and_stop();
            log::warn(std::string(e.what()) + "; reconnecting in about " + std::to_string(backoff.count()) + " ms");
        } catch (const DefiniteError&) {
            core_.definite_error();
            throw;
        }
        core_.connection_lost();
        stream_.reset();
        wait_before_reconnecting(jittered(backoff));
        backoff = std::min(backoff * 2, backoff_cap);
    }
    core_.drain_and_stop();
}

void Pipeline::wait_before_reconnecting(std::chrono::milliseconds delay) {
    const auto reconnect_at = SystemClock::instance().now() + delay;
    while (const auto wake_at = core_.wait_between_connections(reconnect_at)) {
        pollfd fds[2] = {{ShutdownSignal::fd(), POLLIN, 0}, {core_.kafka_wakeup_fd(), POLLIN, 0}};
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*wake_at - Clock::now());
        poll(fds, fds[1].fd >= 0 ? 2 : 1, static_cast<int>(std::max<long>(wait.count(), 0)));
    }
}

// The slot as this connection meets it: SourceSetup looks it up and creates it on the
// replication connection; a drop ends that connection first.
class Pipeline::ConnectionSlots final : public replication::SlotPort {
public:
    ConnectionSlots(Pipeline& pipeline, replication::SourceSetup& setup) : pipeline_(pipeline), setup_(setup) {}
    std::optional<Lsn> look_up_slot() override { return setup_.look_up_slot(); }
    Creation create_slot() override { return setup_.create_slot(); }
    void drop_slot() override {
        pipeline_.keeper_.reset();
        pipeline_.stream_.reset();
        pipeline_.drop_new_slot();
    }

private:
    Pipeline& pipeline_;
    replication::SourceSetup& setup_;
};

void Pipeline::connect() {
    const bool bounded = config_.postgres.receive_timeout_ms > 0;
    connecting_until_ = bounded ? std::optional<Clock::time_point>(
                                      Clock::now() + std::chrono::milliseconds(config_.postgres.receive_timeout_ms))
                                : std::nullopt;
    replication::PgConnection connection(
        replication::replication_conninfo(config_.postgres.conninfo,
                                          std::chrono::milliseconds(config_.postgres.receive_timeout_ms)),
        replication::PgConnection::Mode::logical_replication,
        [this](int socket, bool for_write) {
            return wait_unless_stopping(socket, for_write, connecting_until_, metrics_.health);
        });
    connecting_until_.reset();
    connection.bound_answers({std::chrono::milliseconds(config_.postgres.receive_timeout_ms), [this](auto what, auto) {
                                  metrics_.health.set_waiting_for("PostgreSQL: " + std::string(what));
                                  metrics_.health.mark_progress();
                                  return !ShutdownSignal::requested();
                              }});
    replication::SourceSetup setup(config_, connection, replication::SourceSetup::Mode::apply);
    setup.run(core_.source());
    ConnectionSlots slots(*this, setup);
    core_.prepare_slot(slots);
    core_.check_resume_position();
    stream_ = std::make_unique<replication::ReplicationStream>(std::move(connection));
    stream_->start(config_.postgres.slot_name, config_.postgres.publication_name, core_.source().server_version);
    core_.attach(*stream_);
    if (core_.exactly_once()) {
        // The slot is ours from START_REPLICATION on, and the walsender ends a connection that
        // stays silent for wal_sender_timeout while Kafka is set up.
        keeper_.emplace(*stream_, core_.source().slot_confirmed_lsn, core_.status_interval());
        try {
            core_.start_kafka_transactions(slots);
        } catch (...) {
            keeper_.reset();
            throw;
        }
        keeper_.reset();
    }
    core_.streaming();
    silence_.connected(Clock::now(), std::chrono::milliseconds(core_.source().wal_sender_timeout_ms));
}

// The slot this connection attempt created must not outlive the gap it would hide. Without
// WAIT, and retried while the walsender that held it is still exiting (55006), so that the drop
// is bounded and a stop ends it; what is left over is the core's definite error.
void Pipeline::drop_new_slot() {
    const auto deadline = Clock::now() + kDropLimit;
    for (;;) {
        try {
            const replication::PgConnection connection(
                replication::replication_conninfo(config_.postgres.conninfo, kDropLimit),
                replication::PgConnection::Mode::logical_replication,
                [this, deadline](int socket, bool for_write) {
                    return wait_unless_stopping(socket, for_write, deadline, metrics_.health);
                });
            connection.exec("DROP_REPLICATION_SLOT " + connection.quote_identifier(config_.postgres.slot_name),
                            "dropping the replication slot this start created");
            return;
        } catch (const TransientError&) {
            if (Clock::now() + kDropRetry >= deadline || ShutdownSignal::requested()) throw;
        }
        pollfd stop = {ShutdownSignal::fd(), POLLIN, 0};
        poll(&stop, 1, static_cast<int>(kDropRetry.count()));
    }
}

void Pipeline::stream() {
    // Serving librdkafka costs a read() of its wake-up pipe and an rd_kafka_poll(), and the loop
    // turns every few messages while it keeps up with the walsender: serve it only when the pipe
    // was readable, or when the last turn skipped poll() and so could not tell.
    bool kafka_ready = true;
    while (!ShutdownSignal::requested()) {
        metrics_.health.mark_progress();
        if (kafka_ready)
            core_.serve_kafka(0);
        else
            core_.act_on_deliveries();

        // At the in-flight limits the socket is left unread: the walsender waits, while
        // acknowledgements and status updates keep flowing.
        const int frames = core_.process_received(kFramesPerTurn);
        if (frames < kFramesPerTurn && !core_.saturated()) core_.send_if_caught_up();
        core_.finish_turn();
        if (frames == kFramesPerTurn) {
            kafka_ready = true;
            continue;
        }

        const bool reading = !core_.saturated();
        pollfd fds[3] = {{core_.kafka_wakeup_fd(), POLLIN, 0}, {ShutdownSignal::fd(), POLLIN, 0}, {stream_->socket(), POLLIN, 0}};
        auto wake_at = core_.next_due();
        if (const auto check = silence_.next_check(); reading && check) wake_at = std::min(wake_at, *check);
        // Rounded up: truncating would make the last millisecond before each deadline a busy loop
        // of poll(0) calls (with 10 ms status updates, 5 of every 6 poll() calls draining a backlog).
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(wake_at - Clock::now());
        const int timeout = static_cast<int>(std::clamp<long>(wait.count(), 0, core_.status_interval().count()));
        const int ready = poll(fds, reading ? 3 : 2, timeout);
        if (ready < 0 && errno != EINTR) throw TransientError(std::string("poll: ") + std::strerror(errno));
        kafka_ready = ready < 0 || fds[0].revents != 0;
        if (!reading) {
            silence_.not_listening(Clock::now());
        } else if (fds[2].revents & (POLLIN | POLLERR | POLLHUP)) {
            silence_.heard(Clock::now());
            stream_->receive(!core_.caught_up());
        } else {
            check_server_silence();
        }
    }
}

// A connection can die without closing (a stalled proxy): nothing arrives and nothing fails.
// replication::SilencePolicy says when to ask for a reply and when to give up.
void Pipeline::check_server_silence() {
    switch (silence_.check(Clock::now(), core_.received_lsn())) {
        case replication::SilencePolicy::Verdict::quiet:
            return;
        case replication::SilencePolicy::Verdict::ask_for_reply:
            core_.request_reply();
            silence_.asked(Clock::now());
            return;
        case replication::SilencePolicy::Verdict::lost:
            throw TransientError("postgres: " + silence_.describe_loss());
    }
}

}  // namespace outbox::pipeline
