#include "outbox/config/yaml_entries.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "outbox/config/references.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::config {
namespace {

std::string describe_kind(const YAML::Node& node) {
    if (node.IsMap()) return "a mapping";
    if (node.IsSequence()) return "a sequence";
    return "no value";
}

const std::string& written_scalar(const YAML::Node& node, const std::string& key, const Location& where) {
    if (!node.IsScalar()) fail(where, key + ": expected a single value, got " + describe_kind(node));
    return node.Scalar();
}

}  // namespace

[[noreturn]] void fail(const Location& where, const std::string& message) {
    throw ConfigError(where.describe() + ": " + message);
}

Location location_of(const std::string& file, const YAML::Node& node) {
    return {file, node.Mark().line + 1};
}

std::string quoted(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

std::string scalar_at(const YAML::Node& node, const std::string& key, const Location& where) {
    return expand_references(written_scalar(node, key, where), key, where);
}

std::string written_text_of(const Entry& e) {
    return written_scalar(e.value, e.key, e.location);
}

std::string text_of(const Entry& e) {
    return scalar_at(e.value, e.key, e.location);
}

std::string non_empty_text(const Entry& e) {
    std::string text = text_of(e);
    if (text.empty()) fail(e.location, e.key + ": must not be empty");
    return text;
}

int integer_at_least(const Entry& e, int minimum) {
    const std::string text = text_of(e);
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error == std::errc::result_out_of_range) {
        fail(e.location, e.key + ": " + quoted(text) + " is out of range (at most " +
                             std::to_string(std::numeric_limits<int>::max()) + ")");
    }
    if (error != std::errc{} || stop != end || value < minimum) {
        const char* expected = minimum > 0 ? "a positive integer" : "a non-negative integer";
        fail(e.location, e.key + ": expected " + std::string(expected) + ", got " + quoted(text));
    }
    return value;
}

std::string option_word(const Entry& e) {
    std::string word(trim(text_of(e)));
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    return word;
}

bool boolean_option(const Entry& e) {
    const std::string word = option_word(e);
    if (word == "true") return true;
    if (word == "false") return false;
    fail(e.location, e.key + ": expected true or false, got " + quoted(text_of(e)));
}

std::string list_text(const Entry& e) {
    if (!e.value.IsSequence()) return text_of(e);
    std::string joined;
    for (const YAML::Node& item : e.value) {
        const Location where = location_of(e.location.file, item);
        joined += (joined.empty() ? "" : ",") + scalar_at(item, e.key, where);
    }
    return joined;
}

std::vector<std::string_view> split_list(std::string_view text) {
    std::vector<std::string_view> items;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        items.push_back(trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start)));
        if (comma == std::string_view::npos) return items;
        start = comma + 1;
    }
}

// Iterates rather than looking keys up, because yaml-cpp keeps both entries of a duplicated key
// and lookup would silently pick one.
std::vector<Entry> entries_of(const YAML::Node& mapping, const std::string& section, const std::string& file) {
    std::vector<Entry> entries;
    std::map<std::string, int> first_line;
    const std::string prefix = section.empty() ? "" : section + ".";
    for (auto it = mapping.begin(); it != mapping.end(); ++it) {
        const Location where = location_of(file, it->first);
        if (!it->first.IsScalar()) {
            fail(where, (section.empty() ? "top level" : section) + ": expected a key name, got " + describe_kind(it->first));
        }
        const std::string name = it->first.Scalar();
        const auto [seen, inserted] = first_line.emplace(name, where.line);
        if (!inserted) fail(where, prefix + name + ": duplicate key (first given at line " + std::to_string(seen->second) + ")");
        entries.push_back({name, prefix + name, it->second, where});
    }
    return entries;
}

std::vector<Entry> section_entries(const Entry& section) {
    if (section.value.IsNull()) return {};
    if (!section.value.IsMap()) fail(section.location, section.key + ": expected a mapping of settings, got " +
                                                           (section.value.IsSequence() ? "a sequence" : "a single value"));
    return entries_of(section.value, section.name, section.location.file);
}

void dispatch(const std::vector<Entry>& entries, const std::vector<KeyHandler>& handlers) {
    for (const Entry& e : entries) {
        const auto handler = std::find_if(handlers.begin(), handlers.end(),
                                          [&](const KeyHandler& h) { return h.name == e.name; });
        if (handler != handlers.end()) {
            handler->apply(e);
            continue;
        }
        std::string known;
        for (const KeyHandler& h : handlers) known += (known.empty() ? "" : ", ") + std::string(h.name);
        fail(e.location, e.key + ": unknown key (expected one of: " + known + ")");
    }
}

YAML::Node load_yaml(const std::string& text, const std::string& file) {
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw YamlSyntaxError(Location{file, e.mark.line + 1}.describe() + ": invalid YAML: " + e.msg);
    }
}

std::string read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw ConfigError(path + ": cannot read: " + std::strerror(errno));
    std::ostringstream text;
    text << file.rdbuf();
    if (file.bad()) throw ConfigError(path + ": cannot read: " + std::strerror(errno));
    return text.str();
}

}  // namespace outbox::config
