#include "outbox/router/event_router.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "outbox/connect/column_value.hpp"
#include "outbox/avro/avro_encoder.hpp"
#include "outbox/connect/connect_json.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/connect_struct_text.hpp"
#include "outbox/connect/hstore_value.hpp"
#include "outbox/connect/timestamp_text.hpp"
#include "outbox/connect/unavailable_array.hpp"
#include "outbox/router/trace_context.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::router {
namespace {

// A payload whose document is `[]` (blanks inside it; Jackson ignores what follows it).
bool is_empty_json_array(std::string_view text) {
    if (text.empty() || text.front() != '[') return false;
    const auto next = text.find_first_not_of(" \t\n\r", 1);
    return next != std::string_view::npos && text[next] == ']';
}

constexpr std::string_view kRouteByOption = "outbox.route.by.field";
constexpr std::string_view kKeyOption = "outbox.table.field.event.key";
constexpr std::string_view kIdOption = "outbox.table.field.event.id";
constexpr std::string_view kPayloadOption = "outbox.table.field.event.payload";
constexpr std::string_view kTimestampOption = "outbox.table.field.event.timestamp";
constexpr std::string_view kPlacementOption = "outbox.table.fields.additional.placement";
// CloudEventsMaker.ceType() for the PostgreSQL connector (metadata.source type:generate).
constexpr std::string_view kGeneratedCloudEventType = "io.debezium.connector.postgresql.DataChangeEvent";
constexpr std::string_view kCloudEventVersion = "outbox-router " OUTBOX_ROUTER_VERSION;

// Debezium's test is payload.toString().trim().isEmpty(); Java's trim() strips every
// character up to U+0020.
bool is_blank(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) <= ' '; });
}

std::optional<std::string> owned(std::optional<std::string_view> view) {
    return view ? std::optional<std::string>(*view) : std::nullopt;
}

// A column's value through Debezium's representation; a value it cannot have is the row's fault.
template <typename Row, typename Convert>
auto representable(const Row& row, std::string_view column, std::string_view option, Convert convert) {
    try {
        return convert();
    } catch (const ValueError& e) {
        throw row.invalid(column, option, e.what());
    }
}

}  // namespace

// One row being routed, and what has been read of it so far (for the dead-letter copy an
// InvalidRowError carries).
struct EventRouter::Row {
    const OutboxTable& table;
    pgoutput::Tuple values;
    const TransactionContext& txn;
    std::optional<std::string_view> key;
    std::optional<std::string_view> payload;
    std::optional<std::string_view> id;
    const config::ValueModes* modes = nullptr;
    mutable std::string bytea_placeholder;   // the placeholder as bytea's hex text output
    mutable std::string hstore_placeholder;  // Debezium's placeholder map as hstore text output
    mutable std::map<std::uint32_t, std::string> array_placeholders;  // by array type: its placeholder's array text

    std::string where() const {
        return table.description + ", transaction committing at LSN " + format_lsn(txn.commit_lsn);
    }

    InvalidRowError invalid(std::string_view column, std::string_view option, const std::string& cause) const {
        return InvalidRowError(table.description + ", " + std::string(table.column_word) + " \"" + std::string(column) +
                                   "\" (" + std::string(option) + "), transaction committing at LSN " +
                                   format_lsn(txn.commit_lsn) + ": " + cause,
                               table.source, owned(key), owned(payload), owned(id));
    }

    // The column's text output; nullopt for NULL.
    std::optional<std::string_view> text(const BoundColumn& column) const {
        if (column.index >= values.size())
            throw ProtocolError(where() + ": the row has " + std::to_string(values.size()) +
                                " columns but RELATION described more");
        const auto& value = values[column.index];
        if (value.kind == pgoutput::ValueKind::null) return std::nullopt;
        if (value.kind == pgoutput::ValueKind::text) {
            // An array Debezium cannot read is null there.
            if (column.type == ValueType::array && !debezium_reads_array(column.column_type(), value.data))
                return std::nullopt;
            return value.data;
        }
        if (value.kind == pgoutput::ValueKind::unchanged_toast) return unavailable(column);
        throw ProtocolError(where() + ", column \"" + std::string(column.name) + "\": unexpected value kind '" +
                            std::string(1, static_cast<char>(value.kind)) + "' in an INSERT");
    }

    // An unchanged TOASTed value (the INSERT of a primary-key UPDATE): Debezium's placeholder as
    // its PostgreSQL connector converts it for the column's type. Its string converter gives the
    // text; bytes the text's bytes, and the Base64 modes null (its converter finds no byte[]).
    std::optional<std::string_view> unavailable(const BoundColumn& column) const {
        const std::string& placeholder = modes->unavailable_placeholder;
        // hstore: Debezium's placeholder map, {placeholder: placeholder}, as hstore text.
        if (column.column_type().name == "hstore") {
            if (hstore_placeholder.empty()) hstore_placeholder = hstore_text(placeholder, placeholder);
            return hstore_placeholder;
        }
        if (column.type == ValueType::text || column.type == ValueType::json) return placeholder;
        if (column.type == ValueType::array) {
            const auto text = unavailable_array_text(column.column_type(), *modes);
            if (!text) return std::nullopt;
            return array_placeholders.try_emplace(column.column_type().oid, *text).first->second;
        }
        if (column.type == ValueType::bytea && modes->binary == config::BinaryHandlingMode::bytes) {
            if (bytea_placeholder.empty()) {
                static constexpr char kHex[] = "0123456789abcdef";
                bytea_placeholder = "\\x";
                for (const char c : placeholder) {
                    bytea_placeholder += kHex[static_cast<unsigned char>(c) >> 4];
                    bytea_placeholder += kHex[c & 15];
                }
            }
            return bytea_placeholder;
        }
        if (column.type == ValueType::bytea && modes->binary != config::BinaryHandlingMode::hex) return std::nullopt;
        // Other types: Debezium puts the placeholder text where its schema wants a number (its
        // record fails); hex-mode bytea: the text itself, not hex (not reproduced).
        throw invalid(column.name, "unavailable.value.placeholder",
                      "the value is unchanged and stored out of line (TOAST), so pgoutput did not send it, and the "
                      "placeholder is text, which the router does not write for a " +
                          std::string(column.type == ValueType::bytea ? "bytea in binary.handling.mode hex"
                                                                     : value_type_name(column.type)));
    }
};

EventRouter::EventRouter(const config::OutboxSettings& settings, const config::RecordFormat& format, std::string run_id)
    : settings_(settings),
      format_(format),
      values_(format.modes),
      envelope_schemas_(settings, format),
      run_id_(std::move(run_id)),
      topics_(settings.route_topic_regex, settings.route_topic_replacement, settings.route_topic_regex_location,
              settings.route_topic_replacement_location),
      expansion_{settings.json_null_behavior, settings.json_empty_array_behavior, !format.value_struct_text},
      header_scratch_(settings.additional_fields.size()),
      context_values_{header_string(format.topic_prefix), header_string("0"), header_string("postgresql"),
                      header_string(run_id_)},
      cloud_event_source_("/debezium/postgresql/" + format.topic_prefix) {
    if (format.key == config::Converter::avro) avro_key_ = std::make_unique<AvroRecordSide>(format.key_avro, format, true);
    if (format.value == config::Converter::avro)
        avro_value_ = std::make_unique<AvroRecordSide>(format.value_avro, format, false);
    headers_.reserve(7 + settings.additional_fields.size());
    for (std::size_t i = 0; i < settings.additional_fields.size(); ++i)
        if (settings.additional_fields[i].placement == config::Placement::header &&
            settings.additional_fields[i].alias == "type")
            type_field_ = i;  // Debezium reads the last header of the name
    for (const auto& field : settings.additional_fields) {
        std::string key;
        if (field.placement == config::Placement::envelope) {
            envelope_ = true;
            key = ",";
            append_json_string(key, field.alias);
            key += ':';
        }
        envelope_keys_.push_back(std::move(key));
    }
}

std::optional<std::string_view> EventRouter::converted(const Row& row, const BoundColumn& column,
                                                       std::string_view option, std::string& scratch) const {
    const auto text = row.text(column);
    if (!text) return std::nullopt;
    const auto bytes = kafka_bytes(column.type, *text, scratch);
    if (!bytes) throw row.invalid(column.name, option, "the bytea text cannot be decoded");
    return bytes;
}

std::int64_t EventRouter::event_timestamp(const Row& row) const {
    if (!row.table.timestamp) return row.txn.commit_time_ms;
    const BoundColumn& column = *row.table.timestamp;
    const auto text = row.text(column);
    if (!text) return row.txn.commit_time_ms;  // as Debezium falls back to its own time
    const bool epoch = column.type == ValueType::integer;
    const auto millis = epoch ? parse_int64(*text) : parse_timestamp_ms(*text);
    if (!millis)
        throw row.invalid(column.name, kTimestampOption,
                          "\"" + std::string(*text) + "\" is not " +
                              (epoch ? "a whole number of epoch milliseconds"
                                     : "a timestamp in ISO form (DateStyle ISO; infinity and BC dates cannot be "
                                       "record timestamps)"));
    // Kafka Connect sends -1 (Kafka's "no timestamp") as none, so the producer stamps its own time,
    // as librdkafka does for 0; it refuses anything earlier (InvalidRecordException).
    if (*millis == -1) return 0;
    if (*millis < -1)
        throw row.invalid(column.name, kTimestampOption,
                          "\"" + std::string(*text) +
                              "\" is before 1969-12-31T23:59:59.999Z, which a Kafka record timestamp cannot be");
    return *millis;
}

bool EventRouter::expanded(const Row& row, std::string_view payload_text) {
    // JsonConverter with schemas writes the schema Debezium infers; where it infers none (or its
    // record fails) the payload is kept as it was, and so under StringConverter (expansion_).
    expanded_schema_.reset();
    const auto why = row.table.payload.type == ValueType::bytea
                         ? std::optional<std::string>("it is bytea, and only text can be JSON")
                         : expansion_.expand(payload_text, expanded_scratch_, row.table.payload.name,
                                             format_.value_schemas ? &expanded_schema_ : nullptr);
    if (!why) return true;
    log::warn(row.where() + ": table.expand.json.payload: " + std::string(row.table.column_word) + " \"" +
              std::string(row.table.payload.name) + "\" is kept as it was because " + *why);
    return false;
}

void EventRouter::append_payload_json(const Row& row, std::optional<std::string_view> payload_text) {
    payload_expanded_ = false;  // the previous row's may have been
    if (!payload_text) {
        value_scratch_ += "null";
    } else if (settings_.expand_json_payload && expanded(row, *payload_text)) {
        value_scratch_ += expanded_scratch_;
        payload_expanded_ = true;
    } else {
        const BoundColumn& column = row.table.payload;
        representable(row, column.name, kPayloadOption,
                      [&] { values_.append_json(value_scratch_, column.column_type(), *payload_text); });
    }
}

// Whether ByteArrayConverter can write the column: only a bytea that Debezium keeps as bytes, or
// bits longer than one (Debezium's Bits byte[]); Connect fails on anything else.
void EventRouter::require_bytes(const Row& row, const BoundColumn& column, std::string_view option,
                                std::string_view converter) const {
    if (column.type == ValueType::bytea && format_.modes.binary == config::BinaryHandlingMode::bytes) return;
    if (column.type == ValueType::bits && column.column_type().modifier != 1) return;
    throw row.invalid(column.name, option,
                      std::string(converter) + " ByteArrayConverter writes only bytes, and the value is " +
                          (column.type == ValueType::bytea ? "bytea written as text (binary.handling.mode)"
                                                           : value_type_name(column.type)));
}

// A key or headers-only value as the converter writes it: StringConverter the value's text,
// JsonConverter a typed JSON value (JSON null for NULL, as for a column's optional schema),
// ByteArrayConverter a bytea column's bytes.
std::optional<std::string_view> EventRouter::formatted(const Row& row, const BoundColumn& column,
                                                       std::string_view option, config::Converter converter,
                                                       std::optional<std::string_view> text, std::string& scratch) {
    if (converter == config::Converter::json &&
        (option == kKeyOption ? format_.key_schemas : format_.value_schemas)) {
        scratch.clear();
        append_with_schema(scratch, row, column, option, text);
        return std::string_view(scratch);
    }
    if (!text) return converter == config::Converter::json ? std::optional<std::string_view>("null") : std::nullopt;
    switch (converter) {
        case config::Converter::bytes:
            require_bytes(row, column, option, option == kKeyOption ? "key.converter" : "value.converter");
            return representable(row, column.name, option,
                                 [&] { return values_.string_text(column.column_type(), *text, scratch); });
        case config::Converter::json:
            scratch.clear();
            representable(row, column.name, option, [&] { values_.append_json(scratch, column.column_type(), *text); });
            return std::string_view(scratch);
        case config::Converter::string:
        case config::Converter::avro: break;  // the row's text until the topic is known (avro_key)
    }
    return representable(row, column.name, option,
                         [&] { return values_.string_text(column.column_type(), *text, scratch); });
}

// The payload as a field of the envelope's Struct under StringConverter.
void EventRouter::append_payload_struct_field(const Row& row, std::string_view payload_text) {
    if (settings_.expand_json_payload && expanded(row, payload_text)) {
        append_struct_text_of_json(value_scratch_, expanded_scratch_);
        return;
    }
    const BoundColumn& column = row.table.payload;
    representable(row, column.name, kPayloadOption,
                  [&] { values_.append_struct_field(value_scratch_, column.column_type(), payload_text); });
}

std::optional<std::string_view> EventRouter::headers_only_value(const Row& row,
                                                                std::optional<std::string_view> payload_text) {
    // An expanded payload is a Struct: an explicit StringConverter writes its toString(), else JSON.
    if (payload_text && settings_.expand_json_payload && expanded(row, *payload_text)) {
        if (format_.value_schemas) {
            value_json_scratch_.assign("{\"schema\":");
            append_schema_json(value_json_scratch_, *expanded_schema_);
            value_json_scratch_ += ",\"payload\":" + expanded_scratch_ + "}";
            return value_json_scratch_;
        }
        if (!format_.value_struct_text) return expanded_scratch_;
        value_json_scratch_.clear();
        append_struct_text_of_json(value_json_scratch_, expanded_scratch_);
        return value_json_scratch_;
    }
    // Debezium infers no schema at all (null) for a top-level empty array and keeps the text, which
    // JsonConverter then writes with a null schema.
    if (payload_text && settings_.expand_json_payload && format_.value_schemas &&
        settings_.json_empty_array_behavior == config::JsonEmptyArrayBehavior::ignore &&
        row.table.payload.type != ValueType::bytea && is_empty_json_array(*payload_text)) {
        value_json_scratch_.assign("{\"schema\":null,\"payload\":");
        append_json_string(value_json_scratch_, *payload_text);
        value_json_scratch_ += '}';
        return value_json_scratch_;
    }
    return formatted(row, row.table.payload, kPayloadOption, format_.value, payload_text, value_json_scratch_);
}

// A header as header.converter writes it: SimpleHeaderConverter's text, or JsonConverter's JSON
// (NULL then the JSON text null, as for a column's optional schema).
std::optional<std::string_view> EventRouter::header_value(const Row& row, const BoundColumn& column,
                                                          std::string_view option, std::string& scratch) const {
    const auto text = row.text(column);
    const bool json = format_.header == config::Converter::json;
    if (format_.header_schemas) {
        scratch.clear();
        append_with_schema(scratch, row, column, option, text);
        return std::string_view(scratch);
    }
    if (!text) return json ? std::optional<std::string_view>("null") : std::nullopt;
    return representable(row, column.name, option, [&] {
        if (!json) return values_.header_text(column.column_type(), *text, scratch);
        scratch.clear();
        values_.append_json(scratch, column.column_type(), *text);
        return std::string_view(scratch);
    });
}

// A header value that is a string of the router's own, as header.converter writes a string.
std::string EventRouter::header_string(std::string_view text) const {
    if (format_.header != config::Converter::json) return std::string(text);
    std::string json = format_.header_schemas ? R"({"schema":{"type":"string","optional":false},"payload":)" : "";
    append_json_string(json, text);
    if (format_.header_schemas) json += '}';
    return json;
}

// JsonConverter with schemas: the value as {"schema": <the column's>, "payload": <value>}.
void EventRouter::append_with_schema(std::string& out, const Row& row, const BoundColumn& column,
                                     std::string_view option, std::optional<std::string_view> text) const {
    out += "{\"schema\":";
    append_connect_schema(out, column.column_type(), format_.modes, column.optional, column.default_value);
    out += ",\"payload\":";
    if (!text) {
        out += "null";
    } else {
        representable(row, column.name, option, [&] { values_.append_json(out, column.column_type(), *text); });
    }
    out += '}';
}

// The writer's trace context as W3C headers, where Debezium's OpenTelemetry integration puts
// them. The router records no spans of its own, so it passes the writer's context on unchanged,
// as OpenTelemetry does without an SDK: the consumer's span becomes the writer's child.
void EventRouter::append_trace_headers(const Row& row) {
    const BoundColumn& column = *row.table.tracing_context;
    const auto text = row.text(column);
    if (!text) return;
    trace_ = parse_trace_context(*text);
    if (!trace_) {
        log::warn(row.where() + ": " + std::string(row.table.column_word) + " \"" + std::string(column.name) +
                  "\" (tracing.span.context.field) holds no valid W3C traceparent; the event is sent without trace "
                  "headers");
        return;
    }
    trace_->traceparent = header_string(trace_->traceparent);
    headers_.push_back({"traceparent", trace_->traceparent});
    if (trace_->tracestate.empty()) return;
    trace_->tracestate = header_string(trace_->tracestate);
    headers_.push_back({"tracestate", trace_->tracestate});
}

// The envelope's schema; a version column's NULL or non-number is no version, as in Debezium.
const EnvelopeSchemas::Envelope& EventRouter::envelope_schema(const Row& row, std::string_view route_by) {
    std::optional<std::int64_t> version;
    if (row.table.schema_version)
        if (const auto text = row.text(*row.table.schema_version)) version = parse_int64(*text);
    return envelope_schemas_.schema_for(row.table, route_by, version, payload_expanded_ ? expanded_schema_ : nullptr);
}

namespace {

// An AvroConverter failure that is the row's: a name Avro refuses, a value its schema refuses,
// a schema the registry refuses.
template <typename Row, typename Write>
std::optional<std::string_view> avro_written(const Row& row, std::string_view column, std::string_view option,
                                             std::string_view converter, Write write) {
    try {
        return write();
    } catch (const avro::AvroNameError& e) {
        throw row.invalid(column, option, std::string(converter) + " AvroConverter: " + e.what());
    } catch (const avro::AvroEncodingError& e) {
        throw row.invalid(column, option, std::string(converter) + " AvroConverter: " + e.what());
    } catch (const registry::SchemaRefusedError& e) {
        throw row.invalid(column, option, std::string(converter) + " AvroConverter: " + e.what());
    }
}

}  // namespace

std::optional<std::string_view> EventRouter::avro_key(const Row& row, const std::string& topic) {
    const BoundColumn& column = row.table.key;
    const auto text = row.text(column);
    const Schema schema = column_schema(column.column_type(), format_.modes, column.optional, column.default_value);
    const Value value =
        text ? representable(row, column.name, kKeyOption, [&] { return values_.value(column.column_type(), *text); })
             : Value::null();
    return avro_written(row, column.name, kKeyOption, "key.converter",
                        [&] { return avro_key_->write(topic, schema, value, avro_key_scratch_); });
}

// AvroConverter's value: the envelope's Struct, or the payload alone (its column's schema, or
// the schema Debezium infers for an expanded one). A NULL payload alone is a null value.
std::optional<std::string_view> EventRouter::avro_value(const Row& row, const std::string& topic,
                                                        std::string_view route_by,
                                                        std::optional<std::string_view> payload_text, bool envelope) {
    const BoundColumn& payload = row.table.payload;
    const auto column_value = [&](const BoundColumn& column, std::string_view option) {
        const auto text = row.text(column);
        if (!text) return Value::null();
        return representable(row, column.name, option, [&] { return values_.value(column.column_type(), *text); });
    };
    const auto expanded_value = [&] {
        try {
            return value_of_json(*expanded_schema_, nlohmann::ordered_json::parse(expanded_scratch_));
        } catch (const std::exception& e) {
            throw row.invalid(payload.name, kPayloadOption, std::string("the expanded payload: ") + e.what());
        }
    };
    SchemaPtr schema;
    Value value;
    if (envelope) {
        schema = envelope_schema(row, route_by).schema;
        std::vector<Value> fields;
        fields.push_back(payload_expanded_ ? expanded_value() : column_value(payload, kPayloadOption));
        for (std::size_t i = 0; i < row.table.additional.size(); ++i)
            if (settings_.additional_fields[i].placement == config::Placement::envelope && row.table.additional[i])
                fields.push_back(column_value(*row.table.additional[i], kPlacementOption));
        value = Value::of_struct(std::move(fields));
    } else if (!payload_text) {
        return std::nullopt;
    } else if (settings_.expand_json_payload && expanded(row, *payload_text)) {
        schema = expanded_schema_;
        value = expanded_value();
    } else {
        schema = std::make_shared<Schema>(
            column_schema(payload.column_type(), format_.modes, payload.optional, payload.default_value));
        value = column_value(payload, kPayloadOption);
    }
    return avro_written(row, payload.name, kPayloadOption, "value.converter",
                        [&] { return avro_value_->write(topic, *schema, value, avro_value_scratch_); });
}

OutboxRecord EventRouter::route(const OutboxTable& table, pgoutput::Tuple values, const TransactionContext& txn) {
    Row row{table, values, txn, std::nullopt, std::nullopt, std::nullopt, &format_.modes, {}, {}, {}};
    OutboxRecord record;
    const auto route_by = converted(row, table.route_by, kRouteByOption, route_scratch_);
    row.key = converted(row, table.key, kKeyOption, key_scratch_);
    record.key = row.key = formatted(row, table.key, kKeyOption, format_.key, row.text(table.key), key_json_scratch_);
    const auto payload_text = row.text(table.payload);
    row.payload = converted(row, table.payload, kPayloadOption, payload_scratch_);
    row.id = header_value(row, table.id, kIdOption, id_scratch_);
    headers_.clear();
    if (std::exchange(key_change_, false)) headers_.push_back({"__debezium.oldkey", old_key_});
    if (format_.context_headers) {
        // Debezium's, in its order, before the EventRouter's own.
        headers_.push_back({"__debezium.context.connectorLogicalName", context_values_[0]});
        headers_.push_back({"__debezium.context.taskId", context_values_[1]});
        headers_.push_back({"__debezium.context.connectorName", context_values_[2]});
        headers_.push_back({"__debezium.context.runId", context_values_[3]});
    }
    if (table.tracing_context) append_trace_headers(row);
    headers_.push_back({"id", row.id});

    if (!route_by)
        throw row.invalid(table.route_by.name, kRouteByOption, "the value is NULL, so the event has no topic");
    const auto& [topic, legal] = topics_.route_for(*route_by);
    if (!legal)
        throw row.invalid(table.route_by.name, kRouteByOption,
                          "topic \"" + topic +
                              "\" is not a legal Kafka topic name (1 to 249 characters from "
                              "A-Z a-z 0-9 . _ -, and not . or ..)");
    record.topic = topic;
    if (avro_key_) record.key = avro_key(row, topic);
    record.timestamp_ms = event_timestamp(row);

    // Debezium never sees a byte[] payload as empty; an empty bytea is as empty as an empty text.
    const bool empty_payload =
        !row.payload || (table.payload.type == ValueType::bytea ? row.payload->empty() : is_blank(*row.payload));
    const bool tombstone = settings_.route_tombstone_on_empty_payload && empty_payload;
    const bool build_envelope = envelope_ && !tombstone;
    if (build_envelope && format_.value == config::Converter::bytes)
        throw row.invalid(table.payload.name, kPlacementOption,
                          "value.converter ByteArrayConverter writes only bytes, and envelope placements make a "
                          "structure");
    // An explicit StringConverter writes the envelope's Struct as Struct.toString(); otherwise JSON.
    const bool struct_text = build_envelope && format_.value_struct_text;
    bool struct_empty = true;  // no field written yet: Struct.toString() leaves null fields out
    if (struct_text) {
        value_scratch_.assign("Struct{");
        if (payload_text) {
            value_scratch_ += "payload=";
            append_payload_struct_field(row, *payload_text);
            struct_empty = false;
        }
    } else if (build_envelope) {
        value_scratch_.assign("{\"payload\":");
        append_payload_json(row, payload_text);
    }
    for (std::size_t i = 0; i < table.additional.size(); ++i) {
        const config::AdditionalField& field = settings_.additional_fields[i];
        const auto& column = table.additional[i];
        if (!column) {
            if (settings_.additional_missing == config::MissingFieldBehavior::ignore) continue;
            throw row.invalid(field.column, kPlacementOption,
                              "there is no such " + std::string(table.column_word) +
                                  " and table.field.additional.missing is error (ignore leaves the field out)");
        }
        const auto text = row.text(*column);
        switch (field.placement) {
            case config::Placement::header:
                headers_.push_back({field.alias, header_value(row, *column, kPlacementOption, header_scratch_[i])});
                break;
            case config::Placement::partition: {
                if (!text) break;  // NULL: the producer's partitioner decides, as in Debezium
                const auto number = parse_int64(*text);
                if (!number || *number < 0 || *number > std::numeric_limits<std::int32_t>::max())
                    throw row.invalid(field.column, kPlacementOption,
                                      "\"" + std::string(*text) + "\" is not a partition number (0 to 2147483647)");
                record.partition = static_cast<std::int32_t>(*number);
                record.partition_column = field.column;
                break;
            }
            case config::Placement::envelope:
                if (!build_envelope) break;
                if (struct_text) {
                    if (!text) break;
                    if (!std::exchange(struct_empty, false)) value_scratch_ += ',';
                    value_scratch_ += field.alias + "=";
                    representable(row, field.column, kPlacementOption,
                                  [&] { values_.append_struct_field(value_scratch_, column->column_type(), *text); });
                    break;
                }
                value_scratch_ += envelope_keys_[i];
                if (!text) {
                    value_scratch_ += "null";
                } else {
                    representable(row, field.column, kPlacementOption,
                                  [&] { values_.append_json(value_scratch_, column->column_type(), *text); });
                }
                break;
        }
    }
    record.headers = headers_;
    if (avro_value_ && !tombstone) {
        record.value = avro_value(row, topic, *route_by, payload_text, build_envelope);
    } else if (build_envelope && format_.value_schemas) {
        value_scratch_ += '}';
        value_json_scratch_.assign("{\"schema\":");
        value_json_scratch_ += envelope_schema(row, *route_by).json;
        value_json_scratch_ += ",\"payload\":";
        value_json_scratch_ += value_scratch_;
        value_json_scratch_ += '}';
        record.value = value_json_scratch_;
    } else if (build_envelope) {
        value_scratch_ += '}';
        record.value = value_scratch_;
    } else if (!tombstone) {
        record.value = headers_only_value(row, payload_text);
    }
    if (format_.cloud_events.enabled && record.value) as_cloud_event(row, record);
    return record;
}

// Debezium's CloudEventsConverter on the EventRouter's record, with metadata.source header: the id
// from the `id` header (the id column), the type from the `type` header (or generated), the time
// from the source block's ts_ms (the commit time). Like Debezium, only a structure can be data.
void EventRouter::as_cloud_event(const Row& row, OutboxRecord& record) {
    constexpr std::string_view option = "value.converter";
    std::string_view data = *record.value;
    if (format_.value_schemas) {
        auto with_schema = debezium_data_with_schema(data);
        if (with_schema) data = cloud_event_data_ = std::move(*with_schema);
        else data = {};
    }
    if (data.empty() || data.front() != '{')
        throw row.invalid(row.table.payload.name, option,
                          "CloudEventsConverter writes only a structure as data (an expanded JSON object: "
                          "table.expand.json.payload, or envelope placements), and this value is none");
    const auto id = row.text(row.table.id);
    if (!id) throw row.invalid(row.table.id.name, option, "a CloudEvent's id cannot be NULL");
    std::optional<std::string_view> type = kGeneratedCloudEventType;
    if (!format_.cloud_events.type_generated) {
        const auto& column = type_field_ ? row.table.additional[*type_field_] : std::nullopt;
        if (!column)
            throw row.invalid(settings_.additional_fields[type_field_.value_or(0)].column, option,
                              "CloudEventsConverter reads the type from the type header, and the row has no such "
                              "column");
        type = row.text(*column);
        if (!type) throw row.invalid(column->name, option, "a CloudEvent's type cannot be NULL");
    }
    CloudEventAttributes event;
    event.id = *id;
    event.source = cloud_event_source_;
    event.type = *type;
    event.subject = row.text(row.table.key);
    event.time_ms = row.txn.commit_time_ms;
    if (format_.cloud_events.extension_attributes) {
        // The source block as Debezium's connector would have written it, but for its version:
        // the router names itself there.
        event.extensions.reserve(20);
        append_debezium_extensions(event.extensions,
                                   {kCloudEventVersion, format_.topic_prefix, format_.cloud_events.database,
                                    row.table.name.schema, row.table.name.name,
                                    row.txn.commit_time_us != 0 ? row.txn.commit_time_us : row.txn.commit_time_ms * 1000,
                                    row.txn.xid,
                                    row.txn.change_lsn, row.txn.previous_commit_lsn});
    }
    if (format_.cloud_events.mode == config::CloudEventsMode::structured) {
        write_structured(cloud_event_scratch_, event, data);
        record.value = cloud_event_scratch_;
        return;
    }
    record.value = data;
    write_binary_headers(cloud_event_headers_, event);
    for (const auto& [name, value] : cloud_event_headers_.headers) headers_.push_back({name, value});
    record.headers = headers_;
}

OutboxRecord EventRouter::route_key_change(const OutboxTable& table, pgoutput::Tuple old_key, pgoutput::Tuple row,
                                           const TransactionContext& txn) {
    old_key_ = old_key_header(table, old_key);
    key_change_ = true;
    try {
        return route(table, row, txn);
    } catch (...) {
        key_change_ = false;
        throw;
    }
}

// Debezium's record key (a Struct of the key columns) as header.converter writes it:
// SimpleHeaderConverter as Kafka's Values text ({"id":"..."}: strings quoted, escaping only the
// quote and the backslash, bytes as quoted Base64, numbers and dates bare), JsonConverter as JSON,
// with schemas the key's struct schema (defaults included) named <topic.prefix>.<schema>.<table>.Key.
std::string EventRouter::old_key_header(const OutboxTable& table, pgoutput::Tuple old_key) const {
    const bool json = format_.header == config::Converter::json;
    std::string payload = "{";
    std::string fields;
    for (const auto& column : table.key_columns) {
        if (payload.size() > 1) payload += ',';
        append_json_string(payload, column.name);
        payload += ':';
        const auto& value = column.index < old_key.size() ? old_key[column.index] : pgoutput::ColumnValue{};
        // A NOT NULL column the old key lacks: Debezium's default or fallback (column_catalog.hpp).
        const bool present = value.kind == pgoutput::ValueKind::text;
        const ColumnType& type = present || !column.when_absent ? column.type : column.when_absent->type;
        const std::string_view data = present ? value.data
                                      : column.when_absent ? std::string_view(column.when_absent->text)
                                                           : std::string_view();
        if (!present && !column.when_absent) {
            payload += "null";
        } else if (json) {
            values_.append_json(payload, type, data);
        } else {
            std::string as_json, scratch;
            values_.append_json(as_json, type, data);
            const auto text = values_.header_text(type, data, scratch);
            // Values quotes Strings and bytes only: a precise decimal (numeric with a scale, money) is
            // a BigDecimal, a Number.
            const bool big_decimal =
                ((type.kind == ValueType::numeric && type.numeric_has_scale()) || type.kind == ValueType::money) &&
                format_.modes.decimal == config::DecimalHandlingMode::precise;
            if (as_json.empty() || as_json[0] != '"' || big_decimal) {
                payload += text;
            } else {
                append_backslash_quoted(payload, text);
            }
        }
        if (!fields.empty()) fields += ',';
        append_connect_schema(fields, column.type, format_.modes, column.optional, column.default_value);
        fields.pop_back();
        fields += ",\"field\":";
        append_json_string(fields, column.name);
        fields += '}';
    }
    payload += '}';
    if (!format_.header_schemas) return payload;
    std::string schema = "{\"type\":\"struct\",\"fields\":[" + fields + "],\"optional\":false,\"name\":";
    append_json_string(schema, format_.topic_prefix + "." + table.name.schema + "." + table.name.name + ".Key");
    return "{\"schema\":" + schema + "},\"payload\":" + payload + "}";
}

}  // namespace outbox::router
