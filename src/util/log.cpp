#include "outbox/util/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <regex>
#include <string>

namespace outbox::log {
namespace {
std::atomic<Level> g_level{Level::info};

const char* level_name(Level level) {
    switch (level) {
        case Level::debug: return "DEBUG";
        case Level::info: return "INFO";
        case Level::warn: return "WARN";
        case Level::error: return "ERROR";
    }
    return "?";
}
}  // namespace

void set_level(Level level) { g_level.store(level, std::memory_order_relaxed); }
bool enabled(Level level) { return level >= g_level.load(std::memory_order_relaxed); }

void write(Level level, std::string_view message) {
    const auto now = std::chrono::system_clock::now();
    const auto seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
    // One fprintf per line so concurrent librdkafka log callbacks never interleave mid-line.
    std::fprintf(stderr, "%s.%03dZ %-5s %.*s\n", stamp, static_cast<int>(millis), level_name(level),
                 static_cast<int>(message.size()), message.data());
}

std::string mask_conninfo(std::string_view conninfo) {
    static const std::regex key_value(R"((password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*))",
                                      std::regex::icase);
    static const std::regex uri_password(R"(((?:postgres|postgresql)://[^:/@\s]*:)[^@\s]*@)",
                                         std::regex::icase);
    std::string masked = std::regex_replace(std::string(conninfo), key_value, "$1****");
    return std::regex_replace(masked, uri_password, "$1****@");
}

}  // namespace outbox::log
