#include "outbox/config/cloud_events_settings.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace outbox::config {

namespace {

constexpr std::string_view kPrefix = "value.converter.";

// CloudEventsConverterConfig's keys, the converter's json.* pass-through the router reads, and
// the router's own content mode.
constexpr std::array<std::string_view, 11> kKeys = {
    "serializer.type",        "data.serializer.type",        "metadata.source",
    "extension.attributes.enable", "opentelemetry.tracing.attributes.enable", "schema.name.adjustment.mode",
    "schema.cloudevents.name", "schema.data.name.source.header.enable", "json.schemas.enable",
    "cloudevents.mode",       "schemas.enable"};

// metadata.source: "header" first (the outbox record has no Debezium envelope to read from),
// then id and type each header or generate.
void read_metadata_source(const Entry& e, CloudEventsSettings& settings) {
    const std::string text = list_text(e);
    const auto items = split_list(text);
    const auto lowered = [](std::string_view word) {
        std::string out(word);
        for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    if (items.empty() || lowered(items[0]) != "header")
        fail(e.location, e.key + ": the first item must be header: Debezium's CloudEventsConverter writes a null "
                                 "value for an outbox record with metadata from the value (" + quoted(text) + ")");
    for (std::size_t i = 1; i < items.size(); ++i) {
        const auto colon = items[i].find(':');
        const std::string field = lowered(items[i].substr(0, colon));
        const std::string source = colon == std::string_view::npos ? "" : lowered(trim(items[i].substr(colon + 1)));
        if (source != "header" && source != "generate")
            fail(e.location, e.key + ": " + quoted(std::string(items[i])) + " needs a source, header or generate");
        if (field == "type") {
            settings.type_generated = source == "generate";
        } else if (field == "id") {
            if (source == "generate")
                fail(e.location, e.key + ": id:generate builds the id from Debezium's source block (lsn, txId, "
                                         "sequence), which the router does not write; use the outbox id (header)");
        } else if (field == "traceparent" || field == "dataschemaname") {
            // Read only with opentelemetry.tracing.attributes.enable or schema.data.name.source.header.enable.
        } else {
            fail(e.location, e.key + ": field " + quoted(field) + " cannot have its own source (id, type, "
                                     "traceparent or dataSchemaName)");
        }
    }
}

void require_false(const Entry& e, const std::string& why) {
    if (boolean_option(e)) fail(e.location, e.key + ": only false is supported: " + why);
}

}  // namespace

bool names_cloud_events_converter(const Entry& e) {
    return option_word(e) == "io.debezium.converters.cloudeventsconverter";
}

bool is_cloud_events_key(const std::string& name) {
    if (name.rfind(kPrefix, 0) != 0) return false;
    const std::string_view rest = std::string_view(name).substr(kPrefix.size());
    for (const auto key : kKeys)
        if (rest == key) return true;
    return false;
}

CloudEventsSettings read_cloud_events(const Entry& converter, const std::vector<Entry>& entries) {
    CloudEventsSettings settings;
    settings.enabled = true;
    settings.location = converter.location;
    bool metadata_source = false;
    bool data_schemas = true;
    for (const Entry& e : entries) {
        const std::string key = e.name.substr(kPrefix.size());
        if (key == "serializer.type" || key == "data.serializer.type") {
            enum_option<int>(e, {{"json", 0}}, "serializer");
        } else if (key == "metadata.source") {
            read_metadata_source(e, settings);
            metadata_source = true;
        } else if (key == "extension.attributes.enable") {
            settings.extension_attributes = boolean_option(e);
        } else if (key == "opentelemetry.tracing.attributes.enable") {
            require_false(e, "the router does not write the traceparent attribute");
        } else if (key == "schema.data.name.source.header.enable") {
            require_false(e, "the data's schema name is always io.debezium.connector.postgresql.Data");
        } else if (key == "json.schemas.enable") {
            data_schemas = boolean_option(e);
        } else if (key == "cloudevents.mode") {
            settings.mode = enum_option<CloudEventsMode>(
                e, {{"structured", CloudEventsMode::structured}, {"binary", CloudEventsMode::binary}});
        }
        // schema.name.adjustment.mode, schema.cloudevents.name and schemas.enable change nothing in
        // JSON events without schemas.
    }
    if (!metadata_source)
        fail(converter.location, converter.key + ": CloudEventsConverter needs value.converter.metadata.source: "
                                                 "header (its default, value, writes a null value for every outbox "
                                                 "record)");
    settings.data_schemas = data_schemas;
    return settings;
}

namespace {

// The database postgres.conninfo names (dbname, key/value or URI), as Debezium's database.dbname.
std::string conninfo_database(const std::string& conninfo) {
    char* message = nullptr;
    PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &message);
    PQfreemem(message);
    std::string database;
    for (const PQconninfoOption* o = options; o && o->keyword; ++o)
        if (std::string_view(o->keyword) == "dbname" && o->val) database = o->val;
    PQconninfoFree(options);
    return database;
}

}  // namespace

void check_cloud_events(Config& config) {
    CloudEventsSettings& settings = config.format.cloud_events;
    if (!settings.enabled) return;
    if (config.format.topic_prefix.empty())
        fail(settings.location, "value.converter: CloudEventsConverter needs topic.prefix: the events' source is "
                                "/debezium/postgresql/<topic.prefix>");
    if (settings.extension_attributes && !config.postgres.conninfo.empty()) {
        settings.database = conninfo_database(config.postgres.conninfo);
        if (settings.database.empty())
            fail(settings.location, "value.converter: CloudEventsConverter's extension attributes "
                                    "(extension.attributes.enable, true by default) name the database "
                                    "(iodebeziumdb): give dbname in postgres.conninfo, or set "
                                    "value.converter.extension.attributes.enable: false");
    }
    if (settings.type_generated) return;
    const auto check = [&](const OutboxSettings& outbox, const Location& where, const std::string& block) {
        for (const auto& field : outbox.additional_fields)
            if (field.placement == Placement::header && field.alias == "type") return;
        fail(where, "value.converter: CloudEventsConverter reads the event type from a header named type, and " +
                        block + " places none (add table.fields.additional.placement <column>:header:type, or set "
                                "value.converter.metadata.source type:generate)");
    };
    // The shared block serves messages and every table without an override of its own.
    const auto& overrides = config.outbox.table_overrides;
    const bool shared_block_used =
        !config.outbox.message_prefixes.empty() ||
        std::any_of(config.postgres.tables.begin(), config.postgres.tables.end(), [&](const TableName& table) {
            return std::none_of(overrides.begin(), overrides.end(),
                                [&](const OutboxTableOverride& o) { return o.table == table; });
        });
    if (shared_block_used) check(config.outbox, settings.location, "outbox");
    for (const auto& override_block : config.outbox.table_overrides)
        check(override_block.settings, override_block.location,
              "the table.overrides block of " + override_block.table.qualified());
}

}  // namespace outbox::config
