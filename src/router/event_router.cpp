#include "outbox/router/event_router.hpp"

#include <algorithm>
#include <limits>

#include "outbox/router/column_value.hpp"
#include "outbox/router/timestamp_text.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::router {
namespace {

constexpr std::string_view kRouteByOption = "outbox.route.by.field";
constexpr std::string_view kKeyOption = "outbox.table.field.event.key";
constexpr std::string_view kIdOption = "outbox.table.field.event.id";
constexpr std::string_view kPayloadOption = "outbox.table.field.event.payload";
constexpr std::string_view kTimestampOption = "outbox.table.field.event.timestamp";
constexpr std::string_view kPlacementOption = "outbox.table.fields.additional.placement";

// Debezium's test is payload.toString().trim().isEmpty(); Java's trim() strips every
// character up to U+0020.
bool is_blank(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) <= ' '; });
}

std::optional<std::string> owned(std::optional<std::string_view> view) {
    return view ? std::optional<std::string>(*view) : std::nullopt;
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
        if (value.kind == pgoutput::ValueKind::text) return value.data;
        throw ProtocolError(where() + ", column \"" + std::string(column.name) + "\": unexpected value kind '" +
                            std::string(1, static_cast<char>(value.kind)) + "' in an INSERT");
    }
};

EventRouter::EventRouter(const config::OutboxSettings& settings, const config::RecordFormat& format, std::string run_id)
    : settings_(settings),
      format_(format),
      run_id_(std::move(run_id)),
      topics_(settings.route_topic_regex, settings.route_topic_replacement, settings.route_topic_regex_location,
              settings.route_topic_replacement_location),
      expansion_{settings.json_null_behavior, settings.json_empty_array_behavior},
      header_scratch_(settings.additional_fields.size()) {
    headers_.reserve(5 + settings.additional_fields.size());
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
    if (*millis < 0)
        throw row.invalid(
            column.name, kTimestampOption,
            "\"" + std::string(*text) + "\" is before 1970-01-01, which a Kafka record timestamp cannot be");
    return *millis;
}

bool EventRouter::expanded(const Row& row, std::string_view payload_text) {
    const auto why = row.table.payload.type == ValueType::bytea
                         ? std::optional<std::string>("it is bytea, and only text can be JSON")
                         : expansion_.expand(payload_text, expanded_scratch_);
    if (!why) return true;
    log::warn(row.where() + ": table.expand.json.payload: " + std::string(row.table.column_word) + " \"" +
              std::string(row.table.payload.name) + "\" is kept as it was because " + *why);
    return false;
}

void EventRouter::append_payload_json(const Row& row, std::optional<std::string_view> payload_text) {
    if (!payload_text) {
        value_scratch_ += "null";
    } else if (settings_.expand_json_payload && expanded(row, *payload_text)) {
        value_scratch_ += expanded_scratch_;
    } else if (row.table.payload.type == ValueType::bytea) {
        value_scratch_ += '"';
        append_base64(value_scratch_, *row.payload);
        value_scratch_ += '"';
    } else {
        append_json_value(value_scratch_, row.table.payload.type, *payload_text, bytes_scratch_);
    }
}

std::optional<std::string_view> EventRouter::headers_only_value(const Row& row,
                                                                std::optional<std::string_view> payload_text,
                                                                std::optional<std::string_view> payload) {
    // An expanded payload is JSON already, whichever converter writes it.
    if (payload && settings_.expand_json_payload && expanded(row, *payload_text)) return expanded_scratch_;
    return formatted_value(row, payload_text, payload);
}

// The key as key.converter writes it: StringConverter the text (raw bytes for bytea), JsonConverter
// a typed JSON value, ByteArrayConverter only a bytea column's bytes (Connect fails on anything else).
std::optional<std::string_view> EventRouter::formatted_key(const Row& row) {
    if (format_.key == config::Converter::string) return row.key;
    // JsonConverter writes a NULL of the column's (optional) schema as JSON null.
    if (!row.key) return format_.key == config::Converter::json ? std::optional<std::string_view>("null") : row.key;
    const BoundColumn& column = row.table.key;
    if (format_.key == config::Converter::bytes) {
        if (column.type != ValueType::bytea)
            throw row.invalid(column.name, kKeyOption,
                              std::string("key.converter ByteArrayConverter writes only bytes, and the value is ") +
                                  value_type_name(column.type));
        return row.key;
    }
    key_json_scratch_.clear();
    append_json_value(key_json_scratch_, column.type, *row.text(column), bytes_scratch_);
    return key_json_scratch_;
}

// A headers-only payload, not expanded, as value.converter writes it. A
// tombstone never comes here: it has no schema, and JsonConverter writes it as no bytes.
std::optional<std::string_view> EventRouter::formatted_value(const Row& row, std::optional<std::string_view> payload_text,
                                                             std::optional<std::string_view> value) {
    if (format_.value == config::Converter::string) return value;
    if (!value) return format_.value == config::Converter::json ? std::optional<std::string_view>("null") : value;
    const BoundColumn& column = row.table.payload;
    if (format_.value == config::Converter::bytes) {
        if (column.type != ValueType::bytea)
            throw row.invalid(column.name, kPayloadOption,
                              std::string("value.converter ByteArrayConverter writes only bytes, and the value is ") +
                                  value_type_name(column.type));
        return value;
    }
    value_json_scratch_.clear();
    append_json_value(value_json_scratch_, column.type, *payload_text, bytes_scratch_);
    return value_json_scratch_;
}

OutboxRecord EventRouter::route(const OutboxTable& table, pgoutput::Tuple values, const TransactionContext& txn) {
    Row row{table, values, txn, std::nullopt, std::nullopt, std::nullopt};
    OutboxRecord record;
    const auto route_by = converted(row, table.route_by, kRouteByOption, route_scratch_);
    row.key = converted(row, table.key, kKeyOption, key_scratch_);
    record.key = row.key = formatted_key(row);
    const auto payload_text = row.text(table.payload);
    row.payload = converted(row, table.payload, kPayloadOption, payload_scratch_);
    if (const auto id_text = row.text(table.id)) {
        row.id = header_text(table.id.type, *id_text, id_scratch_, bytes_scratch_);
        if (!row.id) throw row.invalid(table.id.name, kIdOption, "the bytea text cannot be decoded");
    }
    headers_.clear();
    if (format_.context_headers) {
        // Debezium's, in its order, before the EventRouter's own.
        headers_.push_back({"__debezium.context.connectorLogicalName", format_.topic_prefix});
        headers_.push_back({"__debezium.context.taskId", "0"});
        headers_.push_back({"__debezium.context.connectorName", "postgresql"});
        headers_.push_back({"__debezium.context.runId", run_id_});
    }
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
    if (build_envelope) {
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
            case config::Placement::header: {
                std::optional<std::string_view> value;
                if (text && !(value = header_text(column->type, *text, header_scratch_[i], bytes_scratch_)))
                    throw row.invalid(field.column, kPlacementOption, "the bytea text cannot be decoded");
                headers_.push_back({field.alias, value});
                break;
            }
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
                value_scratch_ += envelope_keys_[i];
                if (!text) {
                    value_scratch_ += "null";
                } else if (!append_json_value(value_scratch_, column->type, *text, bytes_scratch_)) {
                    throw row.invalid(field.column, kPlacementOption, "the bytea text cannot be decoded");
                }
                break;
        }
    }
    record.headers = headers_;
    if (build_envelope) {
        value_scratch_ += '}';
        record.value = value_scratch_;
    } else if (!tombstone) {
        record.value = headers_only_value(row, payload_text, row.payload);
    }
    return record;
}

}  // namespace outbox::router
