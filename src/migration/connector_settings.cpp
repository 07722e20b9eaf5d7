#include "outbox/migration/connector_settings.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "outbox/util/java_properties.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::migration {
using util::JavaProperty;
using util::parse_java_properties;
namespace {

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

std::string json_scalar_text(const nlohmann::ordered_json& value, const std::string& origin) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_number_integer()) return std::to_string(value.get<long long>());
    if (value.is_number()) return value.dump();
    if (value.is_null()) return "";
    throw ConfigError(origin + ": expected a string, number or boolean, got " + std::string(value.type_name()));
}

ConnectorSettings read_json(const std::string& text, const std::string& file_name) {
    // Ordered: the settings keep the file's order, as listed back to the user.
    const auto document = nlohmann::ordered_json::parse(text, nullptr, false);
    if (document.is_discarded())
        throw ConfigError(file_name + ": not valid JSON (a Kafka Connect connector is a JSON object)");
    if (!document.is_object()) throw ConfigError(file_name + ": expected a JSON object");
    ConnectorSettings settings;
    settings.format = ConnectorSettings::Format::connect_json;
    const nlohmann::ordered_json* config = &document;
    if (document.contains("config")) {
        if (!document["config"].is_object()) throw ConfigError(file_name + ": \"config\" must be an object");
        config = &document["config"];
        if (document.contains("name") && document["name"].is_string()) settings.name = document["name"];
    }
    for (const auto& [key, value] : config->items()) {
        settings.connector.push_back({key, json_scalar_text(value, file_name + ": " + key), file_name});
    }
    return settings;
}

bool is_debezium_server(const std::vector<JavaProperty>& entries) {
    return std::any_of(entries.begin(), entries.end(), [](const JavaProperty& p) {
        return starts_with(p.key, "debezium.source.") || starts_with(p.key, "debezium.sink.");
    });
}

void add_debezium_server_entry(ConnectorSettings& settings, const JavaProperty& p, const std::string& origin) {
    static const std::string source = "debezium.source.";
    static const std::string producer = "debezium.sink.kafka.producer.";
    if (starts_with(p.key, source)) {
        settings.connector.push_back({p.key.substr(source.size()), p.value, origin});
    } else if (starts_with(p.key, producer)) {
        settings.producer.push_back({p.key.substr(producer.size()), p.value, origin});
    } else if (starts_with(p.key, "debezium.transforms") || starts_with(p.key, "debezium.predicates")) {
        settings.connector.push_back({p.key.substr(std::string("debezium.").size()), p.value, origin});
    } else if (p.key == "debezium.sink.type") {
        if (p.value != "kafka")
            throw ConfigError(origin + ": debezium.sink.type is \"" + p.value +
                              "\"; only Debezium Server's Kafka sink has an equivalent in outbox-router");
    } else {
        // Formats (debezium.format.*) stay with the connector's converter settings; the rest
        // (quarkus.*, other sink settings) configure Debezium Server itself.
        (starts_with(p.key, "debezium.format.") ? settings.connector : settings.host).push_back({p.key, p.value, origin});
    }
}

ConnectorSettings read_properties(const std::string& text, const std::string& file_name) {
    const auto entries = parse_java_properties(text);
    ConnectorSettings settings;
    const bool server = is_debezium_server(entries);
    settings.format = server ? ConnectorSettings::Format::debezium_server : ConnectorSettings::Format::connect_properties;
    for (const auto& p : entries) {
        const std::string origin = file_name + ":" + std::to_string(p.line);
        if (server) {
            add_debezium_server_entry(settings, p, origin);
        } else if (p.key == "name") {
            settings.name = p.value;
            settings.connector.push_back({p.key, p.value, origin});
        } else {
            settings.connector.push_back({p.key, p.value, origin});
        }
    }
    return settings;
}

// A Kafka Connect worker's properties: the producer's (bootstrap.servers, producer.*), the
// converters (kept apart: Connect uses them only for a connector that names no converter of its
// own), and the rest, which configure the worker.
void add_worker(ConnectorSettings& settings, const std::string& text, const std::string& file_name) {
    static const std::string producer = "producer.";
    std::vector<Setting> exactly_once;
    for (const auto& p : parse_java_properties(text)) {
        const std::string origin = file_name + ":" + std::to_string(p.line);
        if (p.key == "bootstrap.servers") {
            settings.producer.insert(settings.producer.begin(), {p.key, p.value, origin});
        } else if (starts_with(p.key, producer)) {
            settings.producer.insert(settings.producer.begin(), {p.key.substr(producer.size()), p.value, origin});
        } else if (starts_with(p.key, "key.converter") || starts_with(p.key, "value.converter") ||
                   starts_with(p.key, "header.converter")) {
            settings.worker_converters.push_back({p.key, p.value, origin});
        } else if (p.key == "exactly.once.source.support") {
            exactly_once.push_back({p.key, p.value, origin});
        } else {
            settings.host.push_back({p.key, p.value, origin});
        }
    }
    settings.connector.insert(settings.connector.begin(), exactly_once.begin(), exactly_once.end());
}

}  // namespace

const Setting* ConnectorSettings::find(const std::string& key) const {
    const auto found = std::find_if(connector.rbegin(), connector.rend(), [&](const Setting& s) { return s.key == key; });
    return found == connector.rend() ? nullptr : &*found;
}

ConnectorSettings read_connector_settings(const std::string& text, const std::string& file_name,
                                          const std::optional<std::string>& worker_text,
                                          const std::string& worker_file_name) {
    const auto first = text.find_first_not_of(" \t\r\n");
    ConnectorSettings settings = first != std::string::npos && text[first] == '{' ? read_json(text, file_name)
                                                                                  : read_properties(text, file_name);
    if (worker_text) {
        if (settings.format == ConnectorSettings::Format::debezium_server)
            throw ConfigError(worker_file_name + ": a worker's properties go with a Kafka Connect connector, not with "
                              "Debezium Server's application.properties");
        add_worker(settings, *worker_text, worker_file_name);
    }
    // Connector-level producer overrides (producer.override.*) win over the worker's producer.*.
    static const std::string override_prefix = "producer.override.";
    for (auto it = settings.connector.begin(); it != settings.connector.end();) {
        if (starts_with(it->key, override_prefix)) {
            settings.producer.push_back({it->key.substr(override_prefix.size()), it->value, it->origin});
            it = settings.connector.erase(it);
        } else {
            ++it;
        }
    }
    if (!settings.find("connector.class"))
        throw ConfigError(file_name + ": no connector.class (" +
                          (settings.format == ConnectorSettings::Format::debezium_server ? "debezium.source.connector.class"
                                                                                           : "connector.class") +
                          "): not a Debezium connector configuration");
    return settings;
}

}  // namespace outbox::migration
