#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/kafka/record.hpp"

namespace outbox::router {

// A CloudEvents 1.0 extension attribute and its value, as Debezium's CloudEventsConverter types
// source-block fields: strings and int64 (written as a string) are strings, int8 to int32 numbers.
struct CloudEventExtension {
    enum class Kind { string, integer, boolean, null };
    std::string name;
    Kind kind = Kind::string;
    std::string value;  // the text; "true"/"false" for a boolean; unused for null
};

// The context attributes of one event.
struct CloudEventAttributes {
    std::string_view id;
    std::string_view source;  // URI-reference, e.g. "/debezium/postgresql/<topic.prefix>"
    std::string_view type;
    std::optional<std::string_view> subject;
    std::int64_t time_ms = 0;  // written as RFC 3339 in UTC with milliseconds
    std::string_view datacontenttype = "application/json";
    std::vector<CloudEventExtension> extensions;  // in order
};

// Debezium's extension attribute name: "iodebezium" followed by the ASCII letters and digits of
// `field` (other characters are dropped; case is kept, as Debezium keeps it).
std::string debezium_extension_name(std::string_view field);

// What Debezium's PostgreSQL source block holds for a change the connector streamed.
struct DebeziumSource {
    std::string_view version;      // Debezium's version string
    std::string_view name;         // topic.prefix
    std::string_view database;     // database.dbname
    std::string_view schema;
    std::string_view table;
    std::int64_t commit_time_us = 0;  // ts_ms, ts_us and ts_ns are this commit time
    std::uint32_t xid = 0;
    std::uint64_t lsn = 0;             // the change's WAL position; 0: unknown (lsn, sequence null)
    std::uint64_t previous_commit_lsn = 0;  // sequence's first item; 0: null
};

// The extension attributes Debezium's CloudEventsConverter writes with
// extension.attributes.enable (its default) for an outbox event created by an INSERT: iodebeziumop
// "c", one per source block field in the block's order (int64 fields as strings; snapshot
// "false"; xmin, origin and origin_lsn null), then the transaction block's three (null: the
// outbox record carries no transaction header). Appended to `out`.
void append_debezium_extensions(std::vector<CloudEventExtension>& out, const DebeziumSource& source);

// `ms` since the epoch as "yyyy-MM-ddTHH:mm:ss.SSSZ", Debezium's ceTime format.
std::string rfc3339_millis(std::int64_t ms);

// Structured content mode, as Debezium's CloudEventsConverter writes it with JSON: a compact JSON
// object with id, source, specversion, type, time, datacontenttype, the extensions, then "data"
// holding `data_json` as given (a JSON value: the payload, or {"schema":…,"payload":…}).
// The subject is not written, since Debezium writes none.
void write_structured(std::string& out, const CloudEventAttributes& event, std::string_view data_json);

// The data Debezium's converter writes with data schemas (json.schemas.enable, its default) from
// the value JsonConverter writes with schemas, {"schema":S,"payload":P}: S's fields in a required
// struct named io.debezium.connector.postgresql.Data, then P. nullopt when S is not a struct (the
// converter takes only a struct) or the value is not of that shape.
std::optional<std::string> debezium_data_with_schema(std::string_view value_with_schema);

// Binary content mode per the CloudEvents Kafka protocol binding: ce_specversion, ce_id,
// ce_source, ce_type, ce_subject (when set), ce_time, then ce_<name> per non-null extension
// (the name lower-cased: header names must be valid attribute names), and content-type for
// datacontenttype. The record's value stays the data. `out` owns the header texts.
struct BinaryHeaders {
    std::vector<std::pair<std::string, std::string>> headers;
};
void write_binary_headers(BinaryHeaders& out, const CloudEventAttributes& event);

}  // namespace outbox::router
