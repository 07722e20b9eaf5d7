#include "outbox/config/placement_parser.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace outbox::config {
namespace {

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](char x, char y) { return (x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x) == y; });
}

AdditionalField parse_item(std::string_view item) {
    const std::string quoted = "\"" + std::string(item) + "\"";
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const auto colon = item.find(':', start);
        parts.push_back(trimmed(item.substr(start, colon - start)));
        if (colon == std::string_view::npos) break;
        start = colon + 1;
    }
    if (parts.size() < 2 || parts.size() > 3)
        throw std::invalid_argument(quoted + " is not column:placement or column:placement:alias");
    if (parts[0].empty()) throw std::invalid_argument(quoted + " names no column");
    AdditionalField field{std::string(parts[0]), Placement::header, std::string(parts[0])};
    if (equals_ignoring_case(parts[1], "header")) {
        field.placement = Placement::header;
    } else if (equals_ignoring_case(parts[1], "envelope")) {
        field.placement = Placement::envelope;
    } else if (equals_ignoring_case(parts[1], "partition")) {
        field.placement = Placement::partition;
    } else {
        throw std::invalid_argument(quoted + ": unknown placement \"" + std::string(parts[1]) +
                                    "\" (expected header, envelope or partition)");
    }
    if (parts.size() == 3) {
        if (parts[2].empty()) throw std::invalid_argument(quoted + " has an empty alias");
        field.alias = std::string(parts[2]);
    }
    return field;
}

}  // namespace

std::vector<AdditionalField> parse_additional_placements(std::string_view list) {
    std::vector<AdditionalField> fields;
    for (std::size_t start = 0;;) {
        const auto comma = list.find(',', start);
        const auto item = trimmed(list.substr(start, comma - start));
        if (item.empty()) throw std::invalid_argument("empty item in the list");
        fields.push_back(parse_item(item));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    bool has_partition = false;
    for (auto field = fields.begin(); field != fields.end(); ++field) {
        if (field->placement == Placement::partition) {
            if (has_partition)
                throw std::invalid_argument("more than one partition placement (\"" + field->column + "\")");
            has_partition = true;
        }
        if (field->placement != Placement::envelope) continue;
        if (field->alias == "payload")
            throw std::invalid_argument("envelope field \"" + field->column +
                                        "\" would be named \"payload\", which the envelope uses for the payload; "
                                        "give it another alias");
        const bool duplicate = std::any_of(fields.begin(), field, [&](const AdditionalField& earlier) {
            return earlier.placement == Placement::envelope && earlier.alias == field->alias;
        });
        if (duplicate) throw std::invalid_argument("two envelope fields are named \"" + field->alias + "\"");
    }
    return fields;
}

}  // namespace outbox::config
