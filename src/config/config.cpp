// The configuration's sections, read into typed settings, and the checks that span settings.
#include "outbox/config/config.hpp"

#include "outbox/config/avro_converter_settings.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "outbox/config/conninfo.hpp"
#include "outbox/config/placement_parser.hpp"
#include "outbox/config/yaml_entries.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/java_regex.hpp"
#include "outbox/util/log.hpp"
#include "outbox/config/cloud_events_settings.hpp"
#include "outbox/config/topic_creation.hpp"
#include "outbox/util/topic_name.hpp"

namespace outbox::config {

std::string Location::describe() const {
    return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string TableName::qualified() const {
    return schema + "." + name;
}

const OutboxSettings& OutboxSettings::for_table(const TableName& table) const {
    for (const auto& table_override : table_overrides)
        if (table_override.table == table) return table_override.settings;
    return *this;
}

namespace {

// Debezium's PostgreSQL connector reads "hex:" and hexadecimal digits as the placeholder's bytes.
// Only ASCII there: Java makes other bytes text with replacement characters of its own.
std::string unavailable_placeholder(const Entry& e) {
    std::string text = non_empty_text(e);
    if (!text.starts_with("hex:")) return text;
    const std::string digits = text.substr(4);
    std::string bytes;
    const auto nibble = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    for (std::size_t i = 0; i + 1 < digits.size(); i += 2) {
        const int high = nibble(digits[i]), low = nibble(digits[i + 1]);
        if (high < 0 || low < 0) break;
        bytes += static_cast<char>(high << 4 | low);
    }
    if (digits.empty() || digits.size() % 2 != 0 || bytes.size() * 2 != digits.size())
        fail(e.location, e.key + ": \"" + text + "\": after hex: an even number of hexadecimal digits");
    for (const char c : bytes)
        if (static_cast<unsigned char>(c) >= 0x80 || c == 0)
            fail(e.location, e.key + ": \"" + text + "\": the bytes must be ASCII text (1 to 7f)");
    return bytes;
}

std::string topic_name(const Entry& e) {
    std::string topic = non_empty_text(e);
    if (!is_legal_topic_name(topic)) fail(e.location, e.key + ": \"" + topic + "\" is not a legal Kafka topic name");
    return topic;
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
    for (const auto item : split_list(text)) add_table(tables, table_name(item, e.key, e.location), e.key, e.location);
    return tables;
}




void read_postgres(const Entry& section, PostgresSettings& pg) {
    dispatch(section_entries(section),
             {
                 {"conninfo",
                  [&](const Entry& e) {
                      pg.conninfo = expand_conninfo(written_text_of(e), e.key, e.location);
                      pg.conninfo_location = e.location;
                  }},
                 {"slot.name", [&](const Entry& e) { pg.slot_name = slot_name(e); }},
                 {"slot.failover", [&](const Entry& e) { pg.slot_failover = boolean_option(e); }},
                 {"slot.recreate.when.lost", [&](const Entry& e) { pg.slot_recreate_when_lost = boolean_option(e); }},
                 {"publication.name", [&](const Entry& e) { pg.publication_name = publication_name(e); }},
                 {"publication.autocreate.mode", [&](const Entry& e) { pg.publication_autocreate = enum_option<PublicationAutocreate>(
                                           e, {{"filtered", PublicationAutocreate::filtered},
                                               {"disabled", PublicationAutocreate::disabled}},
                                           "mode"); }},
                 {"publish.via.partition.root", [&](const Entry& e) { pg.publish_via_partition_root = boolean_option(e); }},
                 {"table.include.list", [&](const Entry& e) { pg.tables = table_list(e); }},
                 {"status.update.interval.ms", [&](const Entry& e) { pg.status_update_interval_ms = integer_at_least(e, 1); }},
                 {"receive.timeout.ms", [&](const Entry& e) { pg.receive_timeout_ms = integer_at_least(e, 0); }},
                 {"heartbeat.interval.ms", [&](const Entry& e) { pg.heartbeat_interval_ms = integer_at_least(e, 0); }},
                 {"heartbeat.action.query", [&](const Entry& e) { pg.heartbeat_action_query = non_empty_text(e); }},
                 {"reconnect.backoff.max.ms", [&](const Entry& e) { pg.reconnect_backoff_max_ms = integer_at_least(e, 1); }},
             });
}

std::vector<AdditionalField> additional_placements(const Entry& e) {
    const std::string text = list_text(e);
    if (trim(text).empty()) fail(e.location, e.key + ": must not be empty (leave the key out for no additional fields)");
    try {
        return parse_additional_placements(text);
    } catch (const std::invalid_argument& problem) {
        fail(e.location, e.key + ": " + problem.what());
    }
}

// Absent or empty means logical decoding messages are not outbox events.
std::vector<std::string> message_prefixes(const Entry& e) {
    const std::string text = list_text(e);
    std::vector<std::string> prefixes;
    if (trim(text).empty()) return prefixes;
    for (const auto item : split_list(text)) {
        const std::string prefix(item);
        if (prefix.empty()) fail(e.location, e.key + ": empty prefix in the list");
        if (std::find(prefixes.begin(), prefixes.end(), prefix) != prefixes.end())
            fail(e.location, e.key + ": prefix " + quoted(prefix) + " is listed more than once");
        prefixes.push_back(prefix);
    }
    return prefixes;
}

// Debezium keys that only act through Kafka Connect schemas or OpenTelemetry, which the router
// has neither of. Accepted so that a pasted EventRouter configuration starts.
const char* ignored_debezium_key(std::string_view name) {
    if (name == "table.field.event.type")
        return "Debezium no longer emits the event type by itself (DBZ-2014); to send it, add e.g. "
               "type:header:eventType to table.fields.additional.placement";
    if (name == "tracing.operation.name") return "the router creates no OpenTelemetry spans; it passes the writer's on";
    return nullptr;
}

const char* renamed_debezium_key(std::string_view name) {
    if (name == "debezium.op.invalid.behavior") return "table.op.invalid.behavior";
    if (name == "debezium.expand.json.payload") return "table.expand.json.payload";
    return nullptr;
}

enum class OutboxScope { shared, table_override };

// Debezium's message.key.columns: `<schema.table regex>:<column>,<column>;...`.
std::vector<MessageKeyColumns> message_key_columns(const Entry& e) {
    std::vector<MessageKeyColumns> items;
    const std::string text = non_empty_text(e);
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find(';', start), text.size());
        const std::string item(trim(std::string_view(text).substr(start, end - start)));
        start = end + 1;
        if (item.empty()) continue;
        const auto colon = item.find(':');
        if (colon == std::string::npos)
            fail(e.location, e.key + ": \"" + item + "\" is not <schema.table>:<column>,<column>");
        MessageKeyColumns key{std::string(trim(std::string_view(item).substr(0, colon))), {}};
        try {
            JavaPattern check{key.table_pattern};
        } catch (const JavaRegexError& error) {
            fail(e.location, e.key + ": \"" + key.table_pattern + "\" as a Java regular expression: " + error.what());
        }
        std::size_t at = colon + 1;
        while (at <= item.size()) {
            const auto comma = std::min(item.find(',', at), item.size());
            const std::string column(trim(std::string_view(item).substr(at, comma - at)));
            if (!column.empty()) key.columns.push_back(column);
            at = comma + 1;
        }
        if (key.columns.empty()) fail(e.location, e.key + ": \"" + item + "\" names no column");
        items.push_back(std::move(key));
    }
    return items;
}

// The options of one block: the outbox section itself (shared) or a table.overrides entry.
void read_outbox_options(const std::vector<Entry>& entries, OutboxSettings& outbox, OutboxScope scope) {
    const auto set = [](std::string& field) { return [&field](const Entry& e) { field = non_empty_text(e); }; };
    const Entry* missing_spelling = nullptr;
    const auto set_missing = [&](const Entry& e, MissingFieldBehavior behavior) {
        if (missing_spelling)
            fail(e.location, e.key + ": conflicts with " + missing_spelling->key + " (line " +
                                 std::to_string(missing_spelling->location.line) + "); " +
                                 "give only table.field.additional.missing");
        missing_spelling = &e;
        outbox.additional_missing = behavior;
    };
    std::vector<KeyHandler> handlers{
        {"route.by.field", set(outbox.route_by_field)},
        {"route.topic.regex",
         [&](const Entry& e) {
             outbox.route_topic_regex = non_empty_text(e);
             outbox.route_topic_regex_location = e.location;
         }},
        {"route.topic.replacement",
         [&](const Entry& e) {
             outbox.route_topic_replacement = non_empty_text(e);
             outbox.route_topic_replacement_location = e.location;
         }},
        {"route.tombstone.on.empty.payload", [&](const Entry& e) { outbox.route_tombstone_on_empty_payload = boolean_option(e); }},
        {"table.field.event.id", set(outbox.field_event_id)},
        {"table.field.event.key", set(outbox.field_event_key)},
        {"table.field.event.payload", set(outbox.field_event_payload)},
        {"table.field.event.timestamp", set(outbox.field_event_timestamp)},
        {"tracing.span.context.field", set(outbox.tracing_span_context_field)},
        {"table.field.event.schema.version", set(outbox.field_event_schema_version)},
        {"tracing.with.context.field.only",
         [](const Entry& e) {
             if (!boolean_option(e))
                 log::warn(e.location.describe() + ": " + e.key +
                           " false has no effect: the router creates no spans, so a row without a trace context "
                           "gets no trace headers");
         }},
        {"table.fields.additional.placement", [&](const Entry& e) { outbox.additional_fields = additional_placements(e); }},
        {"table.field.additional.missing",
         [&](const Entry& e) {
             set_missing(e, enum_option<MissingFieldBehavior>(
                                e, {{"error", MissingFieldBehavior::error}, {"ignore", MissingFieldBehavior::ignore}}));
         }},
        {"table.fields.additional.error.on.missing",
         [&](const Entry& e) {
             set_missing(e, boolean_option(e) ? MissingFieldBehavior::error : MissingFieldBehavior::ignore);
         }},
        {"table.op.invalid.behavior",
         [&](const Entry& e) {
             outbox.op_invalid_behavior = enum_option<InvalidOpBehavior>(
                 e, {{"warn", InvalidOpBehavior::warn}, {"error", InvalidOpBehavior::error}, {"fatal", InvalidOpBehavior::fatal}});
         }},
        {"table.expand.json.payload", [&](const Entry& e) { outbox.expand_json_payload = boolean_option(e); }},
        {"table.json.payload.null.behavior",
         [&](const Entry& e) {
             outbox.json_null_behavior = enum_option<JsonNullBehavior>(
                 e, {{"ignore", JsonNullBehavior::ignore}, {"optional_bytes", JsonNullBehavior::optional_bytes}});
         }},
        {"table.json.payload.empty.array.behavior",
         [&](const Entry& e) {
             outbox.json_empty_array_behavior = enum_option<JsonEmptyArrayBehavior>(
                 e, {{"ignore", JsonEmptyArrayBehavior::ignore}, {"optional_string", JsonEmptyArrayBehavior::optional_string}});
         }},
    };
    if (scope == OutboxScope::shared) {
        handlers.push_back({"message.prefix.include.list", [&](const Entry& e) { outbox.message_prefixes = message_prefixes(e); }});
        handlers.push_back({"message.key.columns", [&](const Entry& e) { outbox.message_key_columns = message_key_columns(e); }});
    }

    for (const Entry& e : entries) {
        const auto handler = std::find_if(handlers.begin(), handlers.end(),
                                          [&](const KeyHandler& h) { return h.name == e.name; });
        if (handler != handlers.end()) {
            handler->apply(e);
        } else if (const char* why = ignored_debezium_key(e.name)) {
            log::warn(e.location.describe() + ": " + e.key + " is accepted for compatibility with Debezium but has no effect: " + why);
        } else if (const char* new_name = renamed_debezium_key(e.name)) {
            fail(e.location, e.key + ": Debezium renamed this option to " + new_name + " (and removed the old name in 2.0)");
        } else if (scope == OutboxScope::table_override && (e.name == "message.prefix.include.list" ||
                                                             e.name == "message.key.columns" || e.name == "table.overrides")) {
            fail(e.location, e.key + ": applies to the whole outbox section and cannot be set per table");
        } else {
            std::string known;
            for (const KeyHandler& h : handlers) known += (known.empty() ? "" : ", ") + std::string(h.name);
            if (scope == OutboxScope::shared) known += ", table.overrides";
            fail(e.location, e.key + ": unknown key (expected one of: " + known +
                                 "; Debezium's table.field.event.type and tracing.operation.name are accepted and "
                                 "ignored)");
        }
    }
}

// table.overrides maps schema.table to a block of options; each block starts from the shared
// settings, so it only needs the keys that differ.
void read_table_overrides(const Entry& e, OutboxSettings& outbox) {
    if (e.value.IsNull()) return;
    if (!e.value.IsMap()) fail(e.location, e.key + ": expected a mapping of schema.table to a block of options");
    OutboxSettings shared = outbox;
    shared.message_prefixes.clear();
    for (const Entry& block : entries_of(e.value, e.key, e.location.file)) {
        OutboxTableOverride table_override{table_name(block.name, e.key, block.location), shared, block.location};
        for (const auto& earlier : outbox.table_overrides)
            if (earlier.table == table_override.table)
                fail(block.location, e.key + ": table " + table_override.table.qualified() + " is given twice (first at line " +
                                         std::to_string(earlier.location.line) + ")");
        if (!block.value.IsNull() && !block.value.IsMap())
            fail(block.location, block.key + ": expected a block of outbox options");
        const auto options = block.value.IsNull() ? std::vector<Entry>{} : entries_of(block.value, block.key, e.location.file);
        read_outbox_options(options, table_override.settings, OutboxScope::table_override);
        outbox.table_overrides.push_back(std::move(table_override));
    }
}

void read_outbox(const Entry& section, OutboxSettings& outbox) {
    // Errors about a default regex or replacement (e.g. a custom regex without the default's
    // routedByValue group) point at the section.
    outbox.route_topic_regex_location = outbox.route_topic_replacement_location = section.location;
    const std::vector<Entry> entries = section_entries(section);
    // Copies, never assignments: assigning a YAML::Node writes through to the node it refers to.
    std::vector<Entry> options;
    const Entry* overrides = nullptr;
    for (const Entry& e : entries) {
        if (e.name == "table.overrides") overrides = &e;
        else options.push_back(e);
    }
    read_outbox_options(options, outbox, OutboxScope::shared);
    // After the shared keys, wherever they stand in the file, so every override inherits all of them.
    if (overrides) read_table_overrides(*overrides, outbox);
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


// "host:port" or "[ipv6]:port". The port is required: scrapers need to know where to look.
void read_metrics(const Entry& section, MetricsSettings& metrics) {
    dispatch(section_entries(section),
             {
                 {"listen",
                  [&](const Entry& e) {
                      const std::string text = non_empty_text(e);
                      const auto bad = [&] {
                          fail(e.location, e.key + ": expected host:port (e.g. 127.0.0.1:9187 or [::1]:9187), got " + quoted(text));
                      };
                      const auto colon = text.rfind(':');
                      if (colon == std::string::npos) bad();
                      std::string host = text.substr(0, colon);
                      if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
                      else if (host.find_first_of("[]:") != std::string::npos) bad();
                      const std::string port_text = text.substr(colon + 1);
                      unsigned port = 0;
                      const char* end = port_text.data() + port_text.size();
                      const auto [stop, error] = std::from_chars(port_text.data(), end, port);
                      if (host.empty() || error != std::errc{} || stop != end || port == 0 || port > 65535) bad();
                      metrics = {text, host, static_cast<std::uint16_t>(port), e.location};
                  }},
             });
}

void read_log(const Entry& section, LogSettings& settings) {
    dispatch(section_entries(section),
             {
                 {"level",
                  [&](const Entry& e) {
                      settings.level = enum_option<log::Level>(e, {{"debug", log::Level::debug},
                                                                   {"info", log::Level::info},
                                                                   {"warn", log::Level::warn},
                                                                   {"error", log::Level::error}});
                  }},
                 {"format",
                  [&](const Entry& e) {
                      settings.format = enum_option<log::Format>(e, {{"text", log::Format::text}, {"json", log::Format::json}});
                  }},
                 {"progress.interval.ms", [&](const Entry& e) { settings.progress_interval_ms = integer_at_least(e, 1); }},
             });
}


void require_kafka_target(const KafkaSettings& kafka, const Location& kafka_location) {
    const bool has_bootstrap = std::any_of(kafka.properties.begin(), kafka.properties.end(),
                                           [](const KafkaProperty& p) { return p.name == "bootstrap.servers"; });
    if (!has_bootstrap && kafka.embedded_brokers == 0) {
        fail(kafka_location, "kafka.bootstrap.servers is required (or kafka.embedded.brokers for demos and tests)");
    }
}



// Where the record format was set, and the schemas.enable flags, for the checks made once every
// key is read.
struct FormatLocations {
    Location key;
    Location value;
    Location header;
    bool key_schemas;  // JsonConverter's schemas.enable, true unless set
    bool value_schemas;
    bool header_schemas;
    Location context_headers;
};

config::Converter converter(const Entry& e, Location& where) {
    where = e.location;
    return enum_option<Converter>(e, {{"org.apache.kafka.connect.storage.stringconverter", Converter::string},
                                      {"org.apache.kafka.connect.json.jsonconverter", Converter::json},
                                      {"org.apache.kafka.connect.converters.bytearrayconverter", Converter::bytes},
                                      {"io.debezium.converters.binarydataconverter", Converter::bytes},
                                      {"io.confluent.connect.avro.avroconverter", Converter::avro},
                                      {"io.apicurio.registry.utils.converter.avroconverter", Converter::avro}},
                                  "converter");
}

bool names_apicurio_converter(const Entry& e) {
    return option_word(e) == "io.apicurio.registry.utils.converter.avroconverter";
}

// Headers as SimpleHeaderConverter writes them (StringConverter's bytes are the same), or as
// JsonConverter does (Debezium Server's json header format).
config::Converter header_converter(const Entry& e, Location& where) {
    where = e.location;
    return enum_option<Converter>(e, {{"org.apache.kafka.connect.storage.simpleheaderconverter", Converter::string},
                                      {"org.apache.kafka.connect.storage.stringconverter", Converter::string},
                                      {"org.apache.kafka.connect.json.jsonconverter", Converter::json}},
                                  "header converter");
}

// JsonConverter writes schemas unless told not to. What the router cannot write with them is refused.
void check_record_format(Config& config, const FormatLocations& at) {
    RecordFormat& format = config.format;
    format.key_schemas = (format.key == Converter::json && at.key_schemas) || format.key == Converter::avro;
    format.value_schemas = (format.value == Converter::json && at.value_schemas) || format.value == Converter::avro;
    format.header_schemas = format.header == Converter::json && at.header_schemas;
    const auto any_block = [&](auto predicate) {
        if (predicate(config.outbox)) return true;
        return std::any_of(config.outbox.table_overrides.begin(), config.outbox.table_overrides.end(),
                           [&](const OutboxTableOverride& o) { return predicate(o.settings); });
    };
    const bool envelope = any_block([](const OutboxSettings& o) {
        return std::any_of(o.additional_fields.begin(), o.additional_fields.end(),
                           [](const AdditionalField& f) { return f.placement == Placement::envelope; });
    });
    if (format.value_schemas && envelope && format.topic_prefix.empty())
        fail(at.value, std::string("value.converter: ") +
                           (format.value == Converter::avro ? "AvroConverter" : "JsonConverter with schemas") +
                           " names an envelope's schema after topic.prefix, which is not set");
    if (format.key == Converter::avro) check_avro_converter(format.key_avro, "key");
    if (format.value == Converter::avro) check_avro_converter(format.value_avro, "value");
    if (format.context_headers && format.topic_prefix.empty())
        fail(at.context_headers, "extended.headers.enabled needs topic.prefix: it is the connectorLogicalName header");
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
    Location dead_letter_location{file_name, 0};
    FormatLocations format_locations{{file_name, 0}, {file_name, 0}, {file_name, 0}, true, true, true, {file_name, 0}};
    std::vector<Entry> entries = entries_of(root, "", file_name);
    // Set apart by copying: assigning one YAML::Node to another (as std::erase_if's shifting
    // does) overwrites the node's content instead of rebinding it.
    std::vector<Entry> topic_creation;
    std::vector<Entry> others;
    // Debezium's CloudEventsConverter takes its own value.converter.* settings.
    const Entry* cloud_events = nullptr;
    for (const Entry& e : entries)
        if (e.name == "value.converter" && names_cloud_events_converter(e)) cloud_events = &e;
    std::vector<Entry> cloud_events_settings;
    for (const Entry& e : entries) {
        std::string_view side, setting;
        if (e.name.rfind("topic.creation.", 0) == 0)
            topic_creation.push_back(e);
        else if (cloud_events && &e == cloud_events)
            continue;  // read below
        else if (cloud_events && is_cloud_events_key(e.name))
            cloud_events_settings.push_back(e);
        else if (is_converter_setting(e.name, side, setting))
            read_avro_converter_setting(e, setting, side == "key" ? config.format.key_avro : config.format.value_avro);
        else
            others.push_back(e);
    }
    if (cloud_events) {
        config.format.cloud_events = read_cloud_events(*cloud_events, cloud_events_settings);
        config.format.value = Converter::json;  // the data, as JsonConverter writes it
        format_locations.value = cloud_events->location;
        format_locations.value_schemas = config.format.cloud_events.data_schemas;
    }
    entries = std::move(others);
    config.topic_creation = read_topic_creation(topic_creation, file_name);
    dispatch(entries,
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
                 {"caught.up.lag.ms", [&](const Entry& e) { config.caught_up_lag_ms = integer_at_least(e, 0); }},
                 {"max.inflight.messages", [&](const Entry& e) { config.max_inflight_messages = integer_at_least(e, 1); }},
                 {"max.inflight.bytes", [&](const Entry& e) { config.max_inflight_bytes = integer_at_least(e, 1024); }},
                 {"errors.tolerance", [&](const Entry& e) { config.errors_tolerance = enum_option<ErrorTolerance>(
                                           e, {{"none", ErrorTolerance::none}, {"all", ErrorTolerance::all}}); }},
                 {"errors.deadletterqueue.topic.name",
                  [&](const Entry& e) {
                      dead_letter_location = e.location;
                      config.dead_letter_topic = topic_name(e);
                  }},
                 {"delivery.guarantee", [&](const Entry& e) { config.delivery_guarantee = enum_option<DeliveryGuarantee>(
                                           e, {{"at-least-once", DeliveryGuarantee::at_least_once},
                                               {"exactly-once", DeliveryGuarantee::exactly_once}}); }},
                 {"offsets.topic", [&](const Entry& e) { config.offsets_topic = topic_name(e); }},
                 {"transaction.max.events", [&](const Entry& e) { config.transaction_max_events = integer_at_least(e, 1); }},
                 {"transaction.max.bytes", [&](const Entry& e) { config.transaction_max_bytes = integer_at_least(e, 1); }},
                 {"transaction.max.ms", [&](const Entry& e) { config.transaction_max_ms = integer_at_least(e, 1); }},
                 {"key.converter",
                  [&](const Entry& e) {
                      config.format.key = converter(e, format_locations.key);
                      config.format.key_avro.location = e.location;
                      config.format.key_avro.apicurio = names_apicurio_converter(e);
                  }},
                 {"value.converter",
                  [&](const Entry& e) {
                      config.format.value = converter(e, format_locations.value);
                      config.format.value_avro.location = e.location;
                      config.format.value_avro.apicurio = names_apicurio_converter(e);
                      config.format.value_struct_text = config.format.value == Converter::string;
                  }},
                 {"key.converter.schemas.enable",
                  [&](const Entry& e) { format_locations.key_schemas = boolean_option(e); }},
                 {"value.converter.schemas.enable",
                  [&](const Entry& e) { format_locations.value_schemas = boolean_option(e); }},
                 {"header.converter",
                  [&](const Entry& e) { config.format.header = header_converter(e, format_locations.header); }},
                 {"header.converter.schemas.enable",
                  [&](const Entry& e) { format_locations.header_schemas = boolean_option(e); }},
                 {"extended.headers.enabled",
                  [&](const Entry& e) {
                      config.format.context_headers = boolean_option(e);
                      format_locations.context_headers = e.location;
                  }},
                 {"topic.prefix", [&](const Entry& e) { config.format.topic_prefix = non_empty_text(e); }},
                 {"time.precision.mode",
                  [&](const Entry& e) {
                      config.format.modes.time = enum_option<TimePrecisionMode>(
                          e, {{"adaptive", TimePrecisionMode::adaptive},
                              {"adaptive_time_microseconds", TimePrecisionMode::adaptive_time_microseconds},
                              {"connect", TimePrecisionMode::connect},
                              {"isostring", TimePrecisionMode::isostring}});
                  }},
                 {"decimal.handling.mode",
                  [&](const Entry& e) {
                      config.format.modes.decimal = enum_option<DecimalHandlingMode>(
                          e, {{"precise", DecimalHandlingMode::precise},
                              {"double", DecimalHandlingMode::as_double},
                              {"string", DecimalHandlingMode::as_string}});
                  }},
                 {"binary.handling.mode",
                  [&](const Entry& e) {
                      config.format.modes.binary = enum_option<BinaryHandlingMode>(
                          e, {{"bytes", BinaryHandlingMode::bytes},
                              {"base64", BinaryHandlingMode::base64},
                              {"base64-url-safe", BinaryHandlingMode::base64_url_safe},
                              {"hex", BinaryHandlingMode::hex}});
                  }},
                 {"interval.handling.mode",
                  [&](const Entry& e) {
                      config.format.modes.interval = enum_option<IntervalHandlingMode>(
                          e, {{"numeric", IntervalHandlingMode::numeric}, {"string", IntervalHandlingMode::string}});
                  }},
                 {"hstore.handling.mode",
                  [&](const Entry& e) {
                      config.format.modes.hstore = enum_option<HStoreHandlingMode>(
                          e, {{"json", HStoreHandlingMode::json}, {"map", HStoreHandlingMode::map}});
                  }},
                 {"money.fraction.digits",
                  [&](const Entry& e) { config.format.modes.money_fraction_digits = integer_at_least(e, 0); }},
                 {"unavailable.value.placeholder",
                  [&](const Entry& e) { config.format.modes.unavailable_placeholder = unavailable_placeholder(e); }},
                 {"schema.name.adjustment.mode",
                  [&](const Entry& e) { config.format.schema_names = name_adjustment_mode(e); }},
                 {"field.name.adjustment.mode",
                  [&](const Entry& e) { config.format.field_names = name_adjustment_mode(e); }},
                 {"metrics", [&](const Entry& e) { read_metrics(e, config.metrics); }},
                 {"log", [&](const Entry& e) { read_log(e, config.log); }},
             });

    check_record_format(config, format_locations);
    check_cloud_events(config);
    if (config.postgres.conninfo.empty()) fail(postgres_location, "postgres.conninfo is required");
    if (!config.dead_letter_topic.empty() && config.errors_tolerance != ErrorTolerance::all)
        fail(dead_letter_location, "errors.deadletterqueue.topic.name needs errors.tolerance: all");
    require_kafka_target(config.kafka, kafka_location);
    return config;
}

Config load_config(const std::string& path) {
    return parse_config(read_file(path), path);
}

}  // namespace outbox::config
