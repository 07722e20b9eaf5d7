#include "simulation.hpp"

#include <memory>
#include <random>
#include <sstream>

#include "invariants.hpp"
#include "outbox/config/config.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/pipeline/producer_failed.hpp"
#include "outbox/pipeline/stream_core.hpp"
#include "outbox/util/errors.hpp"
#include "sim_clock.hpp"
#include "sim_kafka.hpp"
#include "sim_postgres.hpp"
#include "trace.hpp"
#include "workload.hpp"

namespace outbox::simulation {
namespace {

using namespace std::chrono_literals;
constexpr const char* kDeadLetterTopic = "dlq";

// Per-step chances, in 1/10000.
struct FaultMix {
    int cut = 0, silence = 0, fatal = 0, stall = 0, create_timeout = 0, metadata = 0, partitions = 0, crash = 0,
        restart = 0, commit_timeout = 0, abortable = 0, takeover = 0;
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
    WorkloadMix mix;
    FaultMix faults;

    std::string describe() const {
        std::ostringstream s;
        s << (exactly_once ? "exactly-once" : "at-least-once") << ", errors.tolerance " << (tolerance_all ? "all" : "none")
          << (dead_letter ? " with DLQ" : "") << ", topic.creation " << (topic_creation ? "on" : "off")
          << ", max.inflight.messages " << max_inflight << ", sources: outbox" << (mix.second_table ? "+outbox2" : "")
          << (mix.messages ? "+messages" : "") << (mix.non_transactional_messages ? "+non-transactional" : "")
          << (mix.poison ? ", poison events" : "") << (mix.large_every ? ", large transactions" : "")
          << (faults.create_refused ? ", CreateTopics refused" : "") << (faults.create_unauthorized ? ", CreateTopics unauthorized" : "");
        return s.str();
    }

    std::string yaml() const {
        std::ostringstream y;
        y << "postgres:\n  conninfo: \"host=simulated\"\n  status.update.interval.ms: " << status_ms << "\n"
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
    f.silence = chance(r, 0, 30);
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
    return s;
}

struct Instance {
    Instance(const config::Config& config, SimConnector& kafka, SimClock& clock, int number)
        : core(config, metrics, kafka, clock, [this] { return stop_requested; }), number(number) {}
    observability::Metrics metrics;
    bool stop_requested = false;
    pipeline::StreamCore core;
    std::unique_ptr<SimWalStream> stream;
    Clock::time_point reconnect_at{};
    std::chrono::milliseconds backoff{100};
    int number;
    bool stopped = false;
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
                   {scenario_.exactly_once, scenario_.tolerance_all, scenario_.dead_letter ? kDeadLetterTopic : ""}) {
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
        cluster_.faults.create_topics_refused = scenario_.faults.create_refused;
        cluster_.faults.create_topics_unauthorized = scenario_.faults.create_unauthorized;
        if (scenario_.topic_creation && random_() % 2 == 0) cluster_.create_topic("outbox.event.Order", 2);
        // A principal that may write the topics but not create topics.
        if (scenario_.faults.create_unauthorized)
            for (const char* topic : {"outbox.event.Order", "outbox.event.Invoice", "outbox.event.Stock"})
                cluster_.create_topic(topic, 2);
        cluster_.create_topic(kDeadLetterTopic, 1);
        router_ = make_instance();
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

    bool finished() const { return router_->stopped; }

    void step(bool faults) {
        ++outcome_.steps;
        if (random_() % static_cast<unsigned>(scenario_.commit_every) == 0 && faults) workload_.commit_next();
        if (random_() % 20 == 0) server_.unpublished_write(chance(random_, 8, 4000));
        if (faults) inject();
        if (paused_ && random_() % 10 == 0) {
            // The paused instance wakes up: its walsender is gone, its producer fenced.
            router_step(*paused_);
            if (paused_->stopped) paused_.reset();
        }
        router_step(*router_);
        if (router_->stream) router_->stream->pump(chance(random_, 1, 64));
        clock_.advance(std::chrono::milliseconds(chance(random_, 1, 15)));
        if (!router_->stopped)
            checker_.check_bounds(router_->core.tracker().events_in_flight(), router_->core.tracker().transactions_pending(),
                                  scenario_.max_inflight);
        if (outcome_.steps % 50 == 0) checker_.check_kafka();
    }

    // After the faults: the router must deliver everything and confirm past the last commit.
    void quiet() {
        note("quiet: no more faults or transactions");
        cluster_.faults.stalled_until = {};
        cluster_.faults.metadata_down_until = {};
        cluster_.faults.create_topics_timeouts = 0;
        cluster_.faults.commit_timeouts = 0;
        cluster_.faults.fail_next_commit_abortable = false;
        paused_.reset();
        if (router_->stream) router_->stream->silent = false;
        const auto deadline = clock_.now() + 120s;
        const Lsn last_commit = server_.wal().empty() ? 0 : server_.wal().back().commit_lsn;
        while (!finished() && clock_.now() < deadline) {
            if (server_.slot_confirmed() > last_commit && router_->core.tracker().events_in_flight() == 0) break;
            step(false);
        }
        if (finished()) return;
        if (server_.slot_confirmed() <= last_commit)
            throw Violation("stuck: after 120 s without faults the slot is at " + format_lsn(server_.slot_confirmed()) +
                            ", the last commit at " + format_lsn(last_commit));
        checker_.everything_delivered();
    }

    void inject() {
        const auto& f = scenario_.faults;
        const auto roll = [&](int per10000) { return per10000 > 0 && static_cast<int>(random_() % 10000) < per10000; };
        auto* stream = router_->stream.get();
        if (stream && roll(f.cut)) {
            const int after = chance(random_, 0, 20);
            note("fault: connection " + std::to_string(stream->connection()) + " breaks after " + std::to_string(after) + " more frames");
            stream->cut_after(after);
        }
        if (stream && roll(f.silence)) {
            note("fault: the walsender goes silent, then the receive timeout gives the connection up");
            stream->silent = true;
            stream->cut_after(0);
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
        if (roll(f.crash)) crash();
        else if (roll(f.restart)) restart();
        else if (!paused_ && roll(f.takeover)) takeover();
    }

    // kill -9: only the slot, Kafka and the offsets topic survive. What the producer had in flight
    // may have reached the broker in part.
    void crash() {
        note("fault: crash (kill -9) of instance " + std::to_string(router_->number));
        router_.reset();
        router_ = make_instance();
    }

    // SIGTERM, then a new start.
    void restart() {
        note("fault: SIGTERM and restart of instance " + std::to_string(router_->number));
        router_->stop_requested = true;
        if (!router_->stopped && router_->stream) guarded(*router_, [&] { router_->core.drain_and_stop(); });
        router_.reset();
        router_ = make_instance();
    }

    // The instance pauses; its walsender times out; a second instance takes the slot over and
    // fences it.
    void takeover() {
        note("fault: instance " + std::to_string(router_->number) + " pauses; a second instance takes over");
        if (router_->stream) router_->stream->cut_after(0);
        paused_ = std::move(router_);
        router_ = make_instance();
    }

    void router_step(Instance& r) {
        if (r.stopped) return;
        if (!r.stream) {
            if (clock_.now() < r.reconnect_at) {
                guarded(r, [&] { r.core.serve_kafka(0); });
                return;
            }
            connect(r);
            return;
        }
        guarded(r, [&] {
            r.core.serve_kafka(0);
            const int frames = r.core.process_received(chance(random_, 1, 64));
            (void)frames;
            if (!r.core.saturated()) r.core.send_if_caught_up();
            r.core.finish_turn();
        });
    }

    void connect(Instance& r) {
        guarded(r, [&] {
            auto stream = server_.start_replication();
            if (!stream) throw TransientError("sim: the slot is active in another process");
            auto& source = r.core.source();
            source.identity = {"7300000000000000001", 1, server_.wal_end(), "app"};
            source.server_version = 160000;
            source.wal_sender_timeout_ms = 60000;
            source.slot_confirmed_lsn = server_.slot_confirmed();
            source.slot_seen = source.publication_seen = true;
            // The run's first connection creates the slot, as SourceSetup does; like it, later
            // connections leave the flag as they found it.
            if (!std::exchange(slot_created_, true)) source.slot_created = true;
            r.core.check_resume_position();
            r.stream = std::move(stream);
            note("instance " + std::to_string(r.number) + ": connection " + std::to_string(r.stream->connection()) +
                 " streams from " + format_lsn(server_.slot_confirmed()));
            r.core.attach(*r.stream);
            if (r.core.exactly_once()) r.core.start_kafka_transactions();
            r.core.streaming();
            r.backoff = 100ms;
        });
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
                return stop(r, e.what());
            }
            r.core.connection_lost();
            r.stream.reset();
            r.reconnect_at = clock_.now() + r.backoff;
            r.backoff = std::min(r.backoff * 2, std::chrono::milliseconds(2000));
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
        r.stream.reset();
        if (&r != router_.get()) return;  // a paused, fenced instance
        outcome_.stopped_definite = true;
        const auto& f = scenario_.faults;
        bool refused = false;
        for (const auto& e : workload_.events())
            if (e.refusal != Event::Refusal::none &&
                (!scenario_.tolerance_all || (scenario_.exactly_once && e.refusal == Event::Refusal::report)))
                refused = true;
        const bool expected = refused || f.create_refused || why.find("fenced") != std::string::npos;
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
    int instances_ = 0;
    bool slot_created_ = false;
    std::unique_ptr<Instance> router_;
    std::unique_ptr<Instance> paused_;
    Outcome outcome_;
};

}  // namespace

Outcome simulate(std::uint64_t seed, bool echo_trace) {
    Run run(seed, echo_trace);
    return run.run();
}

}  // namespace outbox::simulation
