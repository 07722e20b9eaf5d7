#pragma once

#include <optional>
#include <string>
#include <vector>

namespace outbox::migration {

// One setting as read, with where it came from for messages ("connector.json: database.port",
// "application.properties:12").
struct Setting {
    std::string key;
    std::string value;
    std::string origin;
};

// A Debezium deployment's settings, whichever way it was written, in one shape: the connector's
// own keys (transforms and predicates included), the Kafka producer's properties, and the keys
// that configure only the host (Kafka Connect's worker, Debezium Server, Quarkus), kept so that
// they can be listed.
struct ConnectorSettings {
    enum class Format { connect_json, connect_properties, debezium_server };
    Format format = Format::connect_json;
    std::string name;                // the connector's name, when the file gives one
    std::vector<Setting> connector;  // later entries win over earlier ones with the same key
    std::vector<Setting> producer;
    std::vector<Setting> host;
    // The worker's key.converter, value.converter and header.converter settings, which Kafka
    // Connect applies only where the connector names no converter class of its own.
    std::vector<Setting> worker_converters;

    const Setting* find(const std::string& key) const;  // the connector's last entry for `key`
};

// Reads a Kafka Connect connector as JSON (`{"name": ..., "config": {...}}` or the bare config
// object) or as a .properties file, or a Debezium Server application.properties (told apart by
// its debezium.source. and debezium.sink. keys). `worker` optionally adds a Kafka Connect worker's
// properties (bootstrap.servers, producer.*, converters). Throws ImportError naming the file and
// what is wrong.
ConnectorSettings read_connector_settings(const std::string& text, const std::string& file_name,
                                          const std::optional<std::string>& worker_text = std::nullopt,
                                          const std::string& worker_file_name = "");

}  // namespace outbox::migration
