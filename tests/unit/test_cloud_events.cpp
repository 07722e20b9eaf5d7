#define BOOST_TEST_MODULE cloud_events
#include <boost/test/unit_test.hpp>

#include "outbox/config/config.hpp"
#include "outbox/router/cloud_event.hpp"
#include "outbox/util/errors.hpp"
#include "router_test_support.hpp"

// CloudEvents: Debezium's CloudEventsConverter's structured JSON (its CloudEventsMaker and
// CloudEventsConverter, read from Debezium's sources) and the Kafka protocol binding's binary mode.

using namespace outbox;
using namespace outbox::router;
using namespace outbox::router::test;

namespace {

std::string shown(std::optional<std::string_view> bytes) { return bytes ? "'" + std::string(*bytes) + "'" : "null"; }

std::string shown_headers(const OutboxRecord& record) {
    std::string text;
    for (const auto& h : record.headers) text += std::string(h.name) + "=" + shown(h.value) + " ";
    return text;
}

const std::string kBase = "postgres:\n  conninfo: host=db\nkafka:\n  bootstrap.servers: k:9092\n";
const std::string kCloudEvents =
    "topic.prefix: shop\n"
    "value.converter: io.debezium.converters.CloudEventsConverter\n"
    "value.converter.metadata.source: header,id:header,type:header\n"
    "value.converter.extension.attributes.enable: false\n"
    "value.converter.json.schemas.enable: false\n";
const std::string kTypeHeader = "outbox:\n  table.fields.additional.placement: type:header:type\n";

std::string config_error(const std::string& top_level) {
    try {
        config::parse_config(kBase + top_level, "router.yaml");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "<no error>";
}

config::RecordFormat cloud_events_format(config::CloudEventsMode mode) {
    config::RecordFormat format = config::parse_config(kBase + kCloudEvents + kTypeHeader, "router.yaml").format;
    format.cloud_events.mode = mode;
    return format;
}

config::OutboxSettings expanded_with_type_header() {
    config::OutboxSettings settings;
    settings.expand_json_payload = true;
    settings.additional_fields = {{"type", config::Placement::header, "type"}};
    return settings;
}

}  // namespace

BOOST_AUTO_TEST_CASE(extension_names_and_times_follow_debezium) {
    BOOST_TEST(debezium_extension_name("ts_ms") == "iodebeziumtsms");
    BOOST_TEST(debezium_extension_name("txId") == "iodebeziumtxId");  // Debezium keeps the case
    BOOST_TEST(debezium_extension_name("op") == "iodebeziumop");
    BOOST_TEST(rfc3339_millis(0) == "1970-01-01T00:00:00.000Z");
    BOOST_TEST(rfc3339_millis(1'700'000'000'123) == "2023-11-14T22:13:20.123Z");
    BOOST_TEST(rfc3339_millis(951'782'400'007) == "2000-02-29T00:00:00.007Z");  // leap day
    BOOST_TEST(rfc3339_millis(-1) == "1969-12-31T23:59:59.999Z");
}

BOOST_AUTO_TEST_CASE(structured_mode_is_debeziums_envelope_in_its_field_order) {
    CloudEventAttributes event;
    event.id = "59a42efd-b015-44a9-9dde-cb36d9002425";
    event.source = "/debezium/postgresql/shop";
    event.type = "User\"Created";
    event.subject = "10711fa5";  // Debezium writes no subject
    event.time_ms = 1'700'000'000'123;
    event.extensions = {{"iodebeziumop", CloudEventExtension::Kind::string, "c"},
                        {"iodebeziumtxtotalorder", CloudEventExtension::Kind::null, ""},
                        {"iodebeziumflag", CloudEventExtension::Kind::boolean, "true"},
                        {"iodebeziumcount", CloudEventExtension::Kind::integer, "7"}};
    std::string out = "left over";
    write_structured(out, event, R"({"someField1":"some value 1","someField2":7005})");
    BOOST_TEST(out ==
               R"({"id":"59a42efd-b015-44a9-9dde-cb36d9002425","source":"/debezium/postgresql/shop",)"
               R"("specversion":"1.0","type":"User\"Created","time":"2023-11-14T22:13:20.123Z",)"
               R"("datacontenttype":"application/json","iodebeziumop":"c","iodebeziumtxtotalorder":null,)"
               R"("iodebeziumflag":true,"iodebeziumcount":7,"data":{"someField1":"some value 1","someField2":7005}})");
}

BOOST_AUTO_TEST_CASE(binary_mode_puts_attributes_in_ce_headers_per_the_kafka_binding) {
    CloudEventAttributes event;
    event.id = "e1";
    event.source = "/debezium/postgresql/shop";
    event.type = "UserCreated";
    event.subject = "10711fa5";
    event.time_ms = 0;
    event.extensions = {{"iodebeziumtxId", CloudEventExtension::Kind::string, "42"},
                        {"iodebeziumxmin", CloudEventExtension::Kind::null, ""}};
    BinaryHeaders out;
    out.headers.emplace_back("stale", "x");
    write_binary_headers(out, event);
    std::string text;
    for (const auto& [name, value] : out.headers) text += name + "=" + value + " ";
    BOOST_TEST(text ==
               "ce_specversion=1.0 ce_id=e1 ce_source=/debezium/postgresql/shop ce_type=UserCreated "
               "ce_subject=10711fa5 ce_time=1970-01-01T00:00:00.000Z ce_iodebeziumtxid=42 "
               "content-type=application/json ");
}

BOOST_AUTO_TEST_CASE(an_outbox_row_becomes_a_structured_event) {
    TableFixture fixture(debezium_columns(), expanded_with_type_header(),
                         cloud_events_format(config::CloudEventsMode::structured));
    const auto record = fixture.route({text("59a42efd-b015-44a9-9dde-cb36d9002425"), text("User"), text("10711fa5"),
                                       text("UserCreated"), text(R"({"someField1": "some value 1", "someField2": 7005})")});
    BOOST_TEST(shown(record.value) ==
               R"('{"id":"59a42efd-b015-44a9-9dde-cb36d9002425","source":"/debezium/postgresql/shop",)"
               R"("specversion":"1.0","type":"UserCreated","time":"2023-11-14T22:13:20.123Z",)"
               R"("datacontenttype":"application/json","data":{"someField1":"some value 1","someField2":7005}}')");
    BOOST_TEST(record.topic == "outbox.event.User");
    BOOST_TEST(shown_headers(record) == "id='59a42efd-b015-44a9-9dde-cb36d9002425' type='UserCreated' ");
}

BOOST_AUTO_TEST_CASE(an_outbox_row_becomes_a_binary_event) {
    TableFixture fixture(debezium_columns(), expanded_with_type_header(),
                         cloud_events_format(config::CloudEventsMode::binary));
    const auto record = fixture.route({text("59a42efd-b015-44a9-9dde-cb36d9002425"), text("User"), text("10711fa5"),
                                       text("UserCreated"), text(R"({"a": 1})")});
    BOOST_TEST(shown(record.value) == R"('{"a":1}')");
    BOOST_TEST(shown_headers(record) ==
               "id='59a42efd-b015-44a9-9dde-cb36d9002425' type='UserCreated' ce_specversion='1.0' "
               "ce_id='59a42efd-b015-44a9-9dde-cb36d9002425' ce_source='/debezium/postgresql/shop' "
               "ce_type='UserCreated' ce_subject='10711fa5' ce_time='2023-11-14T22:13:20.123Z' "
               "content-type='application/json' ");
}

// Extension attributes: Debezium's source block for the row (compared byte for byte with
// Debezium's own events in tests/parity/test_debezium_side_by_side.cpp); its version names the
// router. A replayed row has no WAL position: lsn and sequence are null.
BOOST_AUTO_TEST_CASE(extension_attributes_are_debeziums_source_block) {
    auto format = cloud_events_format(config::CloudEventsMode::structured);
    format.cloud_events.extension_attributes = true;
    format.cloud_events.database = "shop_db";
    TableFixture fixture(debezium_columns(), expanded_with_type_header(), format);
    const std::vector<pgoutput::ColumnValue> row = {text("59a42efd-b015-44a9-9dde-cb36d9002425"), text("User"),
                                                    text("10711fa5"), text("UserCreated"), text(R"({"a": 1})")};
    const std::string head = R"('{"id":"59a42efd-b015-44a9-9dde-cb36d9002425","source":"/debezium/postgresql/shop",)"
                             R"("specversion":"1.0","type":"UserCreated","time":"2023-11-14T22:13:20.123Z",)"
                             R"("datacontenttype":"application/json","iodebeziumop":"c",)"
                             R"("iodebeziumversion":"outbox-router )" OUTBOX_ROUTER_VERSION R"(",)"
                             R"("iodebeziumconnector":"postgresql","iodebeziumname":"shop","iodebeziumtsms":"1700000000123",)"
                             R"("iodebeziumsnapshot":"false","iodebeziumdb":"shop_db",)";
    const std::string tail = R"("iodebeziumxmin":null,"iodebeziumorigin":null,"iodebeziumoriginlsn":null,)"
                             R"("iodebeziumtxid":null,"iodebeziumtxtotalorder":null,)"
                             R"("iodebeziumtxdatacollectionorder":null,"data":{"a":1}}')";
    TransactionContext txn{0x16B3748, 1'700'000'000'123, 881, 1'700'000'000'123'456, 27525760, 27525552};
    BOOST_TEST(shown(fixture.route(row, txn).value) ==
               head + R"("iodebeziumsequence":"[\"27525552\",\"27525760\"]","iodebeziumtsus":"1700000000123456",)"
                      R"("iodebeziumtsns":"1700000000123456000","iodebeziumschema":"public","iodebeziumtable":"outbox",)"
                      R"("iodebeziumtxId":"881","iodebeziumlsn":"27525760",)" + tail);
    // The first transaction of a run, and a replayed row (no WAL position, milliseconds only).
    txn.previous_commit_lsn = 0;
    BOOST_TEST(contains(std::string(*fixture.route(row, txn).value), R"("iodebeziumsequence":"[null,\"27525760\"]")"));
    const TransactionContext replayed{0x16B3748, 1'700'000'000'123, 881};
    BOOST_TEST(shown(fixture.route(row, replayed).value) ==
               head + R"("iodebeziumsequence":null,"iodebeziumtsus":"1700000000123000",)"
                      R"("iodebeziumtsns":"1700000000123000000","iodebeziumschema":"public","iodebeziumtable":"outbox",)"
                      R"("iodebeziumtxId":"881","iodebeziumlsn":null,)" + tail);

    // Binary mode: the non-null ones as ce_ headers, lower-cased (iodebeziumtxId becomes ce_iodebeziumtxid).
    format.cloud_events.mode = config::CloudEventsMode::binary;
    TableFixture binary(debezium_columns(), expanded_with_type_header(), format);
    const auto headers = shown_headers(binary.route(row, txn));
    BOOST_TEST(contains(headers, "ce_iodebeziumop='c' ce_iodebeziumversion='outbox-router " OUTBOX_ROUTER_VERSION "'"),
               headers);
    BOOST_TEST(contains(headers, "ce_iodebeziumtxid='881' ce_iodebeziumlsn='27525760' content-type='application/json' "),
               headers);
    BOOST_TEST(!contains(headers, "xmin"));
}

BOOST_AUTO_TEST_CASE(a_generated_type_is_debeziums_data_change_event) {
    const auto config = config::parse_config(
        kBase +
            "topic.prefix: shop\nvalue.converter: io.debezium.converters.CloudEventsConverter\n"
            "value.converter.metadata.source: header,type:generate\n"
            "value.converter.extension.attributes.enable: false\nvalue.converter.json.schemas.enable: false\n",
        "router.yaml");
    BOOST_TEST(config.format.cloud_events.type_generated);
    config::OutboxSettings settings;
    settings.expand_json_payload = true;
    TableFixture fixture(debezium_columns(), settings, config.format);
    const auto record = fixture.route({text("e1"), text("User"), text("k"), text("T"), text(R"({"a": 1})")});
    BOOST_TEST(shown(record.value).find(R"("type":"io.debezium.connector.postgresql.DataChangeEvent")") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(only_a_structure_can_be_data_and_id_and_type_cannot_be_null) {
    config::OutboxSettings settings = expanded_with_type_header();
    TableFixture fixture(debezium_columns(), settings, cloud_events_format(config::CloudEventsMode::structured));
    const auto not_struct = invalid_row([&] {
        fixture.route({text("e1"), text("User"), text("k"), text("T"), text("[1, 2]")});
    });
    BOOST_TEST(contains(not_struct.what(), "CloudEventsConverter writes only a structure as data"), not_struct.what());
    const auto null_type = invalid_row([&] {
        fixture.route({text("e1"), text("User"), text("k"), null(), text(R"({"a": 1})")});
    });
    BOOST_TEST(contains(null_type.what(), "column \"type\" (value.converter)"), null_type.what());
    BOOST_TEST(contains(null_type.what(), "a CloudEvent's type cannot be NULL"), null_type.what());
    // A tombstone stays a tombstone, as Debezium's converter writes null for a null value.
    settings.route_tombstone_on_empty_payload = true;
    TableFixture tombstones(debezium_columns(), settings, cloud_events_format(config::CloudEventsMode::structured));
    BOOST_TEST(shown(tombstones.route({text("e1"), text("User"), text("k"), text("T"), null()}).value) == "null");
}

BOOST_AUTO_TEST_CASE(settings_are_debeziums_and_what_the_router_cannot_write_is_refused) {
    const auto config = config::parse_config(kBase + kCloudEvents + kTypeHeader +
                                                 "value.converter.cloudevents.mode: binary\n"
                                                 "value.converter.serializer.type: json\n"
                                                 "value.converter.schema.name.adjustment.mode: none\n",
                                             "router.yaml");
    BOOST_TEST(config.format.cloud_events.enabled);
    BOOST_TEST((config.format.cloud_events.mode == config::CloudEventsMode::binary));
    BOOST_TEST(!config.format.cloud_events.type_generated);
    BOOST_TEST((config.format.value == config::Converter::json));
    BOOST_TEST(!config.format.value_schemas);

    const std::string without_metadata = "topic.prefix: shop\nvalue.converter: io.debezium.converters.CloudEventsConverter\n"
                                         "value.converter.extension.attributes.enable: false\n"
                                         "value.converter.json.schemas.enable: false\n";
    BOOST_TEST(contains(config_error(without_metadata + kTypeHeader), "router.yaml:6: value.converter: CloudEventsConverter "
                                                                      "needs value.converter.metadata.source"),
               config_error(without_metadata + kTypeHeader));
    BOOST_TEST(contains(config_error(without_metadata + "value.converter.metadata.source: value\n" + kTypeHeader),
                        "the first item must be header"));
    BOOST_TEST(contains(config_error(without_metadata + "value.converter.metadata.source: header,id:generate\n" +
                                     kTypeHeader),
                        "id:generate builds the id from Debezium's source block"));
    BOOST_TEST(contains(config_error(kCloudEvents), "reads the event type from a header named type, and outbox places "
                                                    "none"));
    BOOST_TEST(contains(config_error(kCloudEvents + kTypeHeader + "value.converter.serializer.type: avro\n"),
                        "unsupported serializer \"avro\""));
    // Extension attributes (Debezium's default) name the database: postgres.conninfo must.
    const std::string with_extensions = "topic.prefix: shop\nvalue.converter: io.debezium.converters.CloudEventsConverter\n"
                                        "value.converter.metadata.source: header\n"
                                        "value.converter.json.schemas.enable: false\n" + kTypeHeader;
    BOOST_TEST(contains(config_error(with_extensions), "router.yaml:6: value.converter: CloudEventsConverter's "
                                                       "extension attributes (extension.attributes.enable, true by "
                                                       "default) name the database (iodebeziumdb): give dbname"),
               config_error(with_extensions));
    for (const std::string conninfo : {"host=db dbname=shop_db", "postgresql://db/shop_db?sslmode=verify-full"}) {
        const auto loaded = config::parse_config("postgres:\n  conninfo: \"" + conninfo +
                                                     "\"\nkafka:\n  bootstrap.servers: k:9092\n" + with_extensions,
                                                 "router.yaml");
        BOOST_TEST(loaded.format.cloud_events.extension_attributes);
        BOOST_TEST(loaded.format.cloud_events.database == "shop_db");
    }
    const auto with_schemas = config::parse_config(kBase + "topic.prefix: shop\nvalue.converter: "
                                                           "io.debezium.converters.CloudEventsConverter\n"
                                                           "value.converter.metadata.source: header\n"
                                                           "value.converter.extension.attributes.enable: false\n" +
                                                       kTypeHeader,
                                                   "router.yaml");
    BOOST_TEST(with_schemas.format.cloud_events.data_schemas);  // Debezium's default
    BOOST_TEST(with_schemas.format.value_schemas);
    const std::string no_prefix = kCloudEvents.substr(kCloudEvents.find('\n') + 1);
    BOOST_TEST(contains(config_error(no_prefix + kTypeHeader), "CloudEventsConverter needs topic.prefix"));
    BOOST_TEST(contains(config_error(kCloudEvents + kTypeHeader + "value.converter.cloudevents.mode: both\n"),
                        "expected structured or binary"));
}

BOOST_AUTO_TEST_CASE(data_schemas_are_the_values_fields_in_debeziums_data_struct) {
    BOOST_TEST(debezium_data_with_schema(
                   R"({"schema":{"type":"struct","fields":[{"type":"string","optional":true,"field":"a]\"}"}],)"
                   R"("optional":true,"name":"payload"},"payload":{"a]\"}":"x"}})")
                   .value_or("<none>") ==
               R"({"schema":{"type":"struct","fields":[{"type":"string","optional":true,"field":"a]\"}"}],)"
               R"("optional":false,"name":"io.debezium.connector.postgresql.Data"},"payload":{"a]\"}":"x"}})");
    BOOST_TEST(!debezium_data_with_schema(R"({"schema":null,"payload":"[]"})"));
    BOOST_TEST(!debezium_data_with_schema(R"({"schema":{"type":"array","items":{"type":"int32"}},"payload":[1]})"));
    BOOST_TEST(!debezium_data_with_schema(R"({"schema":{"type":"struct","fields":[)"));

    auto format = cloud_events_format(config::CloudEventsMode::structured);
    format.cloud_events.data_schemas = format.value_schemas = true;
    TableFixture fixture(debezium_columns(), expanded_with_type_header(), format);
    const auto record = fixture.route({text("e1"), text("User"), text("k"), text("T"), text(R"({"a": 1})")});
    BOOST_TEST(shown(record.value) ==
               R"('{"id":"e1","source":"/debezium/postgresql/shop","specversion":"1.0","type":"T",)"
               R"("time":"2023-11-14T22:13:20.123Z","datacontenttype":"application/json","data":{"schema":)"
               R"({"type":"struct","fields":[{"type":"int32","optional":true,"field":"a"}],"optional":false,)"
               R"("name":"io.debezium.connector.postgresql.Data"},"payload":{"a":1}}}')");
    const auto not_struct = invalid_row([&] { fixture.route({text("e2"), text("User"), text("k"), text("T"), text("[]")}); });
    BOOST_TEST(contains(not_struct.what(), "writes only a structure as data"), not_struct.what());
}
