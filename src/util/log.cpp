#include "outbox/util/log.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <ctime>
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

// Scans rather than std::regex, which recurses once per character it matches: a log line quoting a
// long value after "password=" would exhaust the stack.
bool blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

bool word_at(std::string_view text, std::size_t at, std::string_view lower_word) {
    if (text.size() - at < lower_word.size()) return false;
    for (std::size_t i = 0; i < lower_word.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[at + i])) != lower_word[i]) return false;
    return true;
}

// Past a single-quoted conninfo value starting at `at` (\ escapes the next character), or npos.
std::size_t quoted_end(std::string_view text, std::size_t at) {
    if (at == text.size() || text[at] != '\'') return std::string_view::npos;
    for (std::size_t i = at + 1; i < text.size(); ++i) {
        if (text[i] == '\'') return i + 1;
        if (text[i] != '\\') continue;
        if (i + 1 == text.size() || text[i + 1] == '\n' || text[i + 1] == '\r') return std::string_view::npos;
        ++i;
    }
    return std::string_view::npos;
}

// password = VALUE (any case, blanks around '='), VALUE quoted or up to a blank or '&'.
std::string mask_password_values(std::string_view text) {
    std::string masked;
    std::size_t copied = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        if (!word_at(text, pos, "password")) {
            ++pos;
            continue;
        }
        std::size_t at = pos + 8;
        while (at < text.size() && blank(text[at])) ++at;
        if (at == text.size() || text[at] != '=') {
            ++pos;
            continue;
        }
        ++at;
        while (at < text.size() && blank(text[at])) ++at;
        std::size_t end = quoted_end(text, at);
        if (end == std::string_view::npos)
            for (end = at; end < text.size() && !blank(text[end]) && text[end] != '&';) ++end;
        masked.append(text.substr(copied, at - copied)).append("****");
        pos = copied = end;
    }
    return masked.append(text.substr(copied));
}

// SCHEME://USER:PASSWORD@ for any scheme: a URL the router does not read itself (a SQLAlchemy
// postgresql+psycopg2://, a proxy's http://) may still reach a message.
std::string mask_uri_passwords(std::string_view text) {
    std::string masked;
    std::size_t copied = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        if (!text.substr(pos).starts_with("://")) {
            ++pos;
            continue;
        }
        std::size_t at = pos + 3;
        while (at < text.size() && text[at] != ':' && text[at] != '/' && text[at] != '@' && !blank(text[at])) ++at;
        if (at == text.size() || text[at] != ':') {
            pos += 3;
            continue;
        }
        const std::size_t secret = at + 1;
        std::size_t end = secret;
        while (end < text.size() && text[end] != '@' && !blank(text[end])) ++end;
        if (end == text.size() || text[end] != '@') {
            pos += 3;
            continue;
        }
        masked.append(text.substr(copied, secret - copied)).append("****@");
        pos = copied = end + 1;
    }
    return masked.append(text.substr(copied));
}

// The masking scans are slow compared with a log line's other costs; most lines mention neither
// form.
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
    return mask_uri_passwords(mask_password_values(conninfo));
}

}  // namespace outbox::log
