#include "outbox/replication/timeline_history.hpp"

#include <charconv>

#include "outbox/util/errors.hpp"

namespace outbox::replication {

std::optional<Lsn> timeline_switch_point(std::string_view history, int timeline) {
    while (!history.empty()) {
        const auto end = history.find('\n');
        const std::string_view line = history.substr(0, end);
        history = end == std::string_view::npos ? std::string_view{} : history.substr(end + 1);
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string_view::npos || line[first] == '#') continue;
        const std::string_view fields = line.substr(first);
        const auto tab = fields.find_first_of(" \t");
        if (tab == std::string_view::npos)
            throw ProtocolError("postgres: timeline history line \"" + std::string(line) + "\" has no switch point");
        int parent = 0;
        const auto [rest, parsed] = std::from_chars(fields.data(), fields.data() + tab, parent);
        if (parsed != std::errc{} || rest != fields.data() + tab)
            throw ProtocolError("postgres: timeline history line \"" + std::string(line) + "\" does not start with a timeline");
        const std::string_view after = fields.substr(tab + 1);
        const auto lsn_start = after.find_first_not_of(" \t");
        const std::string_view lsn_text =
            lsn_start == std::string_view::npos ? std::string_view{} : after.substr(lsn_start, after.find_first_of(" \t\r", lsn_start) - lsn_start);
        const auto lsn = parse_lsn(lsn_text);
        if (!lsn)
            throw ProtocolError("postgres: timeline history line \"" + std::string(line) + "\" has no readable switch LSN");
        if (parent == timeline) return *lsn;
    }
    return std::nullopt;
}

}  // namespace outbox::replication
