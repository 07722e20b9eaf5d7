#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace outbox::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3 };

// text: "2024-05-01T12:00:00.123Z INFO  message"; json: {"ts":"…","level":"info","msg":"…"}.
enum class Format { text, json };

void set_level(Level level);
void set_format(Format format);
bool enabled(Level level);

// Writes one line to stderr. Every password in a conninfo is masked here, at the sink, so no
// caller can leak one by forgetting to.
void write(Level level, std::string_view message);

inline void debug(std::string_view m) { if (enabled(Level::debug)) write(Level::debug, m); }
inline void info(std::string_view m) { if (enabled(Level::info)) write(Level::info, m); }
inline void warn(std::string_view m) { if (enabled(Level::warn)) write(Level::warn, m); }
inline void error(std::string_view m) { if (enabled(Level::error)) write(Level::error, m); }

// The line write() prints (with its trailing newline), for a given moment; exposed for tests.
std::string format_line(Format format, Level level, std::string_view message,
                        std::chrono::system_clock::time_point when);

// Replaces with "****" the value of every password=... (libpq's key/value form) and the password
// of every SCHEME://USER:PASSWORD@ (a URL of any scheme, libpq's or not).
std::string mask_conninfo(std::string_view conninfo);

}  // namespace outbox::log
