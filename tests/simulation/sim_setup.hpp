#pragma once

// The set-up a connection goes through before it streams, simulated: the slot looked up,
// created (a second router of a pair may create it first: "already exists"), dropped (busy, or
// the connection lost on the way), and the steps of the exactly-once start (init_transactions,
// the offsets topic's look-up and read) slow, failing, or ended by a stop or a kill -9. The
// invariants of set-up are checked here: no slot that was streamed from and confirmed is dropped
// (it may hold unconfirmed committed rows), and no stream starts past a gap the offsets topic can
// see.

#include <functional>
#include <random>
#include <string>

#include "outbox/kafka/kafka_connector.hpp"
#include "outbox/replication/slot_port.hpp"
#include "sim_clock.hpp"
#include "sim_kafka.hpp"
#include "sim_postgres.hpp"
#include "trace.hpp"
#include "workload.hpp"

namespace outbox::simulation {

// Chances in 1/10000, per call.
struct SetupFaults {
    int drop_fails = 0;  // the connection that drops the slot is lost
    // Between a start's read of the offsets topic and its CREATE_REPLICATION_SLOT, another slot
    // of the name published a position and was lost (exactly-once): the new slot must go again.
    int published_meanwhile = 0;
    int step_slow = 0, step_fail = 0, step_stop = 0, step_kill = 0;  // each step of the start
    bool on = true;  // off for the quiet end of a run
};

// A kill -9 in the middle of a call: thrown through the router's code (not a std::exception,
// so nothing in it catches it), the process is gone.
struct Killed {};

class SimSlots final : public replication::SlotPort {
public:
    struct Hooks {
        std::function<void()> before_create;  // another router may create the slot first
        std::function<void()> end_stream;     // the drop ends this connection's stream first
    };
    SimSlots(SimPostgres& server, const Workload& workload, std::mt19937_64& random, Trace& trace,
             const SetupFaults& faults, Hooks hooks)
        : server_(server), workload_(workload), random_(random), trace_(trace), faults_(faults),
          hooks_(std::move(hooks)) {}

    std::optional<Lsn> look_up_slot() override;
    Creation create_slot() override;
    void drop_slot() override;

private:
    bool roll(int per10000) { return faults_.on && per10000 > 0 && static_cast<int>(random_() % 10000) < per10000; }
    void note(const std::string& what) { trace_.at(server_.clock().millis(), what); }

    SimPostgres& server_;
    const Workload& workload_;
    std::mt19937_64& random_;
    Trace& trace_;
    const SetupFaults& faults_;
    Hooks hooks_;
};

// The exactly-once start's steps (SimCluster's setup_step hook) for the instance that is
// connecting: `stop` asks that instance to stop (SIGTERM); a kill throws Killed.
class StartFaults {
public:
    StartFaults(SimClock& clock, std::mt19937_64& random, Trace& trace, const SetupFaults& faults)
        : clock_(clock), random_(random), trace_(trace), faults_(faults) {}
    // Whose start it is (`stop` asks it to stop; `progress` counts what it reported to /healthz);
    // nothing outside a connection's start.
    void connecting(std::function<void()> stop, std::function<std::uint64_t()> progress) {
        stop_ = std::move(stop);
        progress_ = std::move(progress);
        if (progress_) marks_ = progress_(), marked_at_ = clock_.now();
    }
    void step(const std::string& step, const kafka::StopRequested* stop_requested);

private:
    bool roll(int per10000) { return faults_.on && per10000 > 0 && static_cast<int>(random_() % 10000) < per10000; }
    void note(const std::string& what) { trace_.at(clock_.millis(), what); }
    // A liveness probe fails after 10 s without progress: a wait must report it well before.
    void check_progress(const std::string& step);

    SimClock& clock_;
    std::mt19937_64& random_;
    Trace& trace_;
    const SetupFaults& faults_;
    std::function<void()> stop_;
    std::function<std::uint64_t()> progress_;
    std::uint64_t marks_ = 0;
    Clock::time_point marked_at_{};
    Clock::time_point slow_until_{};  // init_transactions times out until then
};

// Committed rows with outbox events at or after `from` and before `to`, as "event N at X, ...";
// empty when there are none.
std::string events_between(const SimPostgres& server, Lsn from, Lsn to);

}  // namespace outbox::simulation
