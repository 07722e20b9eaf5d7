#include "simulation.hpp"

#include <memory>
#include <random>
#include <sstream>

#include "invariants.hpp"
#include "outbox/config/config.hpp"
#include "outbox/kafka/offsets_record.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/pipeline/producer_failed.hpp"
#include "outbox/pipeline/stream_core.hpp"
#include "outbox/replication/silence_policy.hpp"
#include "outbox/util/errors.hpp"
#include "sim_clock.hpp"
#include "sim_kafka.hpp"
#include "sim_postgres.hpp"
#include "sim_setup.hpp"
#include "trace.hpp"
#include "workload.hpp"

namespace outbox::simulation {
namespace {

using namespace std::chrono_literals;
constexpr const char* kDeadLetterTopic = "dlq";

// Per-step chances, in 1/10000.
struct FaultMix {
    int cut = 0, silence = 0, fatal = 0, stall = 0, create_timeout = 0, metadata = 0, partitions = 0, crash = 0,
        restart = 0, commit_timeout = 0, abortable = 0, takeover = 0, slot_lost = 0;
    bool create_refused = false, create_unauthorized = false;
};

struct Scenario {
    bool exactly_once = false;
    bool tolerance_all = false;
    bool dead_letter = false;
    bool topic_creation = false;
    long max_inflight = 1000;
    int status_ms = 100;
    int transaction_max_ms = 200;
    long transaction_max_events = 100;
    int steps = 600;
    int commit_every = 3;  // steps between transactions, on average
    // Set-up: a pair of routers (active and standby) started together, a slot that does not
    // exist yet, the server's wal_sender_timeout and the router's receive.timeout.ms.
    bool pair = false;
    bool fresh_slot = false;
    int wal_sender_timeout_ms = 60000;
    int receive_timeout_ms = 30000;
    WorkloadMix mix;
    FaultMix faults;
    SetupFaults setup;

    std::string describe() const {
        std::ostringstream s;
        s << (exactly_once ? "exactly-once" : "at-least-once") << ", errors.tolerance " << (tolerance_all ? "all" : "none")
          << (dead_letter ? " with DLQ" : "") << ", topic.creation " << (topic_creation ? "on" : "off")
          << ", max.inflight.messages " << max_inflight << ", sources: outbox" << (mix.second_table ? "+outbox2" : "")
          << (mix.messages ? "+messages" : "") << (mix.non_transactional_messages ? "+non-transactional" : "")
          << (mix.poison ? ", poison events" : "") << (mix.large_every ? ", large transactions" : "")
          << (faults.create_refused ? ", CreateTopics refused" : "") << (faults.create_unauthorized ? ", CreateTopics unauthorized" : "")
          << (pair ? ", a pair of routers" : "") << (fresh_slot ? ", no slot yet" : "")
          << ", wal_sender_timeout " << wal_sender_timeout_ms << " ms, receive.timeout.ms " << receive_timeout_ms;
        return s.str();
    }

    std::string yaml() const {
        std::ostringstream y;
        y << "postgres:\n  conninfo: \"host=simulated\"\n  status.update.interval.ms: " << status_ms << "\n"
          << "  receive.timeout.ms: " << receive_timeout_ms << "\n"
          << "  table.include.list: public.outbox" << (mix.second_table ? ", public.outbox2" : "") << "\n";
        if (mix.messages || mix.non_transactional_messages) y << "outbox:\n  message.prefix.include.list: outbox\n";
        y << "kafka:\n  bootstrap.servers: \"simulated:9092\"\n";
        y << "max.inflight.messages: " << max_inflight << "\n";
        y << "shutdown.timeout.ms: 2000\n";
        if (tolerance_all) y << "errors.tolerance: all\n";
        if (dead_letter) y << "errors.deadletterqueue.topic.name: " << kDeadLetterTopic << "\n";
        if (exactly_once)
            y << "delivery.guarantee: exactly-once\ntransaction.max.ms: " << transaction_max_ms
              << "\ntransaction.max.events: " << transaction_max_events << "\n";
        if (topic_creation) y << "topic.creation.default.partitions: 2\ntopic.creation.default.replication.factor: 1\n";
        return y.str();
    }
};

int chance(std::mt19937_64& r, int lo, int hi) { return lo + static_cast<int>(r() % static_cast<unsigned>(hi - lo + 1)); }

Scenario draw(std::mt19937_64& r) {
    Scenario s;
    s.exactly_once = r() % 5 < 2;
    s.tolerance_all = r() % 2 == 0;
    s.dead_letter = s.tolerance_all && r() % 3 != 0;
    s.topic_creation = r() % 2 == 0;
    const long limits[] = {2, 5, 20, 1000};
    s.max_inflight = limits[r() % 4];
    s.status_ms = chance(r, 20, 300);
    s.transaction_max_ms = chance(r, 10, 400);
    s.transaction_max_events = chance(r, 1, 200);
    s.steps = chance(r, 300, 900);
    s.commit_every = chance(r, 1, 6);
    s.mix.second_table = r() % 3 == 0;
    s.mix.messages = r() % 3 == 0;
    s.mix.non_transactional_messages = s.mix.messages && r() % 3 == 0;
    s.mix.poison = r() % 3 == 0;
    s.mix.large_every = r() % 3 == 0 ? chance(r, 5, 30) : 0;
    auto& f = s.faults;
    f.cut = chance(r, 0, 150);
    f.silence = chance(r, 0, 60);
    f.fatal = chance(r, 0, 30);
    f.stall = chance(r, 0, 40);
    f.create_timeout = s.topic_creation ? chance(r, 0, 200) : 0;
    f.metadata = chance(r, 0, 30);
    f.partitions = chance(r, 0, 10);
    f.crash = chance(r, 0, 15);
    f.restart = chance(r, 0, 10);
    f.commit_timeout = s.exactly_once ? chance(r, 0, 40) : 0;
    f.abortable = s.exactly_once ? chance(r, 0, 20) : 0;
    f.takeover = s.exactly_once ? chance(r, 0, 10) : 0;
    f.create_refused = s.topic_creation && r() % 12 == 0;
    f.create_unauthorized = s.topic_creation && r() % 12 == 0;
    // Drawn after everything above, so that the older parts of a seed's scenario stay the same.
    s.pair = r() % 3 == 0;
    s.fresh_slot = r() % (s.pair ? 2 : 4) == 0;
    // A pair hands the slot over again and again: its active instance crashes or restarts often,
    // and idles between transactions (the slot is then confirmed past the offsets topic's position).
    if (s.pair) {
        f.crash += chance(r, 0, 15);
        f.restart += chance(r, 0, 15);
        s.commit_every += chance(r, 2, 20);
    }
    s.wal_sender_timeout_ms = chance(r, 300, 1500);
    s.receive_timeout_ms = chance(r, 100, 1500);
    // A slot lost while the offsets topic remembers where its events got to: exactly-once only
    // (at-least-once has no record of what a lost slot still held).
    f.slot_lost = s.exactly_once ? chance(r, 0, 8) : 0;
    auto& u = s.setup;
    u.drop_fails = chance(r, 0, 5000);
    u.published_meanwhile = s.exactly_once ? chance(r, 0, 1000) : 0;
    if (s.exactly_once) {
        u.step_slow = chance(r, 0, 1500);
        u.step_fail = chance(r, 0, 1000);
        u.step_stop = chance(r, 0, 600);
        u.step_kill = chance(r, 0, 1500);
    }
    return s;
}

struct Instance {
    Instance(const config::Config& config, SimConnector& kafka, SimClock& clock, int number)
        : core(config, metrics, kafka, clock, [this] { return stop_requested; }),
          silence(std::chrono::milliseconds(config.postgres.receive_timeout_ms)),
          number(number) {
        core.on_producer_change([this](kafka::KafkaProducer* producer) {
            producer_instance = producer ? static_cast<SimProducer*>(producer)->instance() : 0;
        });
    }
    observability::Metrics metrics;
    bool stop_requested = false;
    pipeline::StreamCore core;
    replication::SilencePolicy silence;
    std::unique_ptr<SimWalStream> stream;
    Clock::time_point reconnect_at{};
    std::chrono::milliseconds backoff{100};
    // The wait between connections: when the core asked to be woken, and how often it was.
    std::optional<Clock::time_point> wake_at;
    Clock::time_point waiting_since{};
    long wakeups = 0;
    // Since when the stream has been heard regularly, without a stall (for the receive limit's
    // return to base), and when it was last heard.
    Clock::time_point healthy_since{};
    Clock::time_point last_heard{};
    int number;
    int producer_instance = 0;  // the cluster's number for its current producer; 0: none
    int connects = 0;
    bool stopped = false;  // a definite error: exits 1
    std::string stop_reason;
    bool exited = false;   // a stop request, or a kill: gone
};

class Run {
public:
    Run(std::uint64_t seed, bool echo)
        : random_(seed),
          scenario_(draw(random_)),
          config_(config::parse_config(scenario_.yaml(), "simulation.yaml")),
          server_(clock_, random_, trace_),
          cluster_(clock_, random_, trace_),
          connector_(cluster_),
          workload_(server_, random_, scenario_.mix),
          checker_(server_, cluster_, workload_,
                   {scenario_.exactly_once, scenario_.tolerance_all, scenario_.dead_letter ? kDeadLetterTopic : ""}),
          start_faults_(clock_, random_, trace_, scenario_.setup) {
        outcome_.seed = seed;
        outcome_.scenario = scenario_.describe();
        trace_.echo = echo;
        server_.on_confirm = [this](Lsn flushed) {
            if (flushed > server_.slot_confirmed()) {
                note("slot confirmed to " + format_lsn(flushed));
                checker_.confirming(flushed);
            }
        };
        cluster_.auto_create_topics = !scenario_.topic_creation;
        if (scenario_.faults.create_refused) cluster_.faults.create_topics_refused_suffix = ".Invoice";
        cluster_.faults.create_topics_unauthorized = scenario_.faults.create_unauthorized;
        cluster_.faults.setup_step = [this](const std::string& step, const kafka::StopRequested* stop) {
            start_faults_.step(step, stop);
        };
        if (scenario_.topic_creation && random_() % 2 == 0) cluster_.create_topic("outbox.event.Order", 2);
        // A principal that may write the topics but not create topics.
        if (scenario_.faults.create_unauthorized)
            for (const char* topic : {"outbox.event.Order", "outbox.event.Invoice", "outbox.event.Stock"})
                cluster_.create_topic(topic, 2);
        cluster_.create_topic(kDeadLetterTopic, 1);
        if (scenario_.fresh_slot) server_.drop_slot();
        routers_.push_back(make_instance());
        if (scenario_.pair) routers_.push_back(make_instance());
    }

    Outcome run() {
        try {
            for (int i = 0; i < scenario_.steps && !finished(); ++i) step(true);
            quiet();
            checker_.check_kafka();
        } catch (const Violation& v) {
            outcome_.violation = v.what();
        }
        outcome_.events = workload_.events().size();
        outcome_.duplicates = checker_.duplicates_seen;
        outcome_.duplicates_allowed = checker_.duplicates_allowed;
        std::ostringstream t;
        trace_.print(t, 60);
        outcome_.trace = t.str();
        return outcome_;
    }

private:
    void note(const std::string& what) { trace_.at(clock_.millis(), what); }

    std::unique_ptr<Instance> make_instance() {
        note("router instance " + std::to_string(instances_ + 1) + " starts");
        return std::make_unique<Instance>(config_, connector_, clock_, ++instances_);
    }

    // A definite stop ends the run once the supervisor's restarts met it again.
    bool finished() const {
        for (const auto& r : routers_)
            if (!r->stopped) return false;
        return true;
    }

    // The instance that streams, or else the first.
    Instance& active() {
        for (auto& r : routers_)
            if (r->stream) return *r;
        return *routers_.front();
    }

    std::chrono::milliseconds silence_base() const {
        return std::max(std::chrono::milliseconds(scenario_.receive_timeout_ms),
                        std::chrono::milliseconds(scenario_.wal_sender_timeout_ms));
    }

    void step(bool faults) {
        ++outcome_.steps;
        // Rows written before the first slot exists are not the router's (the slot starts after them).
        if (random_() % static_cast<unsigned>(scenario_.commit_every) == 0 && faults && (server_.slot_exists() || slot_lost_))
            workload_.commit_next();
        if (random_() % 20 == 0) server_.unpublished_write(chance(random_, 8, 4000));
        if (faults) inject();
        if (paused_ && random_() % 10 == 0) {
            // The paused instance wakes up: its walsender is gone, its producer fenced.
            router_step(*paused_);
            if (paused_->stopped || paused_->exited) paused_.reset();
        }
        for (std::size_t i = 0; i < routers_.size(); ++i) {
            router_step(*routers_[i]);
            if (routers_[i]->stream) routers_[i]->stream->pump(chance(random_, 1, 64));
        }
        replace_gone();
        // A stall passes quicker: there is nothing to do but wait.
        clock_.advance(std::chrono::milliseconds(clock_.now() < server_.silent_until ? chance(random_, 20, 120)
                                                                                  : chance(random_, 1, 15)));
        for (auto& r : routers_) {
            if (r->stopped) continue;
            checker_.check_bounds(r->core.tracker().events_in_flight(), r->core.tracker().transactions_pending(),
                                  scenario_.max_inflight);
            check_receive_limit(*r);
        }
        if (outcome_.steps % 50 == 0) checker_.check_kafka();
    }

    // Killed or stopped instances are started again (a supervisor); definitely stopped ones too,
    // twice: every restart must meet the same refusal.
    void replace_gone() {
        for (auto& r : routers_) {
            if (r->exited) {
                r = make_instance();
                // A restarted process takes a while to come up; meanwhile the other of a pair
                // takes the slot over.
                r->waiting_since = clock_.now();
                if (scenario_.pair) r->reconnect_at = clock_.now() + std::chrono::milliseconds(chance(random_, 500, 5000));
            } else if (r->stopped && restarts_after_stop_ < 2) {
                ++restarts_after_stop_;
                // The operator does what the exit line asks before the restart.
                if (r->stop_reason.find("pg_drop_replication_slot") != std::string::npos && server_.drop_slot())
                    note("the operator drops the slot, as the exit line asks");
                note("the supervisor restarts instance " + std::to_string(r->number));
                r = make_instance();
            }
        }
    }

    // After the faults: the router must deliver everything and confirm past the last commit.
    void quiet() {
        note("quiet: no more faults or transactions");
        cluster_.faults.stalled_until = {};
        cluster_.faults.metadata_down_until = {};
        cluster_.faults.create_topics_timeouts = 0;
        cluster_.faults.commit_timeouts = 0;
        cluster_.faults.fail_next_commit_abortable = false;
        scenario_.setup.on = false;
        server_.silent_until = {};
        paused_.reset();
        for (auto& r : routers_)
            if (r->stream) r->stream->silent = false;
        const auto deadline = clock_.now() + 120s;
        const Lsn last_commit = server_.wal().empty() ? 0 : server_.wal().back().commit_lsn;
        while (!finished() && clock_.now() < deadline) {
            if (server_.slot_exists() && server_.slot_confirmed() > last_commit &&
                active().core.tracker().events_in_flight() == 0)
                break;
            step(false);
        }
        if (finished()) return;
        if (!server_.slot_exists() || server_.slot_confirmed() <= last_commit)
            throw Violation("stuck: after 120 s without faults the slot is at " + format_lsn(server_.slot_confirmed()) +
                            ", the last commit at " + format_lsn(last_commit));
        checker_.everything_delivered();
    }

    void inject() {
        const auto& f = scenario_.faults;
        const auto roll = [&](int per10000) { return per10000 > 0 && static_cast<int>(random_() % 10000) < per10000; };
        auto& target = active();
        auto* stream = target.stream.get();
        if (stream && roll(f.cut)) {
            const int after = chance(random_, 0, 20);
            note("fault: connection " + std::to_string(stream->connection()) + " breaks after " + std::to_string(after) + " more frames");
            stream->cut_after(after);
        }
        if (roll(f.silence) && clock_.now() >= server_.silent_until) {
            const auto length = std::chrono::milliseconds(
                chance(random_, static_cast<int>(silence_base().count() / 2), static_cast<int>(silence_base().count() * 6)));
            note("fault: the walsender is silent for " + std::to_string(length.count()) + " ms (a stalled proxy)");
            server_.silent_until = clock_.now() + length;
        }
        if (auto* producer = connector_.latest(); producer && roll(f.fatal)) producer->make_fatal("idempotence broken");
        if (roll(f.stall)) {
            const auto length = std::chrono::milliseconds(chance(random_, 50, 12000));
            note("fault: brokers stall for " + std::to_string(length.count()) + " ms");
            cluster_.faults.stalled_until = clock_.now() + length;
        }
        if (roll(f.create_timeout)) {
            note("fault: the next CreateTopics times out");
            cluster_.faults.create_topics_timeouts = 1;
        }
        if (roll(f.metadata)) {
            note("fault: metadata unavailable");
            cluster_.faults.metadata_down_until = clock_.now() + std::chrono::milliseconds(chance(random_, 100, 5000));
        }
        if (roll(f.partitions)) {
            const char* const topics[] = {"outbox.event.Order", "outbox.event.Invoice", "outbox.event.Stock"};
            cluster_.add_partitions(topics[random_() % 3], 1);
        }
        if (roll(f.commit_timeout)) cluster_.faults.commit_timeouts = chance(random_, 1, 3);
        if (roll(f.abortable)) {
            note("fault: the next Kafka commit fails abortably");
            cluster_.faults.fail_next_commit_abortable = true;
        }
        if (roll(f.slot_lost) && server_.slot_exists() && stored_position() != 0) lose_slot();
        if (roll(f.crash)) crash(target);
        else if (roll(f.restart)) restart(target);
        else if (!paused_ && roll(f.takeover)) takeover(target);
    }

    // An operator drops the slot (its walsender terminated first), or a failover reaches a
    // standby it was not synchronized to; only once the offsets topic records a position (before
    // that, no process can know what the slot held, as under at-least-once).
    void lose_slot() {
        note("fault: the slot is lost (dropped by hand, or a failover to a standby without it) at " +
             format_lsn(server_.slot_confirmed()));
        for (auto* r : {routers_.front().get(), routers_.back().get(), paused_.get()})
            if (r && r->stream) r->stream->cut_after(0);
        server_.drop_slot();
        slot_lost_ = true;
    }

    // kill -9: only the slot, Kafka and the offsets topic survive. What the producer had in flight
    // may have reached the broker in part.
    void crash(Instance& r) {
        note("fault: crash (kill -9) of instance " + std::to_string(r.number));
        r.exited = true;
        r.stream.reset();
    }

    // SIGTERM, then a new start.
    void restart(Instance& r) {
        note("fault: SIGTERM and restart of instance " + std::to_string(r.number));
        r.stop_requested = true;
        if (!r.stopped && r.stream) guarded(r, [&] { r.core.drain_and_stop(); });
        r.exited = true;
    }

    // The instance pauses; its walsender times out; another instance takes the slot over and
    // fences it.
    void takeover(Instance& r) {
        note("fault: instance " + std::to_string(r.number) + " pauses; a second instance takes over");
        if (r.stream) r.stream->cut_after(0);
        for (auto& slot : routers_)
            if (slot.get() == &r) {
                paused_ = std::move(slot);
                slot = make_instance();
                return;
            }
    }

    void router_step(Instance& r) {
        if (r.stopped || r.exited) return;
        if (!r.stream) {
            if (clock_.now() < r.reconnect_at) {
                wait_between_connections(r);
                return;
            }
            connect(r);
            return;
        }
        guarded(r, [&] {
            r.core.serve_kafka(0);
            const int frames = r.core.process_received(chance(random_, 1, 64));
            if (!r.core.saturated()) r.core.send_if_caught_up();
            r.core.finish_turn();
            // As Pipeline::stream() does after its poll().
            if (r.core.saturated()) {
                r.silence.not_listening(clock_.now());
            } else if (frames > 0) {
                r.silence.heard(clock_.now());
                if (clock_.now() - r.last_heard >= silence_base() / 2) r.healthy_since = clock_.now();
                r.last_heard = clock_.now();
            } else {
                switch (r.silence.check(clock_.now(), r.core.received_lsn())) {
                    case replication::SilencePolicy::Verdict::quiet:
                        break;
                    case replication::SilencePolicy::Verdict::ask_for_reply:
                        r.core.request_reply();
                        r.silence.asked(clock_.now());
                        break;
                    case replication::SilencePolicy::Verdict::lost:
                        throw TransientError("postgres: " + r.silence.describe_loss());
                }
            }
        });
        if (r.stop_requested && !r.stopped) r.exited = true;
    }

    // Woken only when the core asked to be: each wake-up is counted, and the wait must not spin.
    void wait_between_connections(Instance& r) {
        if (r.wake_at && clock_.now() < *r.wake_at) return;
        ++r.wakeups;
        const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - r.waiting_since);
        if (r.wakeups > 3 + waited.count() / 40)
            throw Violation("instance " + std::to_string(r.number) + ": the wait before reconnecting spins: " +
                            std::to_string(r.wakeups) + " wake-ups in " + std::to_string(waited.count()) + " ms");
        guarded(r, [&] {
            r.wake_at = r.core.wait_between_connections(r.reconnect_at);
            if (!r.wake_at) r.reconnect_at = clock_.now();
        });
        if (r.stop_requested && !r.stopped) r.exited = true;
    }

    // The receive limit returns to its base once the stream has been healthy for longer than the
    // raised limit.
    void check_receive_limit(Instance& r) {
        const auto now = clock_.now();
        // Healthy: streaming, read (not held at the in-flight limits), heard at least every half of
        // the base limit (a client blocked on Kafka hears nothing either), the walsender not stalled.
        if (!r.stream || now < server_.silent_until || r.core.saturated() || now - r.last_heard >= silence_base() / 2) {
            r.healthy_since = now;
            return;
        }
        const auto base = silence_base();
        const auto limit = r.silence.limit();
        if (limit > base && now - r.healthy_since > limit + base)
            throw Violation("instance " + std::to_string(r.number) + ": the receive limit stays at " +
                            std::to_string(limit.count()) + " ms (base " + std::to_string(base.count()) + " ms) after " +
                            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now - r.healthy_since).count()) +
                            " ms of healthy streaming");
    }

    void connect(Instance& r) {
        ++r.connects;
        start_faults_.connecting([&r] { r.stop_requested = true; }, [&r] { return r.metrics.health.progress_marks(); });
        try {
            guarded(r, [&] {
                auto& source = r.core.source();
                source.previous_system_id = source.identity.system_id;
                source.previous_timeline = source.identity.timeline;
                source.identity = {"7300000000000000001", 1, server_.wal_end(), "app"};
                source.server_version = 160000;
                source.wal_sender_timeout_ms = scenario_.wal_sender_timeout_ms;
                source.publication_seen = true;
                SimSlots slots(server_, workload_, random_, trace_, scenario_.setup,
                               {[&] { race(r); }, [&] {
                                    r.stream.reset();
                                    note("instance " + std::to_string(r.number) + " drops the slot");
                                }});
                r.core.prepare_slot(slots);
                r.core.check_resume_position();
                auto stream = server_.start_replication();
                if (!stream) throw TransientError("sim: 55006 the slot is active in another process");
                r.stream = std::move(stream);
                note("instance " + std::to_string(r.number) + ": connection " + std::to_string(r.stream->connection()) +
                     " streams from " + format_lsn(server_.slot_confirmed()));
                r.core.attach(*r.stream);
                if (r.core.exactly_once()) r.core.start_kafka_transactions(slots);
                r.core.streaming();
                r.silence.connected(clock_.now(), std::chrono::milliseconds(scenario_.wal_sender_timeout_ms));
                r.healthy_since = clock_.now();
                r.backoff = 100ms;
                check_no_gap(r);
            });
        } catch (const Killed&) {
            note("instance " + std::to_string(r.number) + " is gone (kill -9)");
            r.stream.reset();
            r.exited = true;
        }
        start_faults_.connecting({}, {});
        if (r.stop_requested && !r.stopped) r.exited = true;
    }

    // Between this start's look-up and its CREATE_REPLICATION_SLOT: two routers started together
    // (the other one, not yet connected, creates the slot first), or a record published meanwhile.
    void race(Instance& r) {
        if (scenario_.setup.on && scenario_.setup.published_meanwhile > 0 &&
            static_cast<int>(random_() % 10000) < scenario_.setup.published_meanwhile)
            publish_meanwhile();
        if (!scenario_.pair) return;
        for (auto& other : routers_) {
            if (other.get() == &r || other->connects > 0 || other->stopped || other->exited) continue;
            if (random_() % 2 != 0) return;
            note("instance " + std::to_string(other->number) + " creates the slot first");
            connect(*other);
            start_faults_.connecting([&r] { r.stop_requested = true; }, [&r] { return r.metrics.health.progress_marks(); });
            return;
        }
    }

    // A stream starts: under exactly-once, what the offsets topic holds and the slot's start
    // must leave no committed event out, unless slot.recreate.when.lost says to.
    void check_no_gap(Instance& r) {
        if (!scenario_.exactly_once || config_.postgres.slot_recreate_when_lost || !slot_lost_) return;
        const Lsn stored = stored_position();
        // Nothing recorded (the slot was lost before the first Kafka commit): no process can
        // know of the gap, as under at-least-once.
        if (stored == 0) return;
        const Lsn start = server_.slot_confirmed();
        if (const auto gap = events_between(server_, stored, start); !gap.empty())
            throw Violation("instance " + std::to_string(r.number) + " streams from " + format_lsn(start) +
                            ", past a gap: the offsets topic holds " + format_lsn(stored) + ", and " + gap +
                            " committed in between will never be published");
    }

    // Another slot of the name published up to just before the WAL's end and was lost, between
    // this start's read of the offsets topic and its creation: a record appears in the topic.
    void publish_meanwhile() {
        const Lsn position = server_.wal_end() - 1;
        if (position <= stored_position()) return;
        note("fault: meanwhile another slot of the name published up to " + format_lsn(position) + " and was lost");
        if (!cluster_.has_topic(config_.offsets_topic)) cluster_.create_topic(config_.offsets_topic, 1);
        kafka::OffsetsRecord offsets(config_.offsets_topic, {"7300000000000000001", "app", config_.postgres.slot_name});
        const auto record = offsets.record_for(position, clock_.unix_ms());
        StoredRecord stored;
        stored.key = std::string(*record.key);
        stored.value = std::string(*record.value);
        stored.state = StoredRecord::State::plain;
        cluster_.append(config_.offsets_topic, 0, std::move(stored));
        slot_lost_ = true;
    }

    // What the offsets topic holds for the source (read past the set-up faults).
    Lsn stored_position() {
        if (!cluster_.has_topic(config_.offsets_topic)) return 0;
        const kafka::SourceIdentity identity{"7300000000000000001", "app", config_.postgres.slot_name};
        const bool on = std::exchange(scenario_.setup.on, false);
        const Lsn stored = connector_.offsets_topic(config_.offsets_topic, identity)->read_committed_position([] { return false; });
        scenario_.setup.on = on;
        return stored;
    }

    // What Pipeline::run() does with what a turn throws.
    template <typename F>
    void guarded(Instance& r, F&& turn) {
        try {
            try {
                turn();
                return;
            } catch (const pipeline::ProducerFailed& e) {
                note("instance " + std::to_string(r.number) + ": producer failed: " + e.what());
                r.core.producer_failed(e.what());
            } catch (const TransientError& e) {
                note("instance " + std::to_string(r.number) + ": " + e.what());
                if (r.stop_requested) return r.core.drain_and_stop();
            } catch (const ProtocolError& e) {
                throw Violation(std::string("protocol error: ") + e.what());
            } catch (const DefiniteError& e) {
                r.core.definite_error();
                if (r.stream && !r.stream->cut()) checker_.stopped(*r.stream, r.producer_instance);
                return stop(r, e.what());
            }
            r.core.connection_lost();
            r.stream.reset();
            r.reconnect_at = clock_.now() + r.backoff;
            r.backoff = std::min(r.backoff * 2, std::chrono::milliseconds(2000));
            r.wake_at.reset();
            r.waiting_since = clock_.now();
            r.wakeups = 0;
        } catch (const Violation&) {
            throw;
        } catch (const DefiniteError& e) {
            // Out of Pipeline::run(): the process exits 1.
            stop(r, e.what());
        } catch (const std::logic_error& e) {
            throw Violation(std::string("logic error: ") + e.what());
        } catch (const std::exception& e) {
            throw Violation(std::string("unexpected exception: ") + e.what());
        }
    }

    // A definite error is right only where the scenario refuses something for good.
    void stop(Instance& r, const std::string& why) {
        note("instance " + std::to_string(r.number) + " stops: " + why);
        r.stopped = true;
        r.stop_reason = why;
        r.stream.reset();
        if (&r == paused_.get()) return;  // a paused, fenced instance
        outcome_.stopped_definite = true;
        const auto& f = scenario_.faults;
        bool refused = false;
        for (const auto& e : workload_.events())
            if (e.refusal != Event::Refusal::none &&
                (!scenario_.tolerance_all || (scenario_.exactly_once && e.refusal == Event::Refusal::report)))
                refused = true;
        const bool fenced = why.find("fenced") != std::string::npos;
        const bool expected = refused || f.create_refused || fenced || slot_lost_;
        if (!expected) throw Violation("the router stopped with a definite error the scenario does not explain: " + why);
    }

    std::mt19937_64 random_;
    Scenario scenario_;
    config::Config config_;
    SimClock clock_;
    Trace trace_;
    SimPostgres server_;
    SimCluster cluster_;
    SimConnector connector_;
    Workload workload_;
    Checker checker_;
    StartFaults start_faults_;
    int instances_ = 0;
    bool slot_lost_ = false;
    int restarts_after_stop_ = 0;
    std::vector<std::unique_ptr<Instance>> routers_;
    std::unique_ptr<Instance> paused_;
    Outcome outcome_;
};

}  // namespace

Outcome simulate(std::uint64_t seed, bool echo_trace) {
    Run run(seed, echo_trace);
    return run.run();
}

}  // namespace outbox::simulation
