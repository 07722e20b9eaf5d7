// The deterministic simulation's runner: `simulation --seeds N [--first F]` runs seeds F..F+N-1;
// `simulation --seed S` replays one seed with its trace on stderr. A failure prints the seed,
// the scenario, what broke, the steps that matter and the command that replays it; exit 1.

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "outbox/util/log.hpp"
#include "simulation.hpp"

using outbox::simulation::simulate;

int main(int argc, char** argv) {
    std::uint64_t first = 1, count = 2000;
    bool one = false;
    bool list = false;  // one line per failing seed, for surveys
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::uint64_t value = std::strtoull(argv[i + 1], nullptr, 10);
        if (flag == "--list") list = value != 0;
        else if (flag == "--seeds") count = value;
        else if (flag == "--first") first = value;
        else if (flag == "--seed") first = value, count = 1, one = true;
        else {
            std::cerr << "usage: simulation [--seeds N] [--first F] [--list 1] | --seed S\n";
            return 2;
        }
    }
    // The router's own log lines would drown the report: kept only when replaying one seed.
    outbox::log::set_level(one ? outbox::log::Level::info : outbox::log::Level::error);
    const int saved_stderr = dup(2);
    if (!one) {
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        close(null);
    }
    const auto started = std::chrono::steady_clock::now();
    long steps = 0, failures = 0;
    std::size_t events = 0, duplicates = 0, allowed = 0, stops = 0;
    for (std::uint64_t seed = first; seed < first + count; ++seed) {
        const auto outcome = simulate(seed, one);
        steps += outcome.steps;
        events += outcome.events;
        duplicates += outcome.duplicates;
        allowed += outcome.duplicates_allowed;
        stops += outcome.stopped_definite ? 1 : 0;
        if (one) std::cout << "seed " << seed << ": " << outcome.scenario << "\n";
        if (!outcome.violation) continue;
        ++failures;
        if (list) {
            std::cout << seed << ": " << *outcome.violation << "\n";
            continue;
        }
        std::cout << "\nFAILED seed " << seed << ": " << *outcome.violation << "\n  scenario: " << outcome.scenario
                  << "\n  steps that matter:\n"
                  << outcome.trace << "  replay: make simulate SEED=" << seed << "\n";
        if (failures >= 3 && !one) break;
    }
    dup2(saved_stderr, 2);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << (failures ? "FAILED: " : "ok: ") << count << " seeds from " << first << ", " << steps << " steps, "
              << events << " events, " << duplicates << " duplicates (of " << allowed
              << " events replaced or killed producers had in flight), "
              << stops << " definite stops, " << failures << " failing, " << seconds << " s\n";
    return failures ? 1 : 0;
}
