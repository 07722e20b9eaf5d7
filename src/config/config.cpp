#include "outbox/config/config.hpp"

#include "outbox/util/errors.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

namespace outbox::config {

std::string Location::describe() const {
    return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string TableName::qualified() const {
    return schema + "." + name;
}

namespace {

[[noreturn]] void fail(const Location& where, const std::string& message) {
    throw ConfigError(where.describe() + ": " + message);
}

// yaml-cpp marks are 0-based and -1 when the node has no position; both map onto our 1-based/0 scheme.
Location location_of(const std::string& file, const YAML::Node& node) {
    return {file, node.Mark().line + 1};
}

// One "key: value" pair of a mapping. Errors about the value point at the key's line, because
// yaml-cpp places an empty value's mark on the following line.
struct Entry {
    std::string name;  // as written: "slot.name"
    std::string key;   // with its section, for messages: "postgres.slot.name"
    YAML::Node value;
    Location location;
};

std::string describe_kind(const YAML::Node& node) {
    if (node.IsMap()) return "a mapping";
    if (node.IsSequence()) return "a sequence";
    return "no value";
}

std::string quoted(std::string_view text) {
    return "\"" + std::string(text) + "\"";
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

// Substitutes from left to right over the original text, so a variable's value is never re-expanded.
std::string expand_env(const std::string& text, const std::string& key, const Location& where) {
    static constexpr std::string_view marker = "${env:";
    std::string out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t start = text.find(marker, pos);
        if (start == std::string::npos) return out.append(text, pos);
        const std::size_t name_start = start + marker.size();
        const std::size_t end = text.find('}', name_start);
        if (end == std::string::npos) fail(where, key + ": unterminated ${env:...} reference");
        const std::string name = text.substr(name_start, end - name_start);
        if (name.empty()) fail(where, key + ": ${env:} names no variable");
        const char* value = std::getenv(name.c_str());
        if (value == nullptr) fail(where, "environment variable " + name + " is not set (referenced by " + key + ")");
        out.append(text, pos, start - pos).append(value);
        pos = end + 1;
    }
}

std::string scalar_at(const YAML::Node& node, const std::string& key, const Location& where) {
    if (!node.IsScalar()) fail(where, key + ": expected a single value, got " + describe_kind(node));
    return expand_env(node.Scalar(), key, where);
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

// PostgreSQL's own rule (ReplicationSlotValidateName); checking here reports it with a line number
// instead of failing later at CREATE_REPLICATION_SLOT.
std::string slot_name(const Entry& e) {
    std::string name = text_of(e);
    const bool valid_chars = std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (name.empty() || name.size() > 63 || !valid_chars) {
        fail(e.location, e.key + ": " + quoted(name) +
                             " is not a valid replication slot name (1 to 63 characters, only lowercase "
                             "letters, digits and underscores)");
    }
    return name;
}

// PostgreSQL truncates longer identifiers, so the router would look for a publication that
// does not exist under the configured name.
std::string publication_name(const Entry& e) {
    std::string name = non_empty_text(e);
    if (name.size() > 63) fail(e.location, e.key + ": " + quoted(name) + " is longer than 63 bytes");
    return name;
}

PublicationAutocreate autocreate_mode(const Entry& e) {
    const std::string mode = text_of(e);
    if (mode == "filtered") return PublicationAutocreate::filtered;
    if (mode == "disabled") return PublicationAutocreate::disabled;
    fail(e.location, e.key + ": unsupported mode " + quoted(mode) + "; only filtered and disabled are supported");
}

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t");
    return text.substr(first, last - first + 1);
}

TableName table_name(std::string_view item, const std::string& key, const Location& where) {
    const std::string_view text = trim(item);
    if (text.empty()) fail(where, key + ": empty table name in the list");
    const auto dot = text.find('.');
    if (dot == std::string_view::npos) return {"public", std::string(text)};
    const std::string_view schema = text.substr(0, dot);
    const std::string_view table = text.substr(dot + 1);
    if (schema.empty() || table.empty() || table.find('.') != std::string_view::npos) {
        fail(where, key + ": " + quoted(text) + " is not a table name (expected schema.table or table)");
    }
    return {std::string(schema), std::string(table)};
}

void add_table(std::vector<TableName>& tables, TableName table, const std::string& key, const Location& where) {
    if (std::find(tables.begin(), tables.end(), table) != tables.end()) {
        fail(where, key + ": table " + table.qualified() + " is listed more than once");
    }
    tables.push_back(std::move(table));
}

// Accepts Debezium's comma-separated string as well as a YAML sequence.
std::vector<TableName> table_list(const Entry& e) {
    std::vector<TableName> tables;
    if (e.value.IsSequence()) {
        for (const YAML::Node& item : e.value) {
            const Location where = location_of(e.location.file, item);
            add_table(tables, table_name(scalar_at(item, e.key, where), e.key, where), e.key, where);
        }
        if (tables.empty()) fail(e.location, e.key + ": must name at least one table");
        return tables;
    }
    const std::string text = text_of(e);
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view item = std::string_view(text).substr(start, comma - start);
        add_table(tables, table_name(item, e.key, e.location), e.key, e.location);
        if (comma == std::string::npos) return tables;
        start = comma + 1;
    }
}

struct KeyHandler {
    std::string_view name;
    std::function<void(const Entry&)> apply;
};

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

// A section whose keys are all commented out parses as null; treat it as empty rather than an error.
std::vector<Entry> section_entries(const Entry& section) {
    if (section.value.IsNull()) return {};
    if (!section.value.IsMap()) fail(section.location, section.key + ": expected a mapping of settings, got " +
                                                           (section.value.IsSequence() ? "a sequence" : "a single value"));
    return entries_of(section.value, section.name, section.location.file);
}

void read_postgres(const Entry& section, PostgresSettings& pg) {
    dispatch(section_entries(section),
             {
                 {"conninfo",
                  [&](const Entry& e) {
                      pg.conninfo = non_empty_text(e);
                      pg.conninfo_location = e.location;
                  }},
                 {"slot.name", [&](const Entry& e) { pg.slot_name = slot_name(e); }},
                 {"publication.name", [&](const Entry& e) { pg.publication_name = publication_name(e); }},
                 {"publication.autocreate.mode", [&](const Entry& e) { pg.publication_autocreate = autocreate_mode(e); }},
                 {"table.include.list", [&](const Entry& e) { pg.tables = table_list(e); }},
                 {"status.update.interval.ms", [&](const Entry& e) { pg.status_update_interval_ms = integer_at_least(e, 1); }},
             });
}

void read_outbox(const Entry& section, OutboxSettings& outbox) {
    const auto set = [](std::string& field) { return [&field](const Entry& e) { field = non_empty_text(e); }; };
    dispatch(section_entries(section),
             {
                 {"route.by.field", set(outbox.route_by_field)},
                 {"route.topic.regex",
                  [&](const Entry& e) {
                      outbox.route_topic_regex = non_empty_text(e);
                      outbox.route_topic_regex_location = e.location;
                  }},
                 {"route.topic.replacement", set(outbox.route_topic_replacement)},
                 {"table.field.event.id", set(outbox.field_event_id)},
                 {"table.field.event.key", set(outbox.field_event_key)},
                 {"table.field.event.payload", set(outbox.field_event_payload)},
             });
}

// Everything except embedded.brokers belongs to librdkafka, which validates names and values itself.
void read_kafka(const Entry& section, KafkaSettings& kafka) {
    for (const Entry& e : section_entries(section)) {
        if (e.name == "embedded.brokers") {
            kafka.embedded_brokers = integer_at_least(e, 0);
        } else {
            const std::string value = e.name == "bootstrap.servers" ? non_empty_text(e) : text_of(e);
            kafka.properties.push_back({e.name, value, e.location});
        }
    }
}

void require_kafka_target(const KafkaSettings& kafka, const Location& kafka_location) {
    const bool has_bootstrap = std::any_of(kafka.properties.begin(), kafka.properties.end(),
                                           [](const KafkaProperty& p) { return p.name == "bootstrap.servers"; });
    if (!has_bootstrap && kafka.embedded_brokers == 0) {
        fail(kafka_location, "kafka.bootstrap.servers is required (or kafka.embedded.brokers for demos and tests)");
    }
}

YAML::Node load_yaml(const std::string& text, const std::string& file) {
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception& e) {
        fail(Location{file, e.mark.line + 1}, "invalid YAML: " + e.msg);
    }
}

std::string read_file(const std::string& path) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) throw ConfigError(path + ": cannot read: " + std::strerror(errno));
    std::string text;
    char buffer[8192];
    std::size_t count = 0;
    while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, count);
    if (std::ferror(file.get())) throw ConfigError(path + ": cannot read: " + std::strerror(errno));
    return text;
}

}  // namespace

Config parse_config(const std::string& yaml_text, const std::string& file_name) {
    const YAML::Node root = load_yaml(yaml_text, file_name);
    if (root.IsNull()) fail(Location{file_name, 0}, "the configuration is empty");
    if (!root.IsMap()) fail(location_of(file_name, root), "expected a mapping of sections at the top level");

    Config config;
    config.source_file = file_name;
    Location postgres_location{file_name, 0};
    Location kafka_location{file_name, 0};
    dispatch(entries_of(root, "", file_name),
             {
                 {"postgres",
                  [&](const Entry& e) {
                      postgres_location = e.location;
                      read_postgres(e, config.postgres);
                  }},
                 {"outbox", [&](const Entry& e) { read_outbox(e, config.outbox); }},
                 {"kafka",
                  [&](const Entry& e) {
                      kafka_location = e.location;
                      read_kafka(e, config.kafka);
                  }},
                 {"shutdown.timeout.ms", [&](const Entry& e) { config.shutdown_timeout_ms = integer_at_least(e, 1); }},
             });

    if (config.postgres.conninfo.empty()) fail(postgres_location, "postgres.conninfo is required");
    require_kafka_target(config.kafka, kafka_location);
    return config;
}

Config load_config(const std::string& path) {
    return parse_config(read_file(path), path);
}

}  // namespace outbox::config
