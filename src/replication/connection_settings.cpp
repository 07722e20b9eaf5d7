#include "outbox/replication/connection_settings.hpp"

#include <algorithm>
#include <array>

#include "outbox/config/conninfo.hpp"

namespace outbox::replication {

std::string with_settings(std::string_view conninfo, std::span<const ConnectionSetting> settings) {
    if (!config::is_conninfo_uri(conninfo)) {
        // In key/value form the last setting of a key wins, so the caller's own values prevail.
        std::string text;
        for (const auto& [key, value] : settings)
            text.append(key).append("=").append(config::conninfo_value(value)).append(" ");
        if (conninfo.find('=') != std::string_view::npos) return text.append(conninfo);
        // Without '=' libpq reads the whole string as a database name; keep that meaning.
        return text.append("dbname=").append(config::quoted_conninfo_value(conninfo));
    }
    // In a URI, add only the parameters the caller left out, so theirs are kept.
    std::string result(conninfo);
    const auto query = result.find('?');
    const std::string parameters = query == std::string::npos ? "" : result.substr(query);
    char separator = query == std::string::npos ? '?' : '&';
    for (const auto& [key, value] : settings) {
        const std::string assignment = std::string(key) + "=";
        if (parameters.find("?" + assignment) != std::string::npos || parameters.find("&" + assignment) != std::string::npos)
            continue;
        result.append(1, separator).append(assignment).append(config::uri_encoded(value));
        separator = '&';
    }
    return result;
}

std::string replication_conninfo(std::string_view conninfo, std::chrono::milliseconds receive_timeout) {
    const long limit_ms = receive_timeout.count() > 0 ? receive_timeout.count() : 30000;
    // Unacknowledged data (a status update, a keepalive probe) for the whole limit ends the
    // connection; an idle one is probed from half of it, three times.
    const std::string user_timeout = std::to_string(limit_ms);
    const std::string idle = std::to_string(std::max(1L, limit_ms / 2000));
    const std::string interval = std::to_string(std::max(1L, limit_ms / 6000));
    const std::array<ConnectionSetting, 5> settings{{{"keepalives", "1"},
                                                     {"keepalives_idle", idle},
                                                     {"keepalives_interval", interval},
                                                     {"keepalives_count", "3"},
                                                     {"tcp_user_timeout", user_timeout}}};
    return with_settings(conninfo, settings);
}

std::string side_conninfo(std::string_view conninfo, std::string_view application_name) {
    const std::array<ConnectionSetting, 7> settings{{{"connect_timeout", "5"},
                                                     {"keepalives", "1"},
                                                     {"keepalives_idle", "5"},
                                                     {"keepalives_interval", "5"},
                                                     {"keepalives_count", "3"},
                                                     {"tcp_user_timeout", "15000"},
                                                     {"application_name", application_name}}};
    return with_settings(conninfo, settings);
}

}  // namespace outbox::replication
