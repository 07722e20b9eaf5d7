#pragma once

// Reading the configuration's YAML: entries with their file:line, values with ${env:NAME} and
// ${file:PATH:KEY} expanded (references.hpp), and the typed readers every section uses. Section readers are in config.cpp.

#include <yaml-cpp/yaml.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "outbox/config/config.hpp"

namespace outbox::config {

// Throws ConfigError "file:line: message".
[[noreturn]] void fail(const Location& where, const std::string& message);

// yaml-cpp marks are 0-based and -1 when the node has no position; both map onto our 1-based/0 scheme.
Location location_of(const std::string& file, const YAML::Node& node);

// One "key: value" pair of a mapping. Errors about the value point at the key's line, because
// yaml-cpp places an empty value's mark on the following line.
struct Entry {
    std::string name;  // as written: "slot.name"
    std::string key;   // with its section, for messages: "postgres.slot.name"
    YAML::Node value;
    Location location;
};

std::string quoted(std::string_view text);
std::string_view trim(std::string_view text);

YAML::Node load_yaml(const std::string& text, const std::string& file);
std::string read_file(const std::string& path);

// The entries of a mapping, in order; a duplicated key is an error (yaml-cpp keeps both).
std::vector<Entry> entries_of(const YAML::Node& mapping, const std::string& section, const std::string& file);
// A section's entries; a section whose keys are all commented out parses as null and is empty.
std::vector<Entry> section_entries(const Entry& section);

struct KeyHandler {
    std::string_view name;
    std::function<void(const Entry&)> apply;
};
// Applies each entry's handler; a key with none is an error listing the known keys.
void dispatch(const std::vector<Entry>& entries, const std::vector<KeyHandler>& handlers);

// Typed values; each failure names the key and its line.
std::string scalar_at(const YAML::Node& node, const std::string& key, const Location& where);
std::string text_of(const Entry& e);
// The value as written, references left for the caller to expand (postgres.conninfo: conninfo.hpp).
std::string written_text_of(const Entry& e);
std::string non_empty_text(const Entry& e);
int integer_at_least(const Entry& e, int minimum);
// Lower-cased and trimmed, as Debezium reads its boolean and enumerated options.
std::string option_word(const Entry& e);
bool boolean_option(const Entry& e);
// One of `choices`. With `unsupported` (a noun such as "mode"), a value Debezium accepts and the
// router does not is refused as "unsupported mode "x"; only a and b are supported".
template <typename Enum>
Enum enum_option(const Entry& e, std::initializer_list<std::pair<std::string_view, Enum>> choices,
                 std::string_view unsupported = {}) {
    const std::string word = option_word(e);
    std::string listed;
    for (const auto& [name, value] : choices) {
        if (word == name) return value;
        listed += (listed.empty() ? "" : unsupported.empty() ? " or " : " and ") + std::string(name);
    }
    if (!unsupported.empty())
        fail(e.location, e.key + ": unsupported " + std::string(unsupported) + " " + quoted(text_of(e)) + "; only " +
                             listed + " are supported");
    fail(e.location, e.key + ": expected " + listed + ", got " + quoted(text_of(e)));
}
// Debezium's comma-separated list, or a YAML sequence of items (each may itself be a comma list),
// as one comma-separated text.
std::string list_text(const Entry& e);
// The items of a comma-separated list, trimmed (empty ones included: the caller decides).
std::vector<std::string_view> split_list(std::string_view text);

}  // namespace outbox::config
