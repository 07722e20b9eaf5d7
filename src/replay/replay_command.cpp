#include <cstring>
#include <iostream>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/pipeline/shutdown_signal.hpp"
#include "outbox/replay/outbox_replay.hpp"
#include "outbox/util/log.hpp"

namespace outbox::replay {
namespace {

constexpr const char* kUsage =
    "usage: outbox-router replay --config FILE [--ids FIRST..LAST] [--since TIME] [--until TIME]\n"
    "  publishes again the events of the outbox rows the tables still hold: ids FIRST to LAST\n"
    "  (inclusive, as the id column's type compares them) and/or committed at or after --since and\n"
    "  before --until (timestamptz, e.g. '2026-11-26 17:00:00+00'; needs track_commit_timestamp = on)\n";

}  // namespace

int run_replay_command(int argc, char** argv) {
    std::string config_path;
    ReplayRange range;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--config" && has_value) {
            config_path = argv[++i];
        } else if (arg == "--ids" && has_value) {
            const std::string ids = argv[++i];
            const auto dots = ids.find("..");
            if (dots == std::string::npos) {
                std::cerr << "outbox-router replay: --ids takes FIRST..LAST\n" << kUsage;
                return 2;
            }
            if (dots > 0) range.first_id = ids.substr(0, dots);
            if (dots + 2 < ids.size()) range.last_id = ids.substr(dots + 2);
        } else if (arg == "--since" && has_value) {
            range.since = argv[++i];
        } else if (arg == "--until" && has_value) {
            range.until = argv[++i];
        } else {
            std::cerr << "outbox-router replay: unknown or incomplete argument \"" << arg << "\"\n" << kUsage;
            return 2;
        }
    }
    if (config_path.empty()) {
        std::cerr << "outbox-router replay: --config FILE is required\n" << kUsage;
        return 2;
    }
    try {
        const auto config = config::load_config(config_path);
        pipeline::ShutdownSignal::install();
        const auto result = replay(
            config, range, [](const std::string& line) { std::cerr << "replay: " << log::mask_conninfo(line) << "\n"; },
            &pipeline::ShutdownSignal::requested, pipeline::ShutdownSignal::fd());
        std::cout << "replayed " << result.rows << " rows, " << result.published << " records acknowledged by Kafka";
        if (result.unknown_commit_time > 0)
            std::cout << "; " << result.unknown_commit_time << " rows without a known commit time not replayed";
        std::cout << "\n";
        return result.published == result.rows && result.unknown_commit_time == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "outbox-router: " << log::mask_conninfo(e.what()) << "\n";
        return 1;
    }
}

}  // namespace outbox::replay
