#pragma once

#include <chrono>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace outbox::replication {

using ConnectionSetting = std::pair<std::string_view, std::string_view>;

// `conninfo` (key/value or URI) with `settings` added where it does not set them itself: the
// caller's own values prevail. Each value is quoted or percent-encoded as the form needs
// (config/conninfo.hpp), so libpq reads it exactly.
std::string with_settings(std::string_view conninfo, std::span<const ConnectionSetting> settings);

// The replication connection's conninfo: TCP keepalives and tcp_user_timeout scaled to
// postgres.receive.timeout.ms (30 s when it is off), so that the kernel ends a connection whose
// peer stopped acknowledging (a cut network) whether or not the server is busy.
std::string replication_conninfo(std::string_view conninfo, std::chrono::milliseconds receive_timeout);

// A side connection's conninfo (slot monitor, column catalog): connecting and network waits bounded
// at a few seconds, and `application_name` so that pg_stat_activity tells them apart.
std::string side_conninfo(std::string_view conninfo, std::string_view application_name);

}  // namespace outbox::replication
