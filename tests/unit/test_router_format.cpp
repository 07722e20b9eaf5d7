#define BOOST_TEST_MODULE router_format
#include <boost/test/unit_test.hpp>

#include "outbox/util/errors.hpp"
#include "router_test_support.hpp"

// key.converter, value.converter and extended.headers.enabled: the bytes Kafka Connect's
// converters and Debezium's context headers give the EventRouter's record.

using namespace outbox;
using namespace outbox::router;
using namespace outbox::router::test;

namespace {

config::RecordFormat json_format() {
    config::RecordFormat format;
    format.key = format.value = config::Converter::json;
    return format;
}

std::string shown(std::optional<std::string_view> bytes) { return bytes ? "'" + std::string(*bytes) + "'" : "null"; }

std::string shown_headers(const OutboxRecord& record) {
    std::string text;
    for (const auto& h : record.headers) text += std::string(h.name) + "=" + shown(h.value) + " ";
    return text;
}

std::vector<pgoutput::RelationColumn> bytea_columns() {
    return {{0, "id", pg_oid::kText, -1},
            {0, "aggregatetype", pg_oid::kText, -1},
            {0, "aggregateid", pg_oid::kInt4, -1},
            {0, "payload", pg_oid::kBytea, -1}};
}

std::string config_error(const std::string& top_level) {
    try {
        config::parse_config("postgres:\n  conninfo: host=db\nkafka:\n  bootstrap.servers: k:9092\n" + top_level,
                             "router.yaml");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "<no error>";
}

}  // namespace

BOOST_AUTO_TEST_CASE(json_converter_writes_text_as_json_strings_and_numbers_as_numbers) {
    TableFixture fixture(debezium_columns(), {}, json_format());
    const auto record = fixture.route({text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k\"1"),
                                       text("Created"), text("{\"id\": 1, \"s\": \"a\\\"b\"}")});
    BOOST_TEST(shown(record.key) == R"('"k\"1"')");
    BOOST_TEST(shown(record.value) == R"('"{\"id\": 1, \"s\": \"a\\\"b\"}"')");
    // NULL columns are JSON null (their schemas are optional); a tombstone stays no bytes.
    const auto empty = fixture.route({text("5d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), null(),
                                      text("Created"), null()});
    BOOST_TEST(shown(empty.key) == "'null'");
    BOOST_TEST(shown(empty.value) == "'null'");
    config::OutboxSettings tombstones;
    tombstones.route_tombstone_on_empty_payload = true;
    TableFixture tombstone(debezium_columns(), tombstones, json_format());
    BOOST_TEST(shown(tombstone.route({text("6d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k1"),
                                      text("Created"), null()})
                         .value) == "null");

    TableFixture numbers(bytea_columns(), {}, json_format());
    const auto typed = numbers.route({text("b1"), text("x"), text("-7"), text("\\x00ff10")});
    BOOST_TEST(shown(typed.key) == "'-7'");
    BOOST_TEST(shown(typed.value) == R"('"AP8Q"')");
}

BOOST_AUTO_TEST_CASE(json_converter_leaves_an_expanded_payload_as_the_json_it_is) {
    config::OutboxSettings settings;
    settings.expand_json_payload = true;
    TableFixture fixture(debezium_columns(), settings, json_format());
    const auto record = fixture.route({text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k1"),
                                       text("Created"), text("{\"a\": [1, 2]}")});
    BOOST_TEST(shown(record.value) == R"('{"a":[1,2]}')");
    BOOST_TEST(shown(record.key) == R"('"k1"')");
}

BOOST_AUTO_TEST_CASE(byte_array_converter_takes_bytea_and_refuses_anything_else_as_connect_does) {
    config::RecordFormat bytes;
    bytes.value = config::Converter::bytes;
    TableFixture fixture(bytea_columns(), {}, bytes);
    const auto record = fixture.route({text("b1"), text("x"), text("7"), text("\\x00ff10")});
    BOOST_TEST(shown(record.value) == std::string("'") + std::string("\x00\xff\x10", 3) + "'");
    BOOST_TEST(shown(record.key) == "'7'");

    TableFixture text_payload(debezium_columns(), {}, bytes);
    const auto error = invalid_row([&] {
        text_payload.route({text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k1"), text("Created"),
                            text("{}")});
    });
    BOOST_TEST(std::string(error.what()).find(
                   "column \"payload\" (outbox.table.field.event.payload), transaction committing at LSN 0/16B3748: "
                   "value.converter ByteArrayConverter writes only bytes, and the value is json") != std::string::npos,
               error.what());

    config::RecordFormat byte_keys;
    byte_keys.key = config::Converter::bytes;
    TableFixture text_key(debezium_columns(), {}, byte_keys);
    const auto key_error = invalid_row([&] {
        text_key.route({text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k1"), text("Created"),
                        text("{}")});
    });
    BOOST_TEST(std::string(key_error.what()).find("key.converter ByteArrayConverter writes only bytes") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(context_headers_come_first_in_debeziums_order) {
    config::RecordFormat format;
    format.context_headers = true;
    format.topic_prefix = "shop";
    TableFixture fixture(debezium_columns(), {}, format);
    const auto record = fixture.route({text("4d47e190-0402-4048-bc2c-89dd54343cdc"), text("Order"), text("k1"),
                                       text("Created"), text("{}")});
    BOOST_TEST(shown_headers(record) ==
               "__debezium.context.connectorLogicalName='shop' __debezium.context.taskId='0' "
               "__debezium.context.connectorName='postgresql' "
               "__debezium.context.runId='0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' "
               "id='4d47e190-0402-4048-bc2c-89dd54343cdc' ");
}

BOOST_AUTO_TEST_CASE(converter_settings_are_read_under_kafka_connects_names_and_checked) {
    const auto config = config::parse_config(
        "postgres:\n  conninfo: host=db\nkafka:\n  bootstrap.servers: k:9092\n"
        "key.converter: org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable: false\n"
        "value.converter: io.debezium.converters.BinaryDataConverter\n"
        "header.converter: org.apache.kafka.connect.storage.SimpleHeaderConverter\n"
        "extended.headers.enabled: true\ntopic.prefix: shop\n",
        "router.yaml");
    BOOST_TEST((config.format.key == config::Converter::json));
    BOOST_TEST((config.format.value == config::Converter::bytes));
    BOOST_TEST(config.format.context_headers);
    BOOST_TEST(config.format.topic_prefix == "shop");

    // JsonConverter writes schemas unless told not to; what the router cannot write with them is refused.
    BOOST_TEST(config_error("value.converter: org.apache.kafka.connect.json.JsonConverter\n"
                            "outbox:\n  table.fields.additional.placement: type:envelope\n") ==
               "router.yaml:5: value.converter: JsonConverter with schemas names an envelope's schema after "
               "topic.prefix, which is not set");
    BOOST_TEST(config_error("extended.headers.enabled: true\n") ==
               "router.yaml:5: extended.headers.enabled needs topic.prefix: it is the connectorLogicalName header");
    BOOST_TEST(config_error("header.converter: org.apache.kafka.connect.converters.ByteArrayConverter\n")
                   .find("router.yaml:5: header.converter: unsupported header converter") == 0);
    BOOST_TEST(config_error("key.converter: io.confluent.connect.avro.AvroConverter\n") ==
               "router.yaml:5: key.converter: AvroConverter needs key.converter.schema.registry.url");
    BOOST_TEST(config_error("key.converter: io.apicurio.registry.utils.converter.AvroConverter\n") ==
               "router.yaml:5: key.converter: Apicurio's AvroConverter needs key.converter.apicurio.registry.url");
    BOOST_TEST(config_error("key.converter: io.confluent.connect.protobuf.ProtobufConverter\n")
                   .find("router.yaml:5: key.converter: unsupported converter") == 0);
}
