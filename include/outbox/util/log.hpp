#pragma once

#include <string_view>

namespace outbox::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3 };

void set_level(Level level);
bool enabled(Level level);
void write(Level level, std::string_view message);

inline void debug(std::string_view m) { if (enabled(Level::debug)) write(Level::debug, m); }
inline void info(std::string_view m) { if (enabled(Level::info)) write(Level::info, m); }
inline void warn(std::string_view m) { if (enabled(Level::warn)) write(Level::warn, m); }
inline void error(std::string_view m) { if (enabled(Level::error)) write(Level::error, m); }

// Replaces the value of every password=... in a libpq conninfo (key/value or URI form) with "****".
std::string mask_conninfo(std::string_view conninfo);

}  // namespace outbox::log
