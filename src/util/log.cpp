#include "outbox/util/log.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <regex>
#include <string>

namespace outbox::log {
namespace {
std::atomic<Level> g_level{Level::info};
std::atomic<Format> g_format{Format::text};

const char* level_name(Level level) {
    switch (level) {
        case Level::debug: return "DEBUG";
        case Level::info: return "INFO";
        case Level::warn: return "WARN";
        case Level::error: return "ERROR";
    }
    return "?";
}

const char* json_level_name(Level level) {
    switch (level) {
        case Level::debug: return "debug";
        case Level::info: return "info";
        case Level::warn: return "warn";
        case Level::error: return "error";
    }
    return "?";
}

// "2024-05-01T12:00:00.123Z"
std::string utc_timestamp(std::chrono::system_clock::time_point when) {
    const auto seconds = std::chrono::system_clock::to_time_t(when);
    const auto millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char stamp[40];
    const std::size_t length = std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(stamp + length, sizeof stamp - length, ".%03dZ", static_cast<int>(millis));
    return stamp;
}

// The regexes are slow compared with a log line's other costs; most lines mention neither form.
bool may_hold_password(std::string_view message) {
    const auto contains = [&](std::string_view needle) {
        return std::search(message.begin(), message.end(), needle.begin(), needle.end(), [](char a, char b) {
                   return std::tolower(static_cast<unsigned char>(a)) == b;
               }) != message.end();
    };
    return contains("password") || contains("://");
}
}  // namespace

void set_level(Level level) { g_level.store(level, std::memory_order_relaxed); }
void set_format(Format format) { g_format.store(format, std::memory_order_relaxed); }
bool enabled(Level level) { return level >= g_level.load(std::memory_order_relaxed); }

std::string format_line(Format format, Level level, std::string_view message,
                        std::chrono::system_clock::time_point when) {
    const std::string masked = may_hold_password(message) ? mask_conninfo(message) : std::string(message);
    if (format == Format::json) {
        nlohmann::ordered_json line;
        line["ts"] = utc_timestamp(when);
        line["level"] = json_level_name(level);
        line["msg"] = masked;
        // Messages may quote bytes from the database; the line must stay valid UTF-8 JSON.
        return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
    }
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "%s %-5s ", utc_timestamp(when).c_str(), level_name(level));
    return prefix + masked + "\n";
}

void write(Level level, std::string_view message) {
    const std::string line =
        format_line(g_format.load(std::memory_order_relaxed), level, message, std::chrono::system_clock::now());
    // One fwrite per line so concurrent librdkafka log callbacks never interleave mid-line.
    std::fwrite(line.data(), 1, line.size(), stderr);
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
