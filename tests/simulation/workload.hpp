#pragma once

// The events the simulated application writes: outbox rows in one or two outbox tables, rows of a
// table that is not an outbox, logical messages (transactional, and non-transactional ones, which
// the router refuses), large transactions, and poison events Kafka or the router refuses.

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sim_postgres.hpp"

namespace outbox::simulation {

struct Event {
    int serial = 0;  // commit order
    std::string id;
    std::string key;
    std::string topic;  // empty: refused at routing
    enum class Refusal { none, route, produce, report } refusal = Refusal::none;
    // What Kafka names as the reason: the size, or (marked in the payload, read by the simulated
    // Kafka) a partition out of range at produce, an invalid timestamp in the delivery report.
    bool other_reason = false;
    std::size_t item = 0;  // index of its WAL item
};

struct WorkloadMix {
    bool second_table = false;
    bool messages = false;
    bool non_transactional_messages = false;
    bool poison = false;     // invalid rows; records Kafka refuses (size, partition, timestamp)
    int large_every = 0;     // one transaction in this many is large (0: none)
};

class Workload {
public:
    Workload(SimPostgres& server, std::mt19937_64& random, WorkloadMix mix);

    // Commits one transaction (or a non-transactional message) to the server.
    void commit_next();
    const std::vector<Event>& events() const { return events_; }
    static int serial_of_id(std::string_view id);

    static constexpr std::uint32_t kOutbox = 16384, kOutbox2 = 16390, kOther = 16400;

private:
    Change outbox_row(std::uint32_t relid, std::size_t item);
    Change message(std::size_t item, bool transactional);
    Event& new_event(std::size_t item, bool allow_poison);

    SimPostgres& server_;
    std::mt19937_64& random_;
    WorkloadMix mix_;
    std::vector<Event> events_;
};

}  // namespace outbox::simulation
