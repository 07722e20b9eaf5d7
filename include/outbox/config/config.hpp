#pragma once

#include <string>
#include <vector>

namespace outbox::config {

// Where a setting came from, for error messages ("router.yaml:12").
struct Location {
    std::string file;
    int line = 0;  // 1-based; 0 when the value is a default
    std::string describe() const;  // "file:line" or "file" when line is 0
};

struct TableName {
    std::string schema;  // "public" when the config names only the table
    std::string name;
    std::string qualified() const;  // "schema.name"
    bool operator==(const TableName&) const = default;
};

enum class PublicationAutocreate { filtered, disabled };

struct PostgresSettings {
    std::string conninfo;
    std::string slot_name = "outbox_router";
    std::string publication_name = "outbox_router";
    PublicationAutocreate publication_autocreate = PublicationAutocreate::filtered;
    std::vector<TableName> tables{{"public", "outbox"}};
    int status_update_interval_ms = 1000;
    Location conninfo_location;
};

// Debezium Outbox Event Router option names and defaults.
struct OutboxSettings {
    std::string route_by_field = "aggregatetype";
    std::string route_topic_regex = "(?<routedByValue>.*)";
    std::string route_topic_replacement = "outbox.event.${routedByValue}";
    std::string field_event_id = "id";
    std::string field_event_key = "aggregateid";
    std::string field_event_payload = "payload";
    Location route_topic_regex_location;
};

// A librdkafka property passed through unchanged.
struct KafkaProperty {
    std::string name;
    std::string value;
    Location location;
};

struct KafkaSettings {
    std::vector<KafkaProperty> properties;  // includes bootstrap.servers when given
    int embedded_brokers = 0;               // >0: start an in-process librdkafka mock cluster
};

struct Config {
    std::string source_file;
    PostgresSettings postgres;
    OutboxSettings outbox;
    KafkaSettings kafka;
    int shutdown_timeout_ms = 30000;
};

// Reads and validates a YAML config file. ${env:NAME} anywhere in a scalar value is replaced
// from the environment (unset → ConfigError naming it); other ${...} are kept as written.
// Unknown keys, wrong types and bad values throw ConfigError whose message starts "file:line: ".
Config load_config(const std::string& path);

// Same, from text already in memory; `file_name` is used in messages.
Config parse_config(const std::string& yaml_text, const std::string& file_name);

}  // namespace outbox::config
