#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace outbox::test {

// What the differential fuzzer (tests/parity/test_parity_fuzz.cpp) gives Debezium and the router
// alike, generated from a seed: a connector's converters and column modes, and outbox tables
// with their EventRouter options and rows.

// Connector-level settings: one Debezium connector and one router each.
struct FuzzConnector {
    std::string name;  // the connector, its topic.prefix, and (router_<name>) the router's slot
    std::string key_converter, value_converter, header_converter;  // Kafka Connect class names
    bool key_schemas = false, value_schemas = false, header_schemas = false;  // JsonConverter's schemas.enable
    std::string time_mode, decimal_mode, binary_mode;
    bool context_headers = false;  // extended.headers.enabled
    std::string interval_mode = "numeric", hstore_mode = "json";  // interval.handling.mode, hstore.handling.mode
    int money_fraction_digits = 2;

    std::map<std::string, std::string> connect_properties() const;  // converters, modes, headers
    std::string router_yaml() const;                                 // the same under the router's keys
    std::string describe() const;
};

// One outbox table (schema fz<seed>) with its EventRouter options and rows.
struct FuzzCase {
    int seed = 0;
    std::string schema;  // fz<seed>
    std::string setup;    // SQL run after CREATE SCHEMA, before CREATE TABLE (its domains)
    std::string columns;  // CREATE TABLE's column list
    std::vector<std::pair<std::string, std::string>> options;  // EventRouter options (topic fz.<seed>)
    std::vector<std::string> statements;  // each its own transaction
    std::size_t records = 0;  // records the router writes: one per inserted row (or key change)
    std::string topic;  // fz.<seed>
    std::string key_columns;  // message.key.columns for the table ("aggregateid", "id,aggregateid"), or none
    bool event_timestamp = false;  // table.field.event.timestamp names a timestamp column (ets)
    bool expands() const;     // table.expand.json.payload
    bool has_envelope() const;  // an envelope placement
    bool keeps_nulls() const;   // table.json.payload.null.behavior optional_bytes
    std::string describe() const;
};

FuzzConnector generate_connector(std::uint64_t seed, const std::string& name);
// `rows` INSERTs (and maybe a primary-key UPDATE, of a text, uuid, bigint or composite key, of a
// row whose payload, extension values and arrays are stored out of line and left unchanged) into
// a table whose columns, options and values fit `connector` (values Debezium cannot represent in
// its modes are left out). Besides
// scalar columns, arrays of them (NULL elements, empty, two-dimensional) and of hstore, citext,
// ltree and timetz (elements an array must quote, offsets and fractions), enums and their arrays,
// domains over them and over arrays, as headers, envelope fields and keys.
FuzzCase generate_case(int seed, const FuzzConnector& connector, int rows);

}  // namespace outbox::test
