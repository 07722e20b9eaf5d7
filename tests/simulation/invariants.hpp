#pragma once

// The promises, checked against what the simulated Kafka holds and what the slot confirmed:
// - nothing confirmed is missing: every event of a transaction the slot will not send again is
//   in its topic (exactly-once: committed), or dead-lettered, or skipped where errors.tolerance
//   allows it;
// - only positions the server sent as ends are confirmed (a commit's end, a keepalive's WAL end,
//   a non-transactional message's own position, the slot's position at a start);
// - the slot is not needlessly behind: at every status update, at a clean stop (after its final
//   status update) and at a definite stop, it stands at least where the transactions read on
//   that connection end, up to the first whose events the router has not seen acknowledged
//   (at-least-once: a success report from the current producer; exactly-once: committed); and
//   at-least-once, a definite stop leaves nothing in flight that a healthy Kafka would have
//   acknowledged within shutdown.timeout.ms;
// - duplicates only from different producer instances (a crash or a replacement), never from one
//   producer across plain reconnects, and only of events that the earlier producer had at risk
//   when it was replaced or killed (accepted, in a transaction the slot had not passed): their
//   number is bounded by what was in flight; under exactly-once none in the read_committed view;
// - per key, first occurrences in commit order;
// - events in flight and pending transactions within max.inflight.messages.
// A violation is thrown as Violation with what broke.

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim_kafka.hpp"
#include "sim_postgres.hpp"
#include "workload.hpp"

namespace outbox::simulation {

class Violation : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Expectations {
    bool exactly_once = false;
    bool tolerance_all = false;
    std::string dead_letter_topic;  // empty: refused events are skipped (under tolerance all)
};

class Checker {
public:
    // Watches the server's status updates and stream ends, and the cluster's producers.
    Checker(SimPostgres& server, SimCluster& cluster, const Workload& workload, Expectations expect);

    // The slot is about to confirm `flushed`.
    void confirming(Lsn flushed);
    // The router stopped for good on `stream` after telling the server what it may confirm;
    // `producer` is the cluster's number for its producer (0: it had none).
    void stopped(const SimWalStream& stream, int producer);
    // Every transaction up to the WAL's end is delivered (the end of a quiet run).
    void everything_delivered();
    // Duplicates and per-key order over everything Kafka holds now.
    void check_kafka();
    void check_bounds(std::size_t events_in_flight, std::size_t pending, long max_inflight);

    // Counted by check_kafka(): copies beyond the first, and the events producers had at risk
    // when they were replaced or killed.
    std::size_t duplicates_seen = 0;
    std::size_t duplicates_allowed = 0;

private:
    struct Copy {
        std::string topic;
        int partition;
        std::size_t offset;
        int instance;
    };
    // What the checker saw of one producer instance, by event serial.
    struct ProducerSeen {
        std::set<int> accepted;
        std::set<int> delivered;  // reported without error (to its topic or as a dead letter)
        std::set<int> refused;    // reported refused for the record itself (size, timestamp)
        std::set<int> at_risk;    // when it was retired or another took over: accepted, in a transaction the slot had not passed
        bool retired = false;
    };
    bool covered(int serial) const;
    std::optional<int> sole_producer() const;
    void scan();
    bool visible(const StoredRecord& r) const;
    bool accounted(const Event& e);
    void check_items_before(Lsn position, const std::string& why);
    // Whether the router has seen what it needs to confirm past `e`.
    bool acknowledged(const Event& e);
    void not_behind(const SimWalStream& stream, const std::string& when);
    void check_duplicate(int serial, const std::vector<const Copy*>& copies);

    SimPostgres& server_;
    SimCluster& cluster_;
    const Workload& workload_;
    Expectations expect_;
    std::map<std::pair<std::string, int>, std::size_t> scanned_;
    std::map<int, std::vector<Copy>> in_topics_;  // by event serial
    std::map<int, std::vector<Copy>> dead_;       // by event serial
    std::size_t verified_items_ = 0;
    std::map<int, ProducerSeen> producers_;  // by instance
    std::map<int, std::vector<int>> accepted_by_;  // producer instances, by event serial
    // not_behind()'s walk over each connection's items: how far all were acknowledged, by which
    // producer, and where the router could confirm to.
    struct Walk {
        int producer = 0;
        std::size_t items = 0;
        Lsn expected = 0;
        std::size_t last = 0;
    };
    std::map<int, Walk> walks_;  // by connection
};

}  // namespace outbox::simulation
