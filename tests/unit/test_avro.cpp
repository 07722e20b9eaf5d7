#define BOOST_TEST_MODULE avro
#include <avro.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <memory>
#include <string>

#include "outbox/avro/avro_encoder.hpp"
#include "outbox/avro/avro_schema.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/connect_value.hpp"

using namespace outbox;
using namespace outbox::connect;
using avro::AvroDataOptions;
using avro::NameAdjustment;

namespace {

SchemaPtr shared(Schema schema) { return std::make_shared<Schema>(std::move(schema)); }

SchemaPtr primitive(Schema::Type type, bool optional = true) {
    Schema schema;
    schema.type = type;
    schema.optional = optional;
    return shared(std::move(schema));
}

SchemaPtr structure(std::optional<std::string> name, std::vector<Schema::Field> fields, bool optional = true) {
    Schema schema;
    schema.type = Schema::Type::structure;
    schema.name = std::move(name);
    schema.fields = std::move(fields);
    schema.optional = optional;
    return shared(std::move(schema));
}

SchemaPtr array_of(SchemaPtr items) {
    Schema schema;
    schema.type = Schema::Type::array;
    schema.items = std::move(items);
    schema.optional = true;
    return shared(std::move(schema));
}

config::ValueModes modes(config::TimePrecisionMode time = config::TimePrecisionMode::adaptive) {
    config::ValueModes m;
    m.time = time;
    return m;
}

std::string hex(const std::string& bytes) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out += {kHex[b >> 4], kHex[b & 15]};
    }
    return out;
}

std::string binary(const Schema& schema, const Value& value) {
    std::string out;
    avro::append_avro_binary(out, schema, value);
    return out;
}

// Avro C (Apache Avro's own C library) parses the schema text and reads the bytes back: its
// JSON rendering of the value, or why it could not.
std::string avro_c_reading(const std::string& schema_json, const std::string& bytes) {
    avro_schema_t schema = nullptr;
    if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &schema) != 0)
        return std::string("schema refused: ") + avro_strerror();
    std::unique_ptr<avro_obj_t, decltype(&avro_schema_decref)> schema_owner(schema, &avro_schema_decref);
    avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
    avro_value_t value;
    avro_generic_value_new(iface, &value);
    avro_reader_t reader = avro_reader_memory(bytes.data(), static_cast<int64_t>(bytes.size()));
    std::string result;
    if (avro_value_read(reader, &value) != 0) {
        result = std::string("read failed: ") + avro_strerror();
    } else {
        char* json = nullptr;
        avro_value_to_json(&value, 1, &json);
        result = json;
        std::free(json);
        char extra;
        if (avro_read(reader, &extra, 1) == 0) result += " (and bytes left over)";
    }
    avro_reader_free(reader);
    avro_value_decref(&value);
    avro_value_iface_decref(iface);
    return result;
}

// An envelope of column schemas as the router builds it, in Debezium's modes.
Schema column_envelope() {
    const auto column = [](ColumnType type, bool optional, std::optional<Value> dflt,
                           config::TimePrecisionMode time = config::TimePrecisionMode::adaptive) {
        return shared(column_schema(type, modes(time), optional, std::move(dflt)));
    };
    Schema envelope;
    envelope.type = Schema::Type::structure;
    envelope.name = "outbox.public.outbox.order.Value";
    envelope.fields = {
        {"payload", column({ValueType::json}, true, std::nullopt)},
        {"amount", column({ValueType::numeric, (8 << 16 | 2) + 4}, false, std::nullopt)},
        {"created", column({ValueType::timestamp}, true, std::nullopt)},
        {"day", column({ValueType::date}, true, std::nullopt, config::TimePrecisionMode::connect)},
        {"n", column({ValueType::integer, -1, pg_oid::kInt2}, true, Value::of_integer(Value::Kind::int16, 7))},
        {"flag", column({ValueType::boolean}, false, Value::of_boolean(true))},
    };
    return envelope;
}

}  // namespace

// Hand-derived from AvroData.fromConnectSchema and Avro for Java's Schema.toString(): optional
// as ["null", T] with default null, a default puts T first and is the field's default, logical
// types carry their properties in AvroData's order, int16 keeps connect.type.
BOOST_AUTO_TEST_CASE(column_envelope_schema_as_avro_data_makes_it) {
    const std::string expected =
        R"({"type":"record","name":"Value","namespace":"outbox.public.outbox.order","fields":[)"
        R"({"name":"payload","type":["null",{"type":"string","connect.version":1,"connect.name":"io.debezium.data.Json"}],"default":null},)"
        R"({"name":"amount","type":{"type":"bytes","scale":2,"precision":8,"connect.version":1,)"
        R"("connect.parameters":{"scale":"2","connect.decimal.precision":"8"},)"
        R"("connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}},)"
        R"({"name":"created","type":["null",{"type":"long","connect.version":1,"connect.name":"io.debezium.time.MicroTimestamp"}],"default":null},)"
        R"({"name":"day","type":["null",{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}],"default":null},)"
        R"({"name":"n","type":[{"type":"int","connect.default":7,"connect.type":"int16"},"null"],"default":7},)"
        R"({"name":"flag","type":{"type":"boolean","connect.default":true},"default":true}],)"
        R"("connect.name":"outbox.public.outbox.order.Value"})";
    BOOST_TEST(avro::avro_schema_json(column_envelope(), {}) == expected);

    // Without connect.meta.data only Avro's own properties stay.
    BOOST_TEST(avro::avro_schema_json(*column_envelope().fields[1].schema, {false}) ==
               R"({"type":"bytes","scale":2,"precision":8,"logicalType":"decimal"})");
    BOOST_TEST(avro::avro_schema_json(*column_envelope().fields[0].schema, {false}) == R"(["null","string"])");
}

BOOST_AUTO_TEST_CASE(column_values_in_avro_binary_read_back_by_avro_c) {
    const Schema envelope = column_envelope();
    const ConnectValueWriter adaptive(modes()), connect_mode(modes(config::TimePrecisionMode::connect));
    const Value value = Value::of_struct({
        adaptive.value({ValueType::json}, "{}"),
        adaptive.value({ValueType::numeric, (8 << 16 | 2) + 4}, "123.45"),
        Value::null(),
        connect_mode.value({ValueType::date}, "2022-01-08"),  // day 19000
        adaptive.value({ValueType::integer, -1, pg_oid::kInt2}, "-3"),
        adaptive.value({ValueType::boolean}, "t"),
    });
    const std::string bytes = binary(envelope, value);
    // payload: branch 1, length 2, "{}"; amount: length 2, 0x3039 (12345); created: branch 0;
    // day: branch 1, zig-zag 38000; n: branch 0 of [int, null], zig-zag 5; flag: 1.
    BOOST_TEST(hex(bytes) == "02047B7D0430390002F0A802000501");
    BOOST_TEST(avro_c_reading(avro::avro_schema_json(envelope, {}), bytes) ==
               R"({"payload": {"string": "{}"}, "amount": "09", "created": null, "day": {"int": 19000}, )"
               R"("n": {"int": -3}, "flag": true})");
    // A required field given null is refused, not written as something else.
    Value missing = value;
    missing.elements[1] = Value::null();
    BOOST_CHECK_THROW(binary(envelope, missing), avro::AvroEncodingError);
}

// An expanded payload: records named by their path (the namespace up to the last dot, written
// where it differs from the enclosing one), an unnamed struct as ConnectDefault, arrays of
// optional items.
BOOST_AUTO_TEST_CASE(expanded_payload_schema_and_value) {
    const auto unnamed = structure(std::nullopt, {{"x", primitive(Schema::Type::int32)}});
    const auto payload = structure(
        "payload", {{"a", primitive(Schema::Type::int32)},
                    {"c", structure("payload.c", {{"d", array_of(primitive(Schema::Type::int32))}})},
                    {"m", array_of(array_of(unnamed))}});
    const std::string schema_json = avro::avro_schema_json(*payload, {});
    BOOST_TEST(schema_json ==
               R"(["null",{"type":"record","name":"payload","fields":[{"name":"a","type":["null","int"],"default":null},)"
               R"({"name":"c","type":["null",{"type":"record","name":"c","namespace":"payload","fields":[)"
               R"({"name":"d","type":["null",{"type":"array","items":["null","int"]}],"default":null}],)"
               R"("connect.name":"payload.c"}],"default":null},)"
               R"({"name":"m","type":["null",{"type":"array","items":["null",{"type":"array","items":["null",)"
               R"({"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[)"
               R"({"name":"x","type":["null","int"],"default":null}]}]}]}],"default":null}],"connect.name":"payload"}])");
    const auto i32 = [](int n) { return Value::of_integer(Value::Kind::int32, n); };
    const Value value = Value::of_struct(
        {i32(1), Value::of_struct({Value::of_array({i32(1), i32(2)})}),
         Value::of_array({Value::of_array({Value::of_struct({i32(5)})})})});
    const std::string bytes = binary(*payload, value);
    BOOST_TEST(hex(bytes) == "02020202020402020204000202020202020A0000");
    BOOST_TEST(avro_c_reading(schema_json, bytes) ==
               R"({"payload": {"a": {"int": 1}, "c": {"c": {"d": {"array": [{"int": 1}, {"int": 2}]}}}, )"
               R"("m": {"array": [{"array": [{"ConnectDefault": {"x": {"int": 5}}}]}]}}})");
}

// A named record met again is written as a reference; two distinct unnamed structs are
// ConnectDefault and ConnectDefault2.
BOOST_AUTO_TEST_CASE(records_met_again_are_references) {
    const auto decimal = shared(column_schema({ValueType::numeric}, modes(), true, std::nullopt));
    const auto first = structure(std::nullopt, {{"x", primitive(Schema::Type::int64)}}, false);
    const auto second = structure(std::nullopt, {{"y", primitive(Schema::Type::string)}}, false);
    const auto envelope =
        structure("p.t.Value", {{"a", decimal}, {"b", decimal}, {"c", first}, {"d", second}, {"e", first}}, false);
    const std::string json = avro::avro_schema_json(*envelope, {});
    BOOST_TEST(json ==
               R"({"type":"record","name":"Value","namespace":"p.t","fields":[)"
               R"({"name":"a","type":["null",{"type":"record","name":"VariableScaleDecimal","namespace":"io.debezium.data",)"
               R"("fields":[{"name":"scale","type":"int"},{"name":"value","type":"bytes"}],)"
               R"("connect.doc":"Variable scaled decimal","connect.version":1,"connect.name":"io.debezium.data.VariableScaleDecimal"}],"default":null},)"
               R"({"name":"b","type":["null","io.debezium.data.VariableScaleDecimal"],"default":null},)"
               R"({"name":"c","type":{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[)"
               R"({"name":"x","type":["null","long"],"default":null}]}},)"
               R"({"name":"d","type":{"type":"record","name":"ConnectDefault2","namespace":"io.confluent.connect.avro","fields":[)"
               R"({"name":"y","type":["null","string"],"default":null}]}},)"
               R"({"name":"e","type":"io.confluent.connect.avro.ConnectDefault"}],"connect.name":"p.t.Value"})");
    const ConnectValueWriter writer(modes());
    const Value value = Value::of_struct({writer.value({ValueType::numeric}, "1.5"), Value::null(),
                                          Value::of_struct({Value::of_integer(Value::Kind::int64, -1)}),
                                          Value::of_struct({Value::of_string("é")}),
                                          Value::of_struct({Value::null()})});
    const std::string bytes = binary(*envelope, value);
    BOOST_TEST(avro_c_reading(json, bytes) ==
               R"({"a": {"VariableScaleDecimal": {"scale": 1, "value": "\u000F"}}, "b": null, )"
               R"("c": {"x": {"long": -1}}, "d": {"y": {"string": "\u00E9"}}, "e": {"x": null}})");
}

// Debezium's schema.name.adjustment.mode and field.name.adjustment.mode.
BOOST_AUTO_TEST_CASE(names_avro_refuses_are_errors_or_adjusted) {
    const auto envelope = structure("p.public.outbox.order-created.Value",
                                    {{"first-name", primitive(Schema::Type::string)}}, false);
    BOOST_CHECK_THROW(avro::avro_schema_json(*envelope, {}), avro::AvroNameError);
    AvroDataOptions adjusted;
    adjusted.schema_names = NameAdjustment::avro;
    adjusted.field_names = NameAdjustment::avro_unicode;
    BOOST_TEST(avro::avro_schema_json(*envelope, adjusted) ==
               R"({"type":"record","name":"Value","namespace":"p.public.outbox.order_created","fields":[)"
               R"({"name":"first_u002dname","type":["null","string"],"default":null}],)"
               R"("connect.name":"p.public.outbox.order_created.Value"})");
    BOOST_TEST(avro::adjusted_name("9lives", NameAdjustment::avro, "name") == "_lives");
    BOOST_TEST(avro::adjusted_name("é", NameAdjustment::avro_unicode, "name") == "_u00e9");
}

BOOST_AUTO_TEST_CASE(confluent_wire_format_header) {
    std::string out;
    avro::append_confluent_header(out, 0x01020304);
    BOOST_TEST(hex(out) == "0001020304");
    out.clear();
    avro::append_confluent_header(out, 7);
    BOOST_TEST(hex(out) == "0000000007");
}

// Every column kind in every time mode: the Avro bytes of the typed value read back by Avro C.
BOOST_AUTO_TEST_CASE(every_column_kind_reads_back) {
    const std::vector<std::pair<ColumnType, std::string>> cases = {
        {{ValueType::text}, "héllo"},
        {{ValueType::integer, -1, pg_oid::kInt8}, "-9223372036854775808"},
        {{ValueType::float32}, "3.5"},
        {{ValueType::float64}, "-0.25"},
        {{ValueType::numeric, (5 << 16 | 2) + 4}, "-1.00"},
        {{ValueType::bytea}, "\\x00ff"},
        {{ValueType::timestamptz}, "2024-01-02 03:04:05.5+00"},
        {{ValueType::timestamp}, "2024-01-02 03:04:05.5"},
        {{ValueType::time}, "12:00:00"},
        {{ValueType::interval}, "1 day"},
    };
    int read = 0;
    for (const auto time : {config::TimePrecisionMode::adaptive, config::TimePrecisionMode::connect}) {
        const ConnectValueWriter writer(modes(time));
        for (const auto& [type, text] : cases) {
            const Schema schema = column_schema(type, modes(time), false, std::nullopt);
            const std::string reading =
                avro_c_reading(avro::avro_schema_json(schema, {}), binary(schema, writer.value(type, text)));
            BOOST_TEST(reading.find("failed") == std::string::npos, text << ": " << reading);
            BOOST_TEST(reading.find("refused") == std::string::npos, text << ": " << reading);
            ++read;
        }
    }
    BOOST_TEST(read == 20);
    // Spot checks of the decoded values.
    const ConnectValueWriter writer(modes());
    const Schema int64 = column_schema({ValueType::integer, -1, pg_oid::kInt8}, modes(), false, std::nullopt);
    BOOST_TEST(avro_c_reading(avro::avro_schema_json(int64, {}),
                              binary(int64, writer.value({ValueType::integer, -1, pg_oid::kInt8}, "-9223372036854775808"))) ==
               "-9223372036854775808");
    const Schema real = column_schema({ValueType::float32}, modes(), false, std::nullopt);
    BOOST_TEST(avro_c_reading(avro::avro_schema_json(real, {}), binary(real, writer.value({ValueType::float32}, "3.5"))) ==
               "3.5");
}
