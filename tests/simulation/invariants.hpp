#pragma once

// The promises, checked against what the simulated Kafka holds and what the slot confirmed:
// - nothing confirmed is missing: every event of a transaction the slot will not send again is
//   in its topic (exactly-once: committed), or dead-lettered, or skipped where errors.tolerance
//   allows it;
// - duplicates only from different producer instances (a crash or a replacement), never from one
//   producer across plain reconnects; under exactly-once none in the read_committed view;
// - per key, first occurrences in commit order;
// - events in flight and pending transactions within max.inflight.messages.
// A violation is thrown as Violation with what broke.

#include <map>
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
    Checker(const SimPostgres& server, SimCluster& cluster, const Workload& workload, Expectations expect)
        : server_(server), cluster_(cluster), workload_(workload), expect_(expect) {}

    // The slot is about to confirm `flushed`.
    void confirming(Lsn flushed);
    // Every transaction up to the WAL's end is delivered (the end of a quiet run).
    void everything_delivered();
    // Duplicates and per-key order over everything Kafka holds now.
    void check_kafka();
    void check_bounds(std::size_t events_in_flight, std::size_t pending, long max_inflight);

    // Counted by check_kafka().
    std::size_t duplicates_seen = 0;

private:
    struct Copy {
        std::string topic;
        int partition;
        std::size_t offset;
        int instance;
    };
    void scan();
    bool visible(const StoredRecord& r) const;
    bool accounted(const Event& e);
    void check_items_before(Lsn position, const std::string& why);

    const SimPostgres& server_;
    SimCluster& cluster_;
    const Workload& workload_;
    Expectations expect_;
    std::map<std::pair<std::string, int>, std::size_t> scanned_;
    std::map<int, std::vector<Copy>> in_topics_;  // by event serial
    std::map<int, std::vector<Copy>> dead_;       // by event serial
    std::size_t verified_items_ = 0;
};

}  // namespace outbox::simulation
