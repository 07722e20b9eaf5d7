#pragma once

// One seeded run: a scenario (guarantee, errors.tolerance, dead-letter topic, topic creation,
// in-flight limit, sources, fault mix) drawn from the seed, the router's StreamCore driven the
// way pipeline.cpp drives it, against the simulated walsender and Kafka, with faults from the
// schedule and the invariants checked after every step. Everything that varies comes from the
// seed, so a seed replays exactly.

#include <cstdint>
#include <optional>
#include <string>

namespace outbox::simulation {

struct Outcome {
    std::uint64_t seed = 0;
    std::string scenario;
    std::optional<std::string> violation;  // what broke; nothing when the run was clean
    std::string trace;                      // the steps that matter, newest last
    long steps = 0;
    std::size_t events = 0;
    std::size_t duplicates = 0;
    std::size_t duplicates_allowed = 0;  // what replaced or killed producers had at risk
    bool stopped_definite = false;
};

Outcome simulate(std::uint64_t seed, bool echo_trace = false);

}  // namespace outbox::simulation
