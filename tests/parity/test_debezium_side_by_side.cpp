#define BOOST_TEST_MODULE debezium_side_by_side
#include <algorithm>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>

#include "debezium_connect.hpp"
#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

// Debezium itself (the PostgreSQL connector and the Outbox EventRouter on Kafka Connect) and the
// router read the same database, each through its own slot and publication, and each table of
// cases below is written once. Every record the router writes is compared with Debezium's:
// topic, partition, key, value, headers and timestamp. Debezium's topics carry a prefix (a
// RegexRouter after the EventRouter) so that both land on one broker. A case that differs says
// how (as_debezium), and docs/configuration.md ("Debezium's bytes") says why. Connect's producer
// keeps its defaults: no compared field depends on them (keyed records take the Java client's
// murmur2 partition in both, and nothing here is retried).

namespace {

// The connectors Debezium runs, each with a router beside it: StringConverter (the worker's
// default) with Debezium's context headers, JsonConverter for keys and values without them, and
// each again with Debezium's other column modes. Headers are SimpleHeaderConverter's, but JSON
// (JsonConverter without schemas) for the JSON connector with other modes.
// The last, cloud_events, is Debezium's CloudEventsConverter as its outbox examples set it up: a
// HeaderFrom copying source and op into headers before the EventRouters, metadata.source header,
// JsonConverter headers with schemas (which it reads id and type through).
// cloud_events_schemas is the same with data schemas (json.schemas.enable, Debezium's default).
enum class Connector { string, json, string_modes, json_modes, json_schemas, bytes, cloud_events, cloud_events_schemas };
constexpr Connector kConnectors[] = {Connector::string,       Connector::json,         Connector::string_modes,
                                     Connector::json_modes,   Connector::json_schemas, Connector::bytes,
                                     Connector::cloud_events, Connector::cloud_events_schemas};
bool cloud_events(Connector c) { return c == Connector::cloud_events || c == Connector::cloud_events_schemas; }

bool writes_json(Connector c) { return c == Connector::json || c == Connector::json_modes || c == Connector::json_schemas; }
// JsonConverter's {schema, payload} (its default) for keys, values and headers.
bool schemas(Connector c) { return c == Connector::json_schemas; }
bool header_schemas(Connector c) { return c == Connector::json_schemas || cloud_events(c); }
// JsonConverter for headers too (Debezium Server's json header format).
bool json_headers(Connector c) {
    return c == Connector::json_modes || c == Connector::json_schemas || cloud_events(c);
}
bool context_headers(Connector c) { return c == Connector::string || c == Connector::json_schemas; }

// The column modes other than Debezium's defaults, under their names (the same for both).
std::vector<std::pair<std::string, std::string>> column_modes(Connector c) {
    if (c == Connector::string_modes)
        return {{"time.precision.mode", "connect"}, {"decimal.handling.mode", "double"},
                {"binary.handling.mode", "base64"}, {"interval.handling.mode", "string"},
                {"hstore.handling.mode", "map"}};
    if (c == Connector::json_modes)
        return {{"time.precision.mode", "isostring"}, {"decimal.handling.mode", "string"},
                {"binary.handling.mode", "base64-url-safe"}};
    return {};
}

struct Case {
    std::string name;  // the schema of its outbox table
    std::string columns;
    std::vector<std::pair<std::string, std::string>> options;  // EventRouter options
    Connector connector;
    std::vector<std::string> statements;  // each its own transaction
    std::map<std::string, std::size_t> topics;  // the router's topics and their record counts
    bool timestamp_column = false;  // the options name table.field.event.timestamp
    // A documented difference: turns the router's record into Debezium's (none: the same bytes).
    std::function<void(ConsumedRecord&)> as_debezium = {};
    // Timestamps checked record by record (ours, theirs, the first transaction's start), instead
    // of timestamp_column's equality or the commit-time rule.
    std::function<void(const ConsumedRecord&, const ConsumedRecord&, std::int64_t)> timestamps = {};
    std::string setup = {};  // SQL run in the case's schema before its table is created (domains)
    std::string key_columns = {};  // message.key.columns for its table (a connector option)
};

// JsonConverter (schemas.enable=false) writes a string as a JSON string literal.
std::optional<std::string> json_string(const std::optional<std::string>& text) {
    if (!text) return text;
    std::string quoted = "\"";
    for (const char c : *text) {
        if (c == '"' || c == '\\') quoted += std::string("\\") + c;
        else if (c == '\n') quoted += "\\n";
        else if (c == '\t') quoted += "\\t";
        else quoted += c;
    }
    return quoted + "\"";
}

// Bytes as a failed assertion shows them; a null value is not the empty string.
std::string shown(const std::optional<std::string>& bytes) { return bytes ? "'" + *bytes + "'" : "null"; }

std::string shown(const std::vector<std::pair<std::string, std::optional<std::string>>>& headers) {
    std::string text;
    for (const auto& [name, value] : headers) text += name + "=" + shown(value) + " ";
    return text;
}

void set_header(ConsumedRecord& record, const std::string& name, const std::string& value) {
    for (auto& header : record.headers)
        if (header.first == name) header.second = value;
}

std::string base64(const std::string& bytes) {
    static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
        out += alphabet[n >> 18 & 63];
        out += alphabet[n >> 12 & 63];
        out += i + 1 < bytes.size() ? alphabet[n >> 6 & 63] : '=';
        out += i + 2 < bytes.size() ? alphabet[n & 63] : '=';
    }
    return out;
}

const std::string kBase = "id text, aggregatetype text, aggregateid text, payload text";

// Debezium's CloudEventsConverter under the same keys on both sides (docs/configuration.md,
// "CloudEvents"): JSON events, JSON data without schemas and with extension attributes (Debezium's
// default), or with data schemas and without them.
std::vector<std::pair<std::string, std::string>> cloud_events_settings(Connector c) {
    return {{"value.converter", "io.debezium.converters.CloudEventsConverter"},
            {"value.converter.metadata.source", "header,id:header,type:header"},
            {"value.converter.extension.attributes.enable", c == Connector::cloud_events ? "true" : "false"},
            {"value.converter.json.schemas.enable", c == Connector::cloud_events_schemas ? "true" : "false"}};
}

const std::string kCloudEventsColumns = "id uuid, aggregatetype text, aggregateid text, type text, payload jsonb";

const std::string kTypedColumns =
    "tz timestamptz, tz3 timestamptz(3), tz0 timestamptz(0), ts timestamp, ts3 timestamp(3), d date, t time, "
    "t3 time(3), ttz timetz, n numeric, n2 numeric(10, 2), f8 float8, f4 real, b bytea, iv interval, u uuid";

// A table of every typed column as headers; under JsonConverter in the envelope too, with the
// unconstrained numeric as the key. Precise decimals cannot hold NaN (Debezium's task fails), and
// connect mode's java.util.Date turns Julian before 1582: those values only where they apply.
Case types_case(const std::string& name, Connector connector) {
    std::string placements;
    for (const char* column : {"tz", "tz3", "tz0", "ts", "ts3", "d", "t", "t3", "ttz", "n", "n2", "f8", "f4", "b", "iv", "u"})
        placements += std::string(placements.empty() ? "" : ", ") + column + ":header" +
                      (writes_json(connector) ? std::string(", ") + column + ":envelope" : "");
    std::vector<std::pair<std::string, std::string>> options = {{"table.fields.additional.placement", placements},
                                                                {"route.topic.replacement", "sbs." + name}};
    if (writes_json(connector)) options.push_back({"table.field.event.key", "n"});
    const bool precise = column_modes(connector).empty();
    const bool julian_dates = connector == Connector::string_modes;
    const std::string insert = "INSERT INTO " + name + ".outbox VALUES ";
    return {name,
            "id text, aggregatetype text, aggregateid text, payload text, " + kTypedColumns,
            options,
            connector,
            {insert + "('y1', 'x', 'k1', 'p', '2024-01-02 08:34:05.5+05:30', '2024-01-02 08:34:05.5+05:30', "
                      "'2024-01-02 08:34:05+05:30', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.12', "
                      "'2024-01-02', '03:04:05.25', '03:04:05.25', '03:04:05.25+02', 12.50, 12.50, 1e20, 1.5, "
                      "'\\x00ff10fb', '1 year 2 mons 3 days 04:05:06.78', '4d47e190-0402-4048-bc2c-89dd54343cdc')",
             insert + "('y2', 'x', 'k2', 'p', '1969-12-31 23:59:59.999999+00', 'infinity', '-infinity', " +
                 (julian_dates ? "'1899-01-02 03:04:05.000001', '1969-12-31 23:59:59.999', '1960-01-01', "
                               : "'0044-03-15 00:00:00 BC', 'infinity', '1960-01-01', ") +
                 "'24:00:00', '00:00:00', '00:00:00-03:30', " + (precise ? "-0.00012" : "'NaN'") +
                 ", -0.01, 0.1, 'NaN', '\\x', '-1 days -02:00:00', NULL)",
             insert + "('y3', 'x', 'k3', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1000.000, 0, "
                      "'Infinity', '-Infinity', NULL, '00:00:00', NULL)"},
            {{"sbs." + name, 3}}};
}

#include "side_by_side_array_domain_cases.hpp"
#include "side_by_side_scalar_cases.hpp"
#include "side_by_side_key_column_cases.hpp"

const std::vector<Case>& cases() {
    static const std::vector<Case> all = [] {
    std::vector<Case> list = {
        {"defaults", "id uuid PRIMARY KEY, aggregatetype text, aggregateid text, type text, payload jsonb", {},
         Connector::string,
         {"INSERT INTO defaults.outbox VALUES "
          "('4d47e190-0402-4048-bc2c-89dd54343cdc', 'SbsDefault', 'k1', 'Created', "
          "'{\"id\": 1, \"customerId\": 123, \"items\": [\"a\", \"ü\"], \"nested\": {\"b\": null}}'), "
          "('5d47e190-0402-4048-bc2c-89dd54343cdc', 'SbsDefault', 'k2', 'Created', '[1, 2.50, \"x\"]'), "
          "('6d47e190-0402-4048-bc2c-89dd54343cdc', 'SbsDefault', 'k1', 'Created', '\"text\"')",
          // Updates and deletes of outbox rows are dropped by both.
          "UPDATE defaults.outbox SET type = 'Changed'",
          "DELETE FROM defaults.outbox",
          "INSERT INTO defaults.outbox VALUES "
          "('7d47e190-0402-4048-bc2c-89dd54343cdc', 'SbsDefault', 'k3', 'Created', '{}'); "
          "DELETE FROM defaults.outbox"},
         {{"outbox.event.SbsDefault", 4}}},
        {"routing", kBase + ", kind text",
         {{"route.by.field", "kind"},
          {"route.topic.regex", "(?<domain>[a-z]+)_(?<kind>[A-Za-z]+)"},
          {"route.topic.replacement", "sbs.routing.${kind}.$1"}},
         Connector::string,
         {"INSERT INTO routing.outbox VALUES ('r1', 'x', 'k1', 'matched', 'shop_Order'), "
          "('r2', 'x', 'k2', 'no match: the value is the topic', 'SbsRoutingRaw')"},
         {{"sbs.routing.Order.shop", 1}, {"SbsRoutingRaw", 1}}},
        {"columns", kBase + ", event_id bigint, order_key integer, body text",
         {{"table.field.event.id", "event_id"},
          {"table.field.event.key", "order_key"},
          {"table.field.event.payload", "body"},
          {"route.topic.replacement", "sbs.columns"}},
         Connector::string,
         {"INSERT INTO columns.outbox VALUES ('c1', 'x', 'k', 'p', 9000000000, 7, 'custom body'), "
          "('c2', 'x', 'k', 'p', 9000000001, -3, 'ünïcödé ✓')"},
         {{"sbs.columns", 2}}},
        {"tstamp", kBase + ", at timestamp",
         {{"table.field.event.timestamp", "at"}, {"route.topic.replacement", "sbs.tstamp"}},
         Connector::string,
         {"INSERT INTO tstamp.outbox VALUES ('t1', 'x', 'k1', 'p', '2024-01-02 03:04:05.123456'), "
          "('t2', 'x', 'k2', 'p', '1999-12-31 23:59:59.999')"},
         {{"sbs.tstamp", 2}},
         true},
        // NULL: both fall back to their default (the timestamp rule below).
        {"tstamp_null", kBase + ", at timestamp(3)",
         {{"table.field.event.timestamp", "at"}, {"route.topic.replacement", "sbs.tstamp_null"}},
         Connector::string,
         {"INSERT INTO tstamp_null.outbox VALUES ('t1', 'x', 'k1', 'p', NULL)"},
         {{"sbs.tstamp_null", 1}}},
        {"headers", kBase + ", type text, flag boolean, qty integer, big bigint, note text",
         {{"table.fields.additional.placement",
           "type:header:eventType, flag:header, qty:header:quantity, big:header, note:header"},
          {"route.topic.replacement", "sbs.headers"}},
         Connector::string,
         {"INSERT INTO headers.outbox VALUES ('h1', 'x', 'k1', '{\"a\": 1}', 'Placed', true, 3, 9000000000, 'n'), "
          "('h2', 'x', 'k2', 'p', 'Placed', false, NULL, -1, NULL)"},
         {{"sbs.headers", 2}}},
        {"partition", kBase + ", shard integer",
         {{"table.fields.additional.placement", "shard:partition"}, {"route.topic.replacement", "sbs.partition"}},
         Connector::string,
         {"INSERT INTO partition.outbox VALUES ('p0', 'x', 'same', 'a', 0), ('p1', 'x', 'same', 'b', 1), "
          "('p2', 'x', 'same', 'c', 2), ('p3', 'x', 'same', 'NULL: the key picks', NULL)"},
         {{"sbs.partition", 4}}},
        {"tomb", kBase,
         {{"route.tombstone.on.empty.payload", "true"}, {"route.topic.replacement", "sbs.tomb"}},
         Connector::string,
         {"INSERT INTO tomb.outbox VALUES ('t1', 'x', 'k1', NULL), ('t2', 'x', 'k2', ''), "
          "('t3', 'x', 'k3', E'  \\t '), ('t4', 'x', 'k4', ' x ')"},
         {{"sbs.tomb", 4}}},
        {"envelope", "id uuid, aggregatetype text, aggregateid text, payload jsonb, type text, qty integer, "
                     "flag boolean, note text",
         {{"table.fields.additional.placement",
           "type:envelope:eventType, qty:envelope:quantity, flag:envelope, note:envelope, type:header:eventType"},
          {"route.topic.replacement", "sbs.envelope"}},
         Connector::json,
         {"INSERT INTO envelope.outbox VALUES "
          "('0b5ffd2e-55f5-4a4b-a6f0-1d3c5e0e7b59', 'x', 'k1', '{\"id\": 1, \"s\": \"a\\\"b\"}', 'Placed', 3, true, "
          "'n'), "
          "('1b5ffd2e-55f5-4a4b-a6f0-1d3c5e0e7b59', 'x', 'k2', NULL, 'Placed', NULL, NULL, NULL)"},
         {{"sbs.envelope", 2}}},
        {"expand", "id text, aggregatetype text, aggregateid text, payload jsonb",
         {{"table.expand.json.payload", "true"}, {"route.topic.replacement", "sbs.expand"}},
         Connector::json,
         {"INSERT INTO expand.outbox VALUES ('e1', 'x', 'k1', "
          "'{\"a\": 1, \"big\": 9000000000, \"f\": 1.5, \"s\": \"two\", \"t\": true, \"n\": null, \"e\": [], "
          "\"c\": {\"d\": [1, 2, 3], \"objs\": [{\"x\": 1}, {\"x\": 2}]}}'), "
          "('e2', 'x', 'k2', '{}')"},
         {{"sbs.expand", 2}}},
        // Known difference: with table.json.payload.empty.array.behavior optional_string Debezium
        // 3.6 still leaves a top-level empty array out; the router keeps it, as the option says.
        {"expand_kept", "id text, aggregatetype text, aggregateid text, payload jsonb",
         {{"table.expand.json.payload", "true"},
          {"table.json.payload.null.behavior", "optional_bytes"},
          {"table.json.payload.empty.array.behavior", "optional_string"},
          {"route.topic.replacement", "sbs.expand_kept"}},
         Connector::json,
         {"INSERT INTO expand_kept.outbox VALUES ('k1', 'x', 'k1', '{\"a\": 1, \"n\": null, \"e\": [], "
          "\"c\": {\"m\": null}}')"},
         {{"sbs.expand_kept", 1}},
         false,
         [](ConsumedRecord& r) {
             BOOST_TEST(r.value.value() == R"({"a":1,"c":{"m":null},"e":[],"n":null})");
             r.value = R"({"a":1,"c":{"m":null},"n":null})";
         }},
        {"expand_env", "id text, aggregatetype text, aggregateid text, payload jsonb, type text",
         {{"table.expand.json.payload", "true"},
          {"table.fields.additional.placement", "type:envelope:eventType"},
          {"route.topic.replacement", "sbs.expand_env"}},
         Connector::json,
         {"INSERT INTO expand_env.outbox VALUES ('e1', 'x', 'k1', '{\"nested\": {\"k\": \"v\"}, \"arr\": [\"a\"]}', "
          "'Expanded')"},
         {{"sbs.expand_env", 1}}},
        // JsonConverter for keys and values on both sides: a string payload is a JSON string
        // literal, an integer key a JSON number, a bytea payload Base64 in a JSON string, and a
        // NULL payload or key the JSON text null (so a NULL key still hashes to one partition).
        {"jsonstring", "id text, aggregatetype text, aggregateid text, payload jsonb",
         {{"route.topic.replacement", "sbs.jsonstring"}},
         Connector::json,
         {"INSERT INTO jsonstring.outbox VALUES ('j1', 'x', 'k1', '{\"id\": 1, \"s\": \"a\\\"b\"}')"},
         {{"sbs.jsonstring", 1}}},
        {"jsonkeys", "id text, aggregatetype text, aggregateid text, payload bytea, order_key integer",
         {{"table.field.event.key", "order_key"}, {"route.topic.replacement", "sbs.jsonkeys"}},
         Connector::json,
         {"INSERT INTO jsonkeys.outbox VALUES ('b1', 'x', 'k', '\\x00ff10', 7), ('b2', 'x', 'k', NULL, -3), "
          "('b3', 'x', 'k', '\\x01', NULL)"},
         {{"sbs.jsonkeys", 3}}},
        // Under StringConverter (set explicitly, as the router then writes Connect's bytes) an
        // envelope or an expanded payload is Connect's Struct.toString().
        {"envelope_string", "id text, aggregatetype text, aggregateid text, payload jsonb, type text, qty integer, "
                            "amount numeric(10, 2), ratio float8, flag boolean, note text, blob bytea",
         {{"table.fields.additional.placement",
           "type:envelope:eventType, qty:envelope, amount:envelope, ratio:envelope, flag:envelope, note:envelope, "
           "blob:envelope"},
          {"route.topic.replacement", "sbs.envelope_string"}},
         Connector::string,
         {"INSERT INTO envelope_string.outbox VALUES ('s1', 'x', 'k1', '{\"id\": 1}', 'Placed', 3, 12.50, 1.5, true, "
          "'n', '\\x0102'), ('s2', 'x', 'k2', NULL, 'Placed', NULL, NULL, NULL, NULL, NULL, NULL)"},
         {{"sbs.envelope_string", 2}}},
        {"expand_string", "id text, aggregatetype text, aggregateid text, payload jsonb, type text",
         {{"table.expand.json.payload", "true"},
          {"table.fields.additional.placement", "type:envelope:eventType"},
          {"route.topic.replacement", "sbs.expand_string"}},
         Connector::string,
         {"INSERT INTO expand_string.outbox VALUES ('x1', 'x', 'k1', "
          "'{\"a\": 1, \"b\": [1, 2], \"c\": {\"d\": \"e\", \"n\": null}, \"f\": 1.50, \"g\": true, "
          "\"big\": 9000000000, \"e\": []}', 'Ty')"},
         {{"sbs.expand_string", 1}}},
        {"missing", "id text, aggregatetype text, aggregateid text, payload jsonb, type text",
         {{"table.fields.additional.placement", "type:envelope:eventType, tenant:header, tenant:envelope"},
          {"table.field.additional.missing", "ignore"},
          {"route.topic.replacement", "sbs.missing"}},
         Connector::json,
         {"INSERT INTO missing.outbox VALUES ('m1', 'x', 'k1', '{\"id\": 1}', 'Placed')"},
         {{"sbs.missing", 1}}},
        // Column values as Debezium represents them, in its default modes: numeric as Connect's
        // Decimal (Base64 of the unscaled value) or, without a declared scale, its
        // VariableScaleDecimal; temporal types as epoch numbers and ISO-8601 text.
        {"numeric", "id text, aggregatetype text, aggregateid text, payload jsonb, amount numeric, fixed numeric(10, 2)",
         {{"table.fields.additional.placement", "amount:envelope, fixed:envelope"},
          {"route.topic.replacement", "sbs.numeric"}},
         Connector::json,
         {"INSERT INTO numeric.outbox VALUES ('n1', 'x', 'k1', '{}', 12.50, 12.50)"},
         {{"sbs.numeric", 1}}},
        {"temporal", kBase + ", at timestamptz, d date, ts timestamp",
         {{"table.fields.additional.placement", "at:header, d:header, ts:header"},
          {"route.topic.replacement", "sbs.temporal"}},
         Connector::string,
         {"INSERT INTO temporal.outbox VALUES ('tm1', 'x', 'k1', 'p', '2024-01-02 08:34:05.5+05:30', '2024-01-02', "
          "'2024-01-02 03:04:05.123456')"},
         {{"sbs.temporal", 1}}},
        // Every type whose representation depends on a mode, as headers (and under JsonConverter
        // in the envelope and the key too), in each connector's modes.
        types_case("types_string", Connector::string),
        types_case("types_json", Connector::json),
        types_case("types_string_modes", Connector::string_modes),
        types_case("types_json_modes", Connector::json_modes),
        // Known difference: Debezium on Kafka Connect without OpenTelemetry's jars ignores the
        // tracing column (with them, it writes a span of its own); the router passes the writer's
        // W3C context on as traceparent and tracestate.
        {"tracing", kBase + ", tracingspancontext varchar(256)",
         {{"route.topic.replacement", "sbs.tracing"}},
         Connector::string,
         {"INSERT INTO tracing.outbox VALUES ('tr1', 'x', 'k1', 'p', E'#Tue Nov 25 10:00:00 UTC 2026\\ntraceparent="
          "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\\ntracestate=rojo=00f067aa0ba902b7\\n')"},
         {{"sbs.tracing", 1}},
         false,
         [](ConsumedRecord& r) {
             BOOST_TEST(contains(shown(r.headers), "traceparent='00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' "
                                                   "tracestate='rojo=00f067aa0ba902b7' id='tr1'"));
             std::erase_if(r.headers, [](const auto& h) { return h.first == "traceparent" || h.first == "tracestate"; });
         }},
        // Known difference: Kafka's Struct.get gives a column's default for a NULL, so Debezium
        // writes a nullable column's parsed default where the row holds NULL; the router writes
        // the row's NULL.
        {"defaults_null", "id text, aggregatetype text, aggregateid text, payload jsonb DEFAULT '{}', "
                          "note text DEFAULT 'none', qty integer DEFAULT 7",
         {{"table.fields.additional.placement", "note:header, qty:header"},
          {"route.topic.replacement", "sbs.defaults_null"}},
         Connector::string,
         {"INSERT INTO defaults_null.outbox VALUES ('d1', 'x', 'k1', NULL, NULL, NULL)"},
         {{"sbs.defaults_null", 1}},
         false,
         [](ConsumedRecord& r) {
             BOOST_TEST(!r.value.has_value());
             BOOST_TEST(contains(shown(r.headers), "note=null qty=null"));
             r.value = "{}";
             set_header(r, "note", "none");
             set_header(r, "qty", "7");
         }},
        // JsonConverter with schemas for keys, values and headers: each column's Connect schema,
        // NOT NULL and defaults from the catalog (function defaults as Debezium's placeholders),
        // an envelope's struct schema with its name and version, Debezium's context headers.
        {"schemas_plain", "id uuid NOT NULL PRIMARY KEY DEFAULT gen_random_uuid(), aggregatetype varchar(255) NOT NULL, "
                          "aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL DEFAULT 'Created', "
                          "payload jsonb, created_at timestamptz NOT NULL DEFAULT now(), seq bigint DEFAULT 42",
         {{"table.fields.additional.placement", "type:header:eventType, created_at:header, seq:header"},
          {"route.topic.replacement", "sbs.schemas_plain"}},
         Connector::json_schemas,
         {"INSERT INTO schemas_plain.outbox VALUES ('0b5ffd2e-55f5-4a4b-a6f0-1d3c5e0e7b59', 'Order', 'o-1', 'Placed', "
          "'{\"id\": 1}', '2024-01-02 03:04:05.5+00', 7), "
          "('1b5ffd2e-55f5-4a4b-a6f0-1d3c5e0e7b59', 'Order', 'o-2', 'Placed', '{}', '2024-01-02 03:04:05+00', 8)"},
         {{"sbs.schemas_plain", 2}}},
        {"schemas_env", "id text NOT NULL, aggregatetype text NOT NULL, aggregateid bigint NOT NULL, payload jsonb, "
                        "version integer NOT NULL DEFAULT 3, type text NOT NULL, qty integer, amount numeric(8, 2), "
                        "flag boolean DEFAULT true",
         {{"table.fields.additional.placement",
           "type:envelope:eventType, qty:envelope, amount:envelope, flag:envelope, type:header"},
          {"table.field.event.schema.version", "version"},
          {"route.topic.replacement", "sbs.schemas_env"}},
         Connector::json_schemas,
         {"INSERT INTO schemas_env.outbox VALUES ('e1', 'Shipment', 11, '{\"a\": 1}', DEFAULT, 'Shipped', 2, 12.50, "
          "false), ('e2', 'Shipment', 12, NULL, DEFAULT, 'Shipped', NULL, NULL, true)"},
         {{"sbs.schemas_env", 2}}},
        types_case("types_json_schemas", Connector::json_schemas),
        // An expanded payload's inferred schema (structs named after the path, int32/int64/double
        // leaves, arrays of merged objects), headers-only and in an envelope, and a NULL payload.
        {"schemas_expand", "id text, aggregatetype text, aggregateid text, payload jsonb",
         {{"table.expand.json.payload", "true"}, {"route.topic.replacement", "sbs.schemas_expand"}},
         Connector::json_schemas,
         {"INSERT INTO schemas_expand.outbox VALUES ('x1', 'x', 'k1', '{\"a\": 1, \"big\": 9000000000, "
          "\"f\": 1.50, \"s\": \"two\", \"t\": true, \"n\": null, \"e\": [], \"c\": {\"d\": [1, 2, 3], "
          "\"objs\": [{\"x\": 1}, {\"x\": 2}]}}'), ('x2', 'x', 'k2', '{}'), ('x3', 'x', 'k3', NULL)"},
         {{"sbs.schemas_expand", 3}}},
        {"schemas_expand_env", "id text, aggregatetype text, aggregateid text, payload jsonb, type text NOT NULL",
         {{"table.expand.json.payload", "true"},
          {"table.json.payload.null.behavior", "optional_bytes"},
          {"table.fields.additional.placement", "type:envelope:eventType"},
          {"route.topic.replacement", "sbs.schemas_expand_env"}},
         Connector::json_schemas,
         {"INSERT INTO schemas_expand_env.outbox VALUES ('v1', 'Ev', 'k1', '{\"nested\": {\"k\": \"v\", "
          "\"z\": null}, \"n\": 7}', 'Expanded'), ('v2', 'Ev', 'k2', '{\"other\": 2.5}', 'Expanded')"},
         {{"sbs.schemas_expand_env", 2}}},
        // BinaryDataConverter for values: a bytea payload's raw bytes (empty included), and a
        // NULL payload no bytes.
        {"bytes_value", "id text, aggregatetype text, aggregateid text, payload bytea, type text",
         {{"table.fields.additional.placement", "type:header:eventType"}, {"route.topic.replacement", "sbs.bytes_value"}},
         Connector::bytes,
         {"INSERT INTO bytes_value.outbox VALUES ('b1', 'x', 'k1', '\\x00ff10fb', 'Stored'), "
          "('b2', 'x', 'k2', '\\x', 'Stored'), ('b3', 'x', 'k3', NULL, 'Stored')"},
         {{"sbs.bytes_value", 3}}},
        // Characters outside the Basic Multilingual Plane: Jackson escapes them as UTF-16
        // surrogate pairs in JSON keys, values, headers and expanded payloads; raw UTF-8 in
        // SimpleHeaderConverter's headers.
        {"unicode_json", "id text, aggregatetype text, aggregateid text, payload jsonb, note text",
         {{"table.fields.additional.placement", "note:header, note:envelope"},
          {"route.topic.replacement", "sbs.unicode_json"}},
         Connector::json,
         {"INSERT INTO unicode_json.outbox VALUES ('u1', 'x', 'k\U0001F600', '{\"s\": \"\U0001F600\", "
          "\"\U00010348\": \"\u00e9\u2028\"}', 'n\U0001F600\U0010FFFF')"},
         {{"sbs.unicode_json", 1}}},
        {"unicode_schemas", "id text, aggregatetype text, aggregateid text, payload jsonb, note text",
         {{"table.expand.json.payload", "true"},
          {"table.fields.additional.placement", "note:header"},
          {"route.topic.replacement", "sbs.unicode_schemas"}},
         Connector::json_schemas,
         {"INSERT INTO unicode_schemas.outbox VALUES ('u1', 'x', 'k\U0001F600', '{\"s\": \"\U0001F600\", "
          "\"\U00010348\": [\"\U0001F601\"]}', 'n\U0001F600')"},
         {{"sbs.unicode_schemas", 1}}},
        // Arrays as Debezium's JsonSchemaData sees them: nulls skipped for the schema and kept,
        // only nulls (or an empty array first) no schema, so the payload stays a string.
        {"expand_arrays", "id text, aggregatetype text, aggregateid text, payload jsonb",
         {{"table.expand.json.payload", "true"}, {"route.topic.replacement", "sbs.expand_arrays"}},
         Connector::json,
         {"INSERT INTO expand_arrays.outbox VALUES ('a1', 'x', 'k1', '{\"allnull\": [null], \"x\": 1}'), "
          "('a2', 'x', 'k2', '{\"n\": [null, 2]}'), ('a3', 'x', 'k3', '{\"nested\": [[], [1]]}'), "
          "('a4', 'x', 'k4', '{\"nested\": [[1, null], [], null], \"o\": [{\"x\": 1}, {\"x\": 2}]}'), "
          "('a5', 'x', 'k5', '{\"s\": \"\U0001F600\"}')"},
         {{"sbs.expand_arrays", 5}}},
        {"schemas_arrays", "id text, aggregatetype text, aggregateid text, payload jsonb",
         {{"table.expand.json.payload", "true"}, {"route.topic.replacement", "sbs.schemas_arrays"}},
         Connector::json_schemas,
         {"INSERT INTO schemas_arrays.outbox VALUES ('a1', 'x', 'k1', '{\"n\": [null, 2]}'), "
          "('a2', 'x', 'k2', '{\"allnull\": [null], \"x\": 1}'), "
          "('a3', 'x', 'k3', '{\"o\": [{\"x\": 1, \"y\": null}, {\"x\": 2, \"y\": \"b\"}]}'), "
          "('a4', 'x', 'k4', '{\"m\": [1, 9000000000]}'), ('a5', 'x', 'k5', '[]'), ('a6', 'x', 'k6', '[null]')"},
         {{"sbs.schemas_arrays", 6}}},
        // An UPDATE of the primary key: Debezium emits a delete and a create, and the EventRouter
        // routes the create, with the old key first as header __debezium.oldkey.
        {"pk_update", "id uuid PRIMARY KEY, aggregatetype text, aggregateid text, payload jsonb, type text",
         {{"table.fields.additional.placement", "type:header:eventType"}, {"route.topic.replacement", "sbs.pk_update"}},
         Connector::string,
         {"INSERT INTO pk_update.outbox VALUES ('4d47e190-0402-4048-bc2c-89dd54343cdc', 'x', 'k1', '{}', 'Created')",
          "UPDATE pk_update.outbox SET id = '5e58f2a1-0402-4048-bc2c-89dd54343cdc', type = 'Moved'",
          "UPDATE pk_update.outbox SET type = 'Changed'"},
         {{"sbs.pk_update", 2}}},
        {"pk_update_schemas", "id text NOT NULL PRIMARY KEY, aggregatetype text NOT NULL, aggregateid text NOT NULL, "
                              "payload jsonb",
         {{"route.topic.replacement", "sbs.pk_update_schemas"}},
         Connector::json_schemas,
         {"INSERT INTO pk_update_schemas.outbox VALUES ('a\"1', 'x', 'k1', '{}')",
          "UPDATE pk_update_schemas.outbox SET id = 'a2'"},
         {{"sbs.pk_update_schemas", 2}}},
        // Keys that are not text, and composite keys, in __debezium.oldkey under each header
        // converter: SimpleHeaderConverter (Kafka's Values text of the key struct), JSON, and
        // JSON with the key struct's schema; and in each connector's column modes.
        {"pk_bigint", "id bigint PRIMARY KEY, aggregatetype text, aggregateid text, payload jsonb",
         {{"route.topic.replacement", "sbs.pk_bigint"}},
         Connector::json,
         {"INSERT INTO pk_bigint.outbox VALUES (9000000000, 'x', 'k1', '{}')",
          "UPDATE pk_bigint.outbox SET id = -7"},
         {{"sbs.pk_bigint", 2}}},
        {"pk_composite_string", "id uuid, seq integer, at timestamptz, amount numeric(10, 2), day date, blob bytea, "
                                "aggregatetype text, aggregateid text, payload jsonb, "
                                "PRIMARY KEY (id, seq, at, amount, day, blob)",
         {{"route.topic.replacement", "sbs.pk_composite_string"}},
         Connector::string,
         {"INSERT INTO pk_composite_string.outbox VALUES ('4d47e190-0402-4048-bc2c-89dd54343cdc', 3, "
          "'2024-01-02 03:04:05.5+00', 12.50, '2024-01-02', '\\x00ff', 'x', 'k1', '{}')",
          "UPDATE pk_composite_string.outbox SET id = '5e58f2a1-0402-4048-bc2c-89dd54343cdc'"},
         {{"sbs.pk_composite_string", 2}}},
        {"pk_composite_modes", "id bigint, at timestamp, amount numeric(10, 2), blob bytea, aggregatetype text, "
                               "aggregateid text, payload jsonb, PRIMARY KEY (id, at, amount, blob)",
         {{"route.topic.replacement", "sbs.pk_composite_modes"}},
         Connector::string_modes,
         {"INSERT INTO pk_composite_modes.outbox VALUES (1, '2024-01-02 03:04:05.123456', 12.50, '\\x00ff', 'x', "
          "'k1', '{}')",
          "UPDATE pk_composite_modes.outbox SET id = 2"},
         {{"sbs.pk_composite_modes", 2}}},
        {"pk_composite_json", "id uuid, seq bigint, at timestamptz, amount numeric(10, 2), aggregatetype text, "
                              "aggregateid text, payload jsonb, PRIMARY KEY (id, seq, at, amount)",
         {{"route.topic.replacement", "sbs.pk_composite_json"}},
         Connector::json_modes,
         {"INSERT INTO pk_composite_json.outbox VALUES ('4d47e190-0402-4048-bc2c-89dd54343cdc', 9000000000, "
          "'2024-01-02 03:04:05.5+00', 12.50, 'x', 'k1', '{}')",
          "UPDATE pk_composite_json.outbox SET id = '5e58f2a1-0402-4048-bc2c-89dd54343cdc'"},
         {{"sbs.pk_composite_json", 2}}},
        {"pk_composite_schemas", "id uuid DEFAULT gen_random_uuid(), seq bigint DEFAULT 42, at timestamptz, "
                                 "amount numeric(10, 2), aggregatetype text, aggregateid text, payload jsonb, "
                                 "PRIMARY KEY (id, seq, at, amount)",
         {{"route.topic.replacement", "sbs.pk_composite_schemas"}},
         Connector::json_schemas,
         {"INSERT INTO pk_composite_schemas.outbox VALUES ('4d47e190-0402-4048-bc2c-89dd54343cdc', 9000000000, "
          "'2024-01-02 03:04:05.5+00', 12.50, 'x', 'k1', '{}')",
          "UPDATE pk_composite_schemas.outbox SET id = '5e58f2a1-0402-4048-bc2c-89dd54343cdc'"},
         {{"sbs.pk_composite_schemas", 2}}},
        // decimal.handling.mode double past a double's range: BigDecimal.doubleValue().
        {"double_range", kBase + ", n numeric",
         {{"table.fields.additional.placement", "n:header"}, {"route.topic.replacement", "sbs.double_range"}},
         Connector::string_modes,
         {"INSERT INTO double_range.outbox VALUES ('d1', 'x', 'k1', 'p', 1e400), ('d2', 'x', 'k2', 'p', -1e400), "
          "('d3', 'x', 'k3', 'p', 1e-400), ('d4', 'x', 'k4', 'p', -1e-400)"},
         {{"sbs.double_range", 4}}},
        // An UPDATE of the primary key whose row has unchanged values stored out of line (TOAST):
        // pgoutput leaves them out, and Debezium's create carries unavailable.value.placeholder,
        // as text, as its bytes (bytea in bytes mode) or null (bytea in the Base64 modes).
        {"toast", "id text PRIMARY KEY, aggregatetype text, aggregateid text, payload text, note jsonb, blob bytea",
         {{"table.fields.additional.placement", "note:header, blob:header"}, {"route.topic.replacement", "sbs.toast"}},
         Connector::string,
         {"ALTER TABLE toast.outbox ALTER COLUMN payload SET STORAGE EXTERNAL, ALTER COLUMN note SET STORAGE EXTERNAL, "
          "ALTER COLUMN blob SET STORAGE EXTERNAL",
          "INSERT INTO toast.outbox VALUES ('t1', 'x', 'k1', repeat(md5('p'), 200), "
          "jsonb_build_object('n', repeat('y', 3000)), decode(repeat('ab', 3000), 'hex'))",
          "UPDATE toast.outbox SET id = 't2' WHERE id = 't1'"},
         {{"sbs.toast", 2}}},
        {"toast_json", "id text PRIMARY KEY, aggregatetype text, aggregateid text, payload jsonb, note text, blob bytea",
         {{"table.fields.additional.placement", "note:header, blob:header, note:envelope, blob:envelope"},
          {"route.topic.replacement", "sbs.toast_json"}},
         Connector::json_modes,
         {"ALTER TABLE toast_json.outbox ALTER COLUMN payload SET STORAGE EXTERNAL, ALTER COLUMN note SET STORAGE "
          "EXTERNAL, ALTER COLUMN blob SET STORAGE EXTERNAL",
          "INSERT INTO toast_json.outbox VALUES ('t1', 'x', 'k1', jsonb_build_object('n', repeat('y', 3000)), "
          "repeat(md5('n'), 200), decode(repeat('cd', 3000), 'hex'))",
          "UPDATE toast_json.outbox SET id = 't2' WHERE id = 't1'"},
         {{"sbs.toast_json", 2}}},
        // Event timestamps at the epoch: Debezium truncates toward zero (MicroTimestamp / 1000), so
        // half a millisecond before 1970 is 0, and Connect sends -1 as no timestamp (the producer's
        // clock). Known difference: librdkafka reads 0 as "now" (RD_KAFKA_V_TIMESTAMP), so where
        // Debezium writes 0 the router's record carries the time it was produced.
        {"tstamp_epoch", kBase + ", at timestamp",
         {{"table.field.event.timestamp", "at"}, {"route.topic.replacement", "sbs.tstamp_epoch"}},
         Connector::string,
         {"INSERT INTO tstamp_epoch.outbox VALUES ('e1', 'x', 'k1', 'p', '1970-01-01 00:00:00.0015'), "
          "('e2', 'x', 'k1', 'p', '1969-12-31 23:59:59.9995'), ('e3', 'x', 'k1', 'p', '1969-12-31 23:59:59.999'), "
          "('e4', 'x', 'k1', 'p', '1970-01-01 00:00:00')"},
         {{"sbs.tstamp_epoch", 4}},
         true,
         {},
         [](const ConsumedRecord& a, const ConsumedRecord& b, std::int64_t first_start) {
             const auto id = a.header("id").value_or("");
             if (id == "e1") {
                 BOOST_TEST(a.timestamp_ms == 1);
                 BOOST_TEST(b.timestamp_ms == 1);
             } else if (id == "e3") {
                 BOOST_TEST(a.timestamp_ms >= first_start);
                 BOOST_TEST(b.timestamp_ms >= first_start);
             } else {
                 BOOST_TEST(b.timestamp_ms == 0);
                 BOOST_TEST(a.timestamp_ms >= first_start);
             }
         }},
        // route.topic.regex as Java reads it: [[:alpha:]] is a nested class of five characters,
        // && intersects, (?i) folds ASCII only (and lets \p{Upper} take lower case: xyz_kab routes
        // to sbs.rj.xyz.b), \p{Upper} and \p{Alnum} are ASCII.
        {"routing_java", kBase,
         {{"route.topic.regex", "(?<kind>[[:alpha:]]+|[a-z&&[^q]]+)_(?i)k\\p{Upper}?(\\p{Alnum}*)"},
          {"route.topic.replacement", "sbs.rj.${kind}.$2"}},
         Connector::string,
         {"INSERT INTO routing_java.outbox VALUES ('j1', 'alpha_KZ1', 'k1', 'p'), ('j2', 'xyz_kab', 'k1', 'p'), "
          "('j3', 'qqq_k1', 'k1', 'p')"},
         {{"sbs.rj.alpha.1", 1}, {"sbs.rj.xyz.b", 1}, {"qqq_k1", 1}}},
        // message.key.columns (set on the string connector for this table): the old key is read
        // from the old tuple, which holds only the primary key, so a primary-key UPDATE changes
        // the key, {"aggregateid":null} before; an UPDATE of aggregateid alone sends no old tuple
        // and is an update (dropped by both).
        {"keycols", "id text PRIMARY KEY, aggregatetype text, aggregateid text, payload text",
         {{"route.topic.replacement", "sbs.keycols"}},
         Connector::string,
         {"INSERT INTO keycols.outbox VALUES ('c1', 'x', 'k1', 'p')",
          "UPDATE keycols.outbox SET id = 'c2' WHERE id = 'c1'",
          "UPDATE keycols.outbox SET aggregateid = 'k2'"},
         {{"sbs.keycols", 2}},
         false, {}, {}, {}, "aggregateid"},
        // RegexRouter's replaceFirst replaces the first match from the start (here the shorter
        // alternative) and keeps the rest.
        {"routing_first", kBase,
         {{"route.topic.regex", "sbs\\.rf|sbs\\.rf\\.x"}, {"route.topic.replacement", "sbs.rq"}},
         Connector::string,
         {"INSERT INTO routing_first.outbox VALUES ('f1', 'sbs.rf.x', 'k1', 'p'), ('f2', 'sbs.rf', 'k1', 'p')"},
         {{"sbs.rq.x", 1}, {"sbs.rq", 1}}},
        // Known difference: Debezium's expansion gives up on an array mixing types and keeps the
        // string (a JSON string literal under JsonConverter); the router expands it.
        {"expand_mixed", "id text, aggregatetype text, aggregateid text, payload jsonb",
         {{"table.expand.json.payload", "true"}, {"route.topic.replacement", "sbs.expand_mixed"}},
         Connector::json,
         {"INSERT INTO expand_mixed.outbox VALUES ('x1', 'x', 'k1', '{\"a\": [1, \"two\"]}')"},
         {{"sbs.expand_mixed", 1}},
         false,
         [](ConsumedRecord& r) {
             BOOST_TEST(r.value.value() == R"({"a":[1,"two"]})");
             r.value = json_string(R"({"a": [1, "two"]})");
         }},
        // CloudEvents (structured, Debezium's only mode) of expanded payloads, headers-only and
        // with an envelope placement; Debezium's records also carry the source and op headers its
        // converter reads, which the router's do not (compared without them).
        {"cloud_events", kCloudEventsColumns,
         {{"table.expand.json.payload", "true"}, {"table.fields.additional.placement", "type:header:type"},
          {"route.topic.replacement", "sbs.cloud_events"}},
         Connector::cloud_events,
         {"INSERT INTO cloud_events.outbox VALUES ('59a42efd-b015-44a9-9dde-cb36d9002425', 'User', '10711fa5', "
          "'UserCreated', '{\"someField1\": \"some value 1\", \"someField2\": 7005}')",
          "INSERT INTO cloud_events.outbox VALUES ('6b42efd0-b015-44a9-9dde-cb36d9002425', 'User', 'k \"2\"', "
          "'User\"Updated', '{\"s\": \"Zoë \\\\ 😀\", \"n\": {\"a\": [1, 2], \"b\": true}, \"d\": 2.5}'), "
          "('7c42efd0-b015-44a9-9dde-cb36d9002425', 'User', 'k3', 'Ünïcode', '{}')"},
         {{"sbs.cloud_events", 3}}},
        {"cloud_events_envelope", kCloudEventsColumns,
         {{"table.expand.json.payload", "true"},
          {"table.fields.additional.placement", "type:header:type,type:envelope:eventType,aggregateid:envelope"},
          {"route.topic.replacement", "sbs.cloud_events_envelope"}},
         Connector::cloud_events,
         {"INSERT INTO cloud_events_envelope.outbox VALUES ('8d42efd0-b015-44a9-9dde-cb36d9002425', 'Order', 'o1', "
          "'OrderPlaced', '{\"lines\": [{\"sku\": \"a\", \"qty\": 2}]}')"},
         {{"sbs.cloud_events_envelope", 1}}},
        {"cloud_events_schemas", kCloudEventsColumns,
         {{"table.expand.json.payload", "true"},
          {"table.fields.additional.placement", "type:header:type,type:envelope:eventType"},
          {"route.topic.replacement", "sbs.cloud_events_schemas"}},
         Connector::cloud_events_schemas,
         {"INSERT INTO cloud_events_schemas.outbox VALUES ('9e42efd0-b015-44a9-9dde-cb36d9002425', 'Order', 'o1', "
          "'OrderPlaced', '{\"lines\": [{\"sku\": \"a\", \"qty\": 2}], \"total\": 2.5, \"paid\": true}')"},
         {{"sbs.cloud_events_schemas", 1}}},
        {"cloud_events_schemas_payload", kCloudEventsColumns,
         {{"table.expand.json.payload", "true"}, {"table.fields.additional.placement", "type:header:type"},
          {"route.topic.replacement", "sbs.cloud_events_schemas_payload"}},
         Connector::cloud_events_schemas,
         {"INSERT INTO cloud_events_schemas_payload.outbox VALUES ('ae42efd0-b015-44a9-9dde-cb36d9002425', 'User', "
          "'u1', 'UserCreated', '{\"name\": \"Zoë\", \"tags\": [\"a\", \"b\"], \"n\": {\"x\": 9000000000}}')"},
         {{"sbs.cloud_events_schemas_payload", 1}}},
    };
    for (auto& c : array_domain_cases()) list.push_back(std::move(c));
    for (auto& c : scalar_cases()) list.push_back(std::move(c));
    for (auto& c : key_column_cases()) list.push_back(std::move(c));
    return list;
    }();
    return all;
}

std::string yaml_quote(const std::string& text) {
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return quoted + "'";
}

std::string connector_name(Connector c) {
    switch (c) {
        case Connector::string: return "dbz_string";
        case Connector::json: return "dbz_json";
        case Connector::string_modes: return "dbz_string_modes";
        case Connector::json_modes: return "dbz_json_modes";
        case Connector::json_schemas: return "dbz_json_schemas";
        case Connector::bytes: return "dbz_bytes";
        case Connector::cloud_events: return "dbz_cloud_events";
        case Connector::cloud_events_schemas: return "dbz_cloud_events_schemas";
    }
    return "";
}
std::string topic_prefix(Connector c) {
    std::string prefix = connector_name(c).substr(4) + ".";
    std::replace(prefix.begin(), prefix.end(), '_', '.');
    return "dbz." + prefix;
}

// message.key.columns of a connector's cases: `<schema>.outbox:<columns>;...`.
std::string message_key_columns(Connector connector) {
    std::string list;
    for (const auto& c : cases())
        if (c.connector == connector && !c.key_columns.empty())
            list += (list.empty() ? "" : ";") + c.name + ".outbox:" + c.key_columns;
    return list;
}

// One connector per kind, each with an EventRouter per case, chosen by a predicate on the
// connector's raw topic <topic.prefix>.<schema>.<table>.
std::map<std::string, std::string> connector(Connector connector, const std::string& database) {
    const std::string name = connector_name(connector);
    auto properties = postgres_connector(name, database, name);
    for (const auto& [mode, value] : column_modes(connector)) properties[mode] = value;
    if (!context_headers(connector)) properties["extended.headers.enabled"] = "false";
    if (writes_json(connector)) {
        // Users who want JSON set it per connector, here for keys and values.
        properties["key.converter"] = "org.apache.kafka.connect.json.JsonConverter";
        properties["key.converter.schemas.enable"] = schemas(connector) ? "true" : "false";
        properties["value.converter"] = "org.apache.kafka.connect.json.JsonConverter";
        properties["value.converter.schemas.enable"] = schemas(connector) ? "true" : "false";
    }
    // The record keys of the cases that name them (their old key headers, which UPDATEs change).
    if (const auto key_columns = message_key_columns(connector); !key_columns.empty())
        properties["message.key.columns"] = key_columns;
    if (connector == Connector::bytes) {
        properties["value.converter"] = "io.debezium.converters.BinaryDataConverter";
        // Its message events are structs, which BinaryDataConverter cannot write.
        properties["message.prefix.include.list"] = "none";
    }
    if (json_headers(connector)) {
        properties["header.converter"] = "org.apache.kafka.connect.json.JsonConverter";
        properties["header.converter.schemas.enable"] = header_schemas(connector) ? "true" : "false";
    }
    if (cloud_events(connector)) {
        for (const auto& [key, value] : cloud_events_settings(connector)) properties[key] = value;
        properties["transforms.metadata.type"] = "org.apache.kafka.connect.transforms.HeaderFrom$Value";
        properties["transforms.metadata.fields"] = "source,op";
        properties["transforms.metadata.headers"] = "source,op";
        properties["transforms.metadata.operation"] = "copy";
        // Its message events have no outbox columns: Debezium's converter writes them all the same.
    }
    std::string tables, transforms, predicates;
    for (const auto& c : cases()) {
        if (c.connector != connector) continue;
        const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ",") + item; };
        add(tables, c.name + "\\.outbox");
        add(transforms, c.name);
        add(predicates, c.name);
        properties["transforms." + c.name + ".type"] = "io.debezium.transforms.outbox.EventRouter";
        properties["transforms." + c.name + ".predicate"] = c.name;
        for (const auto& [option, value] : c.options) properties["transforms." + c.name + "." + option] = value;
        properties["predicates." + c.name + ".type"] = "org.apache.kafka.connect.transforms.predicates.TopicNameMatches";
        properties["predicates." + c.name + ".pattern"] = name + "\\." + c.name + "\\.outbox";
    }
    properties["table.include.list"] = tables;
    properties["transforms"] = (cloud_events(connector) ? "metadata," : "") + transforms + ",prefix";
    properties["predicates"] = predicates;
    properties["transforms.prefix.type"] = "org.apache.kafka.connect.transforms.RegexRouter";
    properties["transforms.prefix.regex"] = "(.*)";
    properties["transforms.prefix.replacement"] = topic_prefix(connector) + "$1";
    return properties;
}

std::vector<std::map<std::string, std::string>> connectors(const std::string& database) {
    std::vector<std::map<std::string, std::string>> all;
    for (const Connector c : kConnectors) all.push_back(connector(c, database));
    return all;
}

// One router per connector: its cases' tables, their options under table.overrides, and the
// connector's converters and column modes under Kafka Connect's and Debezium's names.
std::string router_tables(Connector connector) {
    std::string tables;
    for (const auto& c : cases())
        if (c.connector == connector) tables += (tables.empty() ? "" : ", ") + c.name + ".outbox";
    return "  table.include.list: " + tables + "\n";
}

std::string router_format(Connector connector) {
    std::string format;
    for (const auto& [mode, value] : column_modes(connector)) format += mode + ": " + value + "\n";
    if (context_headers(connector))
        format += "extended.headers.enabled: true\ntopic.prefix: " + connector_name(connector) + "\n";
    if (connector == Connector::bytes) format += "value.converter: io.debezium.converters.BinaryDataConverter\n";
    else if (!writes_json(connector) && !cloud_events(connector))
        format += "value.converter: org.apache.kafka.connect.storage.StringConverter\n";
    const std::string with_schemas = schemas(connector) ? "true" : "false";
    if (writes_json(connector))
        format += "key.converter: org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable: " +
                  with_schemas + "\nvalue.converter: org.apache.kafka.connect.json.JsonConverter\n"
                  "value.converter.schemas.enable: " + with_schemas + "\n";
    if (json_headers(connector))
        format += "header.converter: org.apache.kafka.connect.json.JsonConverter\nheader.converter.schemas.enable: " +
                  std::string(header_schemas(connector) ? "true" : "false") + "\n";
    if (cloud_events(connector)) {
        format += "topic.prefix: " + connector_name(connector) + "\n";
        for (const auto& [key, value] : cloud_events_settings(connector)) format += key + ": " + yaml_quote(value) + "\n";
    }
    return format;
}

std::string router_outbox(Connector connector) {
    std::string overrides;
    for (const auto& c : cases()) {
        if (c.options.empty() || c.connector != connector) continue;
        overrides += "    " + c.name + ".outbox:\n";
        for (const auto& [option, value] : c.options) overrides += "      " + option + ": " + yaml_quote(value) + "\n";
    }
    std::string outbox = "outbox:\n";
    if (connector == Connector::string) outbox += "  message.prefix.include.list: sbs\n";
    if (const auto key_columns = message_key_columns(connector); !key_columns.empty())
        outbox += "  message.key.columns: " + yaml_quote(key_columns) + "\n";
    return outbox + "  table.overrides:\n" + overrides;
}

// The router's configuration for one connector, with a slot and publication of its own.
std::string router_yaml(Connector connector, const std::string& database) {
    std::string yaml = router_config(database, router_tables(connector), router_format(connector), router_outbox(connector));
    for (const std::string key : {"slot.name: ", "publication.name: "}) {
        const auto at = yaml.find(key + database + "\n");
        yaml.replace(at + key.size(), database.size(), "router_" + connector_name(connector));
    }
    return yaml;
}

std::int64_t epoch_ms(const Sql& sql, const std::string& expression) {
    return std::stoll(sql.scalar("SELECT floor(extract(epoch from " + expression + ") * 1000)::bigint"));
}

constexpr const char* kMessage =
    R"({"id": "msg-1", "aggregatetype": "SbsMessage", "aggregateid": "k1", "payload": {"a": 1}})";

// Both relays running, every case's statements committed, then one outbox message.
struct SideBySide {
    std::string db = postgres().create_database("sbs");
    Sql sql{postgres().conninfo(db)};
    std::unique_ptr<DebeziumConnect> debezium;
    std::vector<std::unique_ptr<RouterProcess>> routers;  // one per connector
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> written;  // case → first txn start, last commit

    SideBySide() {
        sql.exec("CREATE EXTENSION hstore; CREATE EXTENSION citext; CREATE EXTENSION ltree");
        for (const auto& c : cases())
            sql.exec("CREATE SCHEMA " + c.name + "; " + c.setup + "CREATE TABLE " + c.name + ".outbox (" + c.columns + ")");
        debezium = std::make_unique<DebeziumConnect>(DebeziumConnectSpec{
            work_dir() + "/debezium",
            {{"bootstrap.servers", kafka_servers()},
             {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
             {"value.converter", "org.apache.kafka.connect.storage.StringConverter"},
             {"header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter"}},
            connectors(db)});
        for (const Connector c : kConnectors)
            routers.push_back(std::make_unique<RouterProcess>(work_dir(), router_yaml(c, db)));
        for (const auto& router : routers) BOOST_REQUIRE_MESSAGE(router->wait_streaming(), router->output());
        debezium->wait_until_ready(
            [&] {
                return sql.scalar("SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name LIKE "
                                  "'dbz\\_%'") == std::to_string(std::size(kConnectors));
            },
            "every connector streaming from its slot");

        for (const auto& c : cases()) {
            std::int64_t first = 0;
            for (const auto& statement : c.statements) {
                sql.exec("BEGIN");
                if (first == 0) first = epoch_ms(sql, "now()");
                sql.exec(statement);
                sql.exec("COMMIT");
            }
            written[c.name] = {first, epoch_ms(sql, "clock_timestamp()")};
        }
        sql.exec("SELECT pg_logical_emit_message(true, 'sbs', '" + std::string(kMessage) + "')");
    }
};

// Debezium's topic for logical decoding messages: <topic.prefix>.message, behind the prefix.
std::string message_topic(Connector connector) { return topic_prefix(connector) + connector_name(connector) + ".message"; }

SideBySide& side_by_side() {
    static SideBySide run;
    return run;
}

std::vector<ConsumedRecord> read_all(const std::string& topic, std::size_t count) {
    auto found = read_topic(kafka_servers(), topic, count, 60s);
    BOOST_TEST(found.size() == count,
               "topic " << topic << ": " << found.size() << " records"
                        << (found.size() == count ? "" : "\n" + side_by_side().debezium->log_tail()));
    return found;
}

// A record's headers with the value of Debezium's runId context header (a random id per run, on
// both sides) replaced by its shape, once checked.
std::vector<std::pair<std::string, std::optional<std::string>>> comparable_headers(const ConsumedRecord& record) {
    auto headers = record.headers;
    for (auto& [name, value] : headers)
        if (name == "__debezium.context.runId") {
            // A UUID, as text or (JsonConverter with schemas) in a {schema, payload} envelope.
            static const std::regex uuid(R"(("?)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\1\}?$)");
            BOOST_TEST(std::regex_search(value.value_or(""), uuid), "runId " << value.value_or("null"));
            value = "<run id>";
        }
    return headers;
}

std::string id_of(const ConsumedRecord& record) { return record.header("id").value_or("<no id>"); }

}  // namespace

BOOST_DATA_TEST_CASE(debezium_and_the_router_write_the_same_records,
                     boost::unit_test::data::xrange(std::size_t{0}, cases().size()), index) {
    const Case& c = cases()[index];
    BOOST_TEST_CONTEXT("case " << c.name) {
        auto& run = side_by_side();
        const auto [first_start, last_commit] = run.written.at(c.name);
        for (const auto& [topic, count] : c.topics) {
            BOOST_TEST_CONTEXT("topic " << topic) {
                const auto ours = read_all(topic, count);
                const auto theirs = read_all(topic_prefix(c.connector) + topic, count);
                BOOST_TEST_REQUIRE(ours.size() == theirs.size());
                // Records in the order each partition holds them: partitions and order per
                // partition are the same (every case's rows have keys).
                for (std::size_t i = 0; i < ours.size(); ++i) {
                    const auto& a = ours[i];
                    const auto& b = theirs[i];
                    BOOST_TEST_CONTEXT("record " << i << " id " << id_of(a)) {
                        BOOST_TEST(id_of(a) == id_of(b));
                        BOOST_TEST(a.partition == b.partition);
                        ConsumedRecord expected = a;
                        if (c.as_debezium) c.as_debezium(expected);
                        ConsumedRecord debezium = b;
                        if (cloud_events(c.connector)) {
                            // Known difference: the headers Debezium's converter reads its source
                            // block and op from (HeaderFrom); the router needs none.
                            BOOST_TEST(contains(b.header("op").value_or(""), R"("payload":"c")"));
                            BOOST_TEST(b.header("source").has_value());
                            BOOST_TEST(contains(b.value.value_or(""), R"(,"specversion":"1.0","type":")"),
                                       shown(b.value));
                            std::erase_if(debezium.headers, [](const auto& h) {
                                return h.first == "source" || h.first == "op";
                            });
                            // Known difference: iodebeziumversion names the router, not a Debezium version.
                            static const std::regex version(R"("iodebeziumversion":"[0-9]+\.[0-9]+\.[0-9]+\.Final")");
                            const std::string theirs = debezium.value.value_or("");
                            BOOST_TEST(std::regex_search(theirs, version) == (c.connector == Connector::cloud_events),
                                       theirs);
                            if (debezium.value)
                                debezium.value = std::regex_replace(
                                    theirs, version, R"("iodebeziumversion":"outbox-router )" OUTBOX_ROUTER_VERSION "\"");
                        }
                        BOOST_TEST(shown(expected.key) == shown(debezium.key));
                        BOOST_TEST(shown(expected.value) == shown(debezium.value));
                        BOOST_TEST(shown(comparable_headers(expected)) == shown(comparable_headers(debezium)));
                        // The string connector keeps Debezium's default context headers, and so
                        // does its router (extended.headers.enabled); the JSON pair has them off.
                        BOOST_TEST(contains(shown(b.headers), "__debezium.context.connectorName=") ==
                                   context_headers(c.connector));
                        if (c.timestamps) {
                            c.timestamps(a, b, first_start);
                        } else if (c.timestamp_column) {
                            BOOST_TEST(a.timestamp_ms == b.timestamp_ms);
                        } else {
                            // Known difference: the router stamps the commit time, Debezium the
                            // time it processed the event, which is later.
                            BOOST_TEST(a.timestamp_ms >= first_start);
                            BOOST_TEST(a.timestamp_ms <= last_commit);
                            BOOST_TEST(b.timestamp_ms >= a.timestamp_ms);
                        }
                    }
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(debezium_wrote_no_topic_the_router_did_not) {
    side_by_side();
    std::set<std::string> expected;
    for (const auto& c : cases())
        for (const auto& [topic, count] : c.topics) expected.insert(topic_prefix(c.connector) + topic);
    for (const Connector c : kConnectors) expected.insert(message_topic(c));
    for (const auto& topic : list_topics(kafka_servers()))
        if (topic.rfind("dbz.", 0) == 0) BOOST_TEST(expected.count(topic) == 1u, "unexpected topic " << topic);
}

// Known difference: Debezium passes a logical decoding message through unrouted (the EventRouter
// sees no outbox row), to <topic.prefix>.message with the content as Base64 bytes; the router
// routes it as an outbox event (message.prefix.include.list).
BOOST_AUTO_TEST_CASE(a_logical_decoding_message_is_routed_by_the_router_only) {
    side_by_side();
    const auto ours = read_all("outbox.event.SbsMessage", 1);
    BOOST_TEST_REQUIRE(ours.size() == 1u);
    BOOST_TEST(shown(ours[0].key) == "'k1'");
    BOOST_TEST(shown(ours[0].value) == R"('{"a":1}')");
    BOOST_TEST(shown(comparable_headers(ours[0])) ==
               "__debezium.context.connectorLogicalName='dbz_string' __debezium.context.taskId='0' "
               "__debezium.context.connectorName='postgresql' __debezium.context.runId='<run id>' id='msg-1' ");

    const auto theirs = read_all(message_topic(Connector::json), 1);
    BOOST_TEST_REQUIRE(theirs.size() == 1u);
    BOOST_TEST(shown(theirs[0].key) == R"('{"prefix":"sbs"}')");
    const std::string content = R"("message":{"prefix":"sbs","content":")" + base64(kMessage) + R"("})";
    BOOST_TEST(contains(theirs[0].value.value_or(""), content), theirs[0].value.value_or("null"));
    BOOST_TEST(contains(theirs[0].value.value_or(""), R"("op":"m")"));
}
