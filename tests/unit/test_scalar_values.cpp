#define BOOST_TEST_MODULE scalar_values
#include <boost/test/unit_test.hpp>
#include <cmath>

#include "outbox/connect/bit_string.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_json.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/connect_value.hpp"
#include "outbox/connect/geometry_value.hpp"
#include "outbox/connect/hstore_value.hpp"
#include "outbox/connect/interval_value.hpp"
#include "outbox/connect/money_value.hpp"
#include "outbox/avro/avro_encoder.hpp"
#include "outbox/avro/avro_schema.hpp"
#include "outbox/config/placement_parser.hpp"
#include "router_test_support.hpp"

// money, bit and varbit, point and interval as Debezium's PostgreSQL connector writes them. The
// expected texts are what Debezium 3.6's classes (PostgresMoney, PGInterval with MicroDuration
// and Interval, PGpoint with Point) and Kafka Connect's converters give for the same input.

using namespace outbox;
using namespace outbox::connect;

namespace {

config::ValueModes modes(config::DecimalHandlingMode decimal = config::DecimalHandlingMode::precise) {
    config::ValueModes m;
    m.decimal = decimal;
    return m;
}

std::string json(ColumnType type, std::string_view text, const config::ValueModes& m = modes()) {
    std::string out;
    ConnectValueWriter(m).append_json(out, type, text);
    return out;
}

std::string with_schema(ColumnType type, std::string_view text, const config::ValueModes& m = modes()) {
    std::string out = "{\"schema\":";
    append_connect_schema(out, type, m, true, std::nullopt);
    out += ",\"payload\":" + json(type, text, m) + "}";
    return out;
}

std::string header(ColumnType type, std::string_view text, const config::ValueModes& m = modes()) {
    std::string scratch;
    return std::string(ConnectValueWriter(m).header_text(type, text, scratch));
}

std::string string_text(ColumnType type, std::string_view text, const config::ValueModes& m = modes()) {
    std::string scratch;
    return std::string(ConnectValueWriter(m).string_text(type, text, scratch));
}

std::string struct_field(ColumnType type, std::string_view text, const config::ValueModes& m = modes()) {
    std::string out;
    ConnectValueWriter(m).append_struct_field(out, type, text);
    return out;
}

// The typed value (the Avro path's model) written by JsonConverter: the same as the direct JSON.
std::string typed(ColumnType type, std::string_view text, const config::ValueModes& m = modes()) {
    std::string out;
    append_value_json(out, column_schema(type, m, true, std::nullopt), ConnectValueWriter(m).value(type, text));
    return out;
}

std::string hex(const std::string& bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (const char c : bytes) out += {kHex[static_cast<unsigned char>(c) >> 4], kHex[c & 15]};
    return out;
}

const ColumnType kMoney{ValueType::money, -1, pg_oid::kMoney};
const ColumnType kPoint{ValueType::point, -1, pg_oid::kPoint};
const ColumnType kInterval{ValueType::interval, -1, pg_oid::kInterval};

}  // namespace

BOOST_AUTO_TEST_CASE(money_text_is_read_as_debeziums_postgres_money) {
    const auto plain = [](std::string_view text) {
        const auto money = parse_money(text);
        return money ? money->plain_text() : std::string("FAIL");
    };
    BOOST_TEST(plain("$1,234.50") == "1234.50");
    BOOST_TEST(plain("-$12.50") == "-12.50");
    BOOST_TEST(plain("($12.50)") == "-12.50");
    BOOST_TEST(plain("$0.00") == "0.00");
    BOOST_TEST(plain("-$0.05") == "-0.05");
    BOOST_TEST(plain("$92,233,720,368,547,758.07") == "92233720368547758.07");
    BOOST_TEST(plain("-$92,233,720,368,547,758.08") == "-92233720368547758.08");
    BOOST_TEST(plain("$-1.00") == "-1.00");
    BOOST_TEST(plain("\xE2\x82\xAC" "1.5") == "1.5");  // a one-character symbol of any script
    BOOST_TEST(plain("12.345") == "12.345");
    // Locales that Debezium's parse cannot read: its task fails, the router's row is invalid.
    BOOST_TEST(plain("1.234,50 \xE2\x82\xAC") == "FAIL");
    BOOST_TEST(plain("$ 1.00") == "FAIL");
    BOOST_TEST(plain("") == "FAIL");
    BOOST_TEST(plain("-$-1") == "FAIL");
    BOOST_TEST(plain("\xF0\x9F\x92\xB0" "1") == "FAIL");  // half a surrogate pair is left in Java
}

BOOST_AUTO_TEST_CASE(money_is_rounded_half_up_to_the_fraction_digits) {
    const auto scaled = [](std::string_view text, int digits) { return with_scale_half_up(*parse_money(text), digits).java_text(); };
    BOOST_TEST(scaled("$1,234.50", 2) == "1234.50");
    BOOST_TEST(scaled("$1,234.50", 0) == "1235");
    BOOST_TEST(scaled("-$0.05", 1) == "-0.1");
    BOOST_TEST(scaled("-$0.05", 0) == "0");
    BOOST_TEST(scaled("12.345", 2) == "12.35");
    BOOST_TEST(scaled("$9.99", 1) == "10.0");
    BOOST_TEST(scaled("$0.004", 2) == "0.00");
    BOOST_TEST(scaled("$1.5", 3) == "1.500");
}

BOOST_AUTO_TEST_CASE(money_in_each_decimal_handling_mode) {
    BOOST_TEST(json(kMoney, "$1,234.50") == "\"AeI6\"");
    BOOST_TEST(string_text(kMoney, "-$12.50") == "-12.50");
    BOOST_TEST(with_schema(kMoney, "$1,234.50") ==
               R"({"schema":{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,)"
               R"("parameters":{"scale":"2"}},"payload":"AeI6"})");
    auto three = modes();
    three.money_fraction_digits = 3;
    BOOST_TEST(string_text(kMoney, "$1.5", three) == "1.500");
    const auto as_double = modes(config::DecimalHandlingMode::as_double);
    BOOST_TEST(json(kMoney, "$92,233,720,368,547,758.07", as_double) == "9.223372036854776E16");
    const std::string beyond = "$1" + std::string(400, '0');  // no money text, but as a double Infinity
    BOOST_TEST(json(kMoney, beyond, as_double) == "\"Infinity\"");
    BOOST_TEST(typed(kMoney, beyond, as_double) == json(kMoney, beyond, as_double));
    BOOST_TEST(with_schema(kMoney, "-$12.50", as_double) == R"({"schema":{"type":"double","optional":true},"payload":-12.5})");
    const auto as_string = modes(config::DecimalHandlingMode::as_string);
    BOOST_TEST(json(kMoney, "($12.50)", as_string) == "\"-12.50\"");
    BOOST_TEST(header(kMoney, "$0.00", as_string) == "0.00");
    for (const auto& m : {modes(), as_double, as_string})
        for (const char* text : {"$1,234.50", "-$0.05", "$0.00"}) BOOST_TEST(typed(kMoney, text, m) == json(kMoney, text, m));
    BOOST_CHECK_THROW(json(kMoney, "1.234,50 EUR"), ValueError);
}

BOOST_AUTO_TEST_CASE(bits_are_little_endian_bytes_as_a_bitset_writes_them) {
    BOOST_TEST(hex(*bits_bytes("10100101")) == "a5");
    BOOST_TEST(hex(*bits_bytes("0000000100000010")) == "0201");
    BOOST_TEST(hex(*bits_bytes("101")) == "05");
    BOOST_TEST(hex(*bits_bytes("100000000")) == "0001");
    BOOST_TEST(hex(*bits_bytes("00000000000")) == "");
    BOOST_TEST(hex(*bits_bytes("")) == "");
    BOOST_TEST(!bits_bytes("10x1"));
    BOOST_TEST((bit_boolean("1") == std::optional<bool>(true)));
    BOOST_TEST((bit_boolean("0") == std::optional<bool>(false)));
    BOOST_TEST(!bit_boolean(""));  // an empty varbit(1): Integer.valueOf fails in Debezium
}

BOOST_AUTO_TEST_CASE(bit_one_is_a_boolean_and_longer_bits_are_debeziums_bits) {
    const ColumnType bit1{ValueType::bits, 1, pg_oid::kBit};
    BOOST_TEST(json(bit1, "1") == "true");
    BOOST_TEST(string_text(bit1, "0") == "false");
    BOOST_TEST(with_schema(bit1, "1") == R"({"schema":{"type":"boolean","optional":true},"payload":true})");
    const ColumnType bit16{ValueType::bits, 16, pg_oid::kBit};
    BOOST_TEST(json(bit16, "0000000100000010") == "\"AgE=\"");
    BOOST_TEST(header(bit16, "0000000100000010") == "AgE=");
    BOOST_TEST(hex(string_text(bit16, "0000000100000010")) == "0201");
    BOOST_TEST(struct_field(bit16, "0000000100000010") == "AgE=");
    BOOST_TEST(with_schema(bit16, "0000000100000010") ==
               R"({"schema":{"type":"bytes","optional":true,"name":"io.debezium.data.Bits","version":1,)"
               R"("parameters":{"length":"16"}},"payload":"AgE="})");
    const ColumnType varbit{ValueType::bits, -1, pg_oid::kVarbit};
    BOOST_TEST(with_schema(varbit, "101") ==
               R"({"schema":{"type":"bytes","optional":true,"name":"io.debezium.data.Bits","version":1,)"
               R"("parameters":{"length":"2147483647"}},"payload":"BQ=="})");
    for (const auto& [type, text] : {std::pair{bit1, "1"}, std::pair{bit16, "0000000100000010"}, std::pair{varbit, ""}})
        BOOST_TEST(typed(type, text) == json(type, text));
    BOOST_CHECK_THROW(json(ColumnType{ValueType::bits, 1, pg_oid::kVarbit}, ""), ValueError);
}

BOOST_AUTO_TEST_CASE(points_are_debeziums_point_struct_with_its_wkb) {
    BOOST_TEST(hex(point_wkb({1.5, -2})) == "0101000000000000000000f83f00000000000000c0");
    BOOST_TEST(json(kPoint, "(1.5,-2)") == R"({"x":1.5,"y":-2.0,"wkb":"AQEAAAAAAAAAAAD4PwAAAAAAAADA","srid":null})");
    BOOST_TEST(json(kPoint, "(-0,1e+300)") == R"({"x":-0.0,"y":1.0E300,"wkb":"AQEAAAAAAAAAAAAAgJx1AIg85Dd+","srid":null})");
    BOOST_TEST(json(kPoint, "(1.0000000000000002,-3.4e-05)") ==
               R"({"x":1.0000000000000002,"y":-3.4E-5,"wkb":"AQEAAAABAAAAAADwP2ZMwRpn0wG/","srid":null})");
    BOOST_TEST(json(kPoint, "(Infinity,NaN)") == R"({"x":"Infinity","y":"NaN","wkb":"AQEAAAAAAAAAAADwfwAAAAAAAPh/","srid":null})");
    BOOST_TEST(header(kPoint, "(Infinity,NaN)") == R"({"x":Infinity,"y":NaN,"wkb":"AQEAAAAAAAAAAADwfwAAAAAAAPh/","srid":null})");
    // Struct.toString() prints the WKB byte[]'s identity; the router its Base64.
    BOOST_TEST(struct_field(kPoint, "(1.5,-2)") == "Struct{x=1.5,y=-2.0,wkb=AQEAAAAAAAAAAAD4PwAAAAAAAADA}");
    BOOST_TEST(with_schema(kPoint, "(0,0)") ==
               R"({"schema":{"type":"struct","fields":[{"type":"double","optional":false,"field":"x"},)"
               R"({"type":"double","optional":false,"field":"y"},{"type":"bytes","optional":true,"field":"wkb"},)"
               R"({"type":"int32","optional":true,"field":"srid"}],"optional":true,"name":"io.debezium.data.geometry.Point",)"
               R"x("version":1,"doc":"Geometry (POINT)"},"payload":{"x":0.0,"y":0.0,"wkb":"AQEAAAAAAAAAAAAAAAAAAAAAAAAA","srid":null}})x");
    for (const char* text : {"(1.5,-2)", "(Infinity,NaN)", "(-0,1e+300)"}) BOOST_TEST(typed(kPoint, text) == json(kPoint, text));
    BOOST_TEST(!parse_point("(1,2,3)"));
    BOOST_TEST(!parse_point("(1;2)"));
    BOOST_TEST(!parse_point("(inf,1)"));
    BOOST_CHECK_THROW(json(kPoint, "((0,0),(1,1))"), ValueError);
}

BOOST_AUTO_TEST_CASE(intervals_as_pg_interval_reads_them_in_both_modes) {
    struct Vector {
        const char* text;
        std::int64_t micros;
        const char* iso;
    };
    for (const auto& v : {Vector{"1 year 2 mons 3 days 04:05:06.78", 37091106780000, "P1Y2M3DT4H5M6.78S"},
                          Vector{"-1 days -02:00:00", -93600000000, "P0Y0M-1DT-2H0M0S"},
                          Vector{"00:00:00", 0, "P0Y0M0DT0H0M0S"},
                          Vector{"-1 years -2 mons +3 days -04:05:06.5", -36572706500000, "P-1Y-2M3DT-4H-5M-6.5S"},
                          Vector{"178000000 years", 9223372036854775807, "P178000000Y0M0DT0H0M0S"},
                          Vector{"00:00:00.000001", 1, "P0Y0M0DT0H0M0.000001S"},
                          Vector{"-00:00:00.0005", -500, "P0Y0M0DT0H0M-0.0005S"},
                          Vector{"12:34:56.123456", 45296123456, "P0Y0M0DT12H34M56.123456S"},
                          Vector{"1 day 00:00:59.999999", 86459999999, "P0Y0M1DT0H0M59.999999S"}}) {
        BOOST_TEST_CONTEXT(v.text) {
            const auto parts = IntervalParts::parse(v.text);
            BOOST_TEST_REQUIRE(parts.has_value());
            BOOST_TEST(parts->micro_duration() == v.micros);
            BOOST_TEST(parts->iso_text() == v.iso);
        }
    }
    BOOST_TEST(!IntervalParts::parse("99999999999:00:00"));  // hours past an int: Debezium fails too
    BOOST_TEST(!IntervalParts::parse("P1Y"));
    auto string_mode = modes();
    string_mode.interval = config::IntervalHandlingMode::string;
    BOOST_TEST(json(kInterval, "1 year 2 mons 3 days 04:05:06.78", string_mode) == "\"P1Y2M3DT4H5M6.78S\"");
    BOOST_TEST(with_schema(kInterval, "00:00:00", string_mode) ==
               R"({"schema":{"type":"string","optional":true,"name":"io.debezium.time.Interval","version":1},)"
               R"("payload":"P0Y0M0DT0H0M0S"})");
    BOOST_TEST(json(kInterval, "-1 days -02:00:00") == "-93600000000");
    BOOST_TEST(typed(kInterval, "-1 days -02:00:00", string_mode) == json(kInterval, "-1 days -02:00:00", string_mode));
}

namespace {

ColumnType extension(const std::string& name) {
    ColumnType type{ValueType::text, -1, 16385};
    type.name = name;
    type.schema = "public";
    return type;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hstore_pairs_come_in_java_hash_map_order) {
    BOOST_TEST(java_string_hash("Aa") == java_string_hash("BB"));
    BOOST_TEST(java_string_hash("hello") == 99162322);
    BOOST_TEST(java_string_hash("\xF0\x9F\x98\x80") == 1772899);  // U+1F600 as its surrogate pair
    const auto pairs = parse_hstore(R"("a"=>"1", "b"=>NULL, "key with space"=>"v\"q", "zz"=>"x", "aa"=>"y", "ab"=>"z", ""=>"e")");
    BOOST_TEST_REQUIRE(pairs.has_value());
    BOOST_TEST(hstore_json(java_hash_map_order(*pairs)) ==
               R"({"zz":"x","aa":"y","":"e","a":"1","ab":"z","b":null,"key with space":"v\"q"})");
    BOOST_TEST(parse_hstore("")->empty());
    BOOST_TEST(!parse_hstore(R"("a"=>1)"));
    BOOST_TEST(!parse_hstore(R"("a"=>"1","b"=>"2")"));
    BOOST_TEST(hstore_text("p\"q", "v\\") == R"("p\"q"=>"v\\")");
    // Past twelve keys the table grows to 32 buckets (java.util.HashMap's order for these keys).
    HstorePairs many;
    for (int i = 0; i < 13; ++i) many.emplace_back("k" + std::to_string(i), std::to_string(i));
    std::string keys;
    for (const auto& [key, value] : java_hash_map_order(many)) keys += key + " ";
    BOOST_TEST(keys == "k0 k1 k2 k3 k4 k5 k11 k6 k10 k7 k8 k12 k9 ");
}

BOOST_AUTO_TEST_CASE(hstore_in_json_and_map_modes_citext_and_ltree) {
    const ColumnType hstore = extension("hstore");
    const std::string text = R"("a"=>"1", "b"=>NULL)";
    BOOST_TEST(json(hstore, text) == R"("{\"a\":\"1\",\"b\":null}")");
    BOOST_TEST(string_text(hstore, text) == R"({"a":"1","b":null})");
    BOOST_TEST(with_schema(hstore, "") ==
               R"({"schema":{"type":"string","optional":true,"name":"io.debezium.data.Json","version":1},"payload":"{}"})");
    auto map = modes();
    map.hstore = config::HStoreHandlingMode::map;
    BOOST_TEST(json(hstore, text, map) == R"({"a":"1","b":null})");
    BOOST_TEST(header(hstore, text, map) == R"({"a":"1","b":null})");
    // Kafka's Values escape only quotes and backslashes.
    BOOST_TEST(header(hstore, "\"a\tb\\\"\"=>\"\x01/\"", map) == "{\"a\tb\\\"\":\"\x01/\"}");
    BOOST_TEST(string_text(hstore, text, map) == "{a=1, b=null}");
    BOOST_TEST(struct_field(hstore, text, map) == "{a=1, b=null}");
    BOOST_TEST(with_schema(hstore, text, map) ==
               R"({"schema":{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":true},)"
               R"("optional":true},"payload":{"a":"1","b":null}})");
    for (const auto& m : {modes(), map}) BOOST_TEST(typed(hstore, text, m) == json(hstore, text, m));
    BOOST_CHECK_THROW(json(hstore, "a=>1"), ValueError);
    BOOST_TEST(with_schema(extension("ltree"), "Top.Science") ==
               R"({"schema":{"type":"string","optional":true,"name":"io.debezium.data.Ltree","version":1},"payload":"Top.Science"})");
    BOOST_TEST(with_schema(extension("citext"), "MiXeD") == R"({"schema":{"type":"string","optional":true},"payload":"MiXeD"})");
}

BOOST_AUTO_TEST_CASE(a_row_with_these_types_is_routed_or_invalid_never_a_stop) {
    using namespace outbox::router;
    using namespace outbox::router::test;
    // ByteArrayConverter writes Debezium's Bits byte[] as it is.
    config::RecordFormat bytes;
    bytes.value = config::Converter::bytes;
    std::vector<pgoutput::RelationColumn> columns = {{0, "id", pg_oid::kText, -1},
                                                     {0, "aggregatetype", pg_oid::kText, -1},
                                                     {0, "aggregateid", pg_oid::kText, -1},
                                                     {0, "payload", pg_oid::kVarbit, -1},
                                                     {0, "amount", pg_oid::kMoney, -1}};
    TableFixture fixture(columns, {}, bytes);
    const auto record = fixture.route({text("b1"), text("x"), text("k"), text("0000000100000010"), text("$1.00")});
    BOOST_TEST(hex(std::string(record.value.value())) == "0201");

    // Money text Debezium cannot read is an invalid row, for errors.tolerance, naming the column.
    config::OutboxSettings settings;
    settings.additional_fields = config::parse_additional_placements("amount:header");
    TableFixture placed(columns, settings, {});
    const auto error = invalid_row([&] {
        placed.route({text("b2"), text("x"), text("k"), text("1"), text("1.234,50 EUR")});
    });
    BOOST_TEST(contains(error.what(), "column \"amount\""), error.what());
    BOOST_TEST(contains(error.what(), "is not money Debezium can read"), error.what());
}

BOOST_AUTO_TEST_CASE(the_typed_values_fit_their_schemas_for_avro) {
    // AvroConverter writes the Connect data model: each value is encoded against its column schema.
    auto map = modes();
    map.hstore = config::HStoreHandlingMode::map;
    const std::pair<ColumnType, std::string> values[] = {{kMoney, "$1,234.50"},
                                                         {kPoint, "(1.5,-2)"},
                                                         {kInterval, "1 year 2 mons"},
                                                         {ColumnType{ValueType::bits, 16, pg_oid::kBit}, "0000000100000010"},
                                                         {ColumnType{ValueType::bits, 1, pg_oid::kBit}, "1"},
                                                         {extension("hstore"), R"("a"=>"1", "b"=>NULL)"}};
    for (const auto& m : {modes(), modes(config::DecimalHandlingMode::as_double), map})
        for (const auto& [type, text] : values) {
            const Schema schema = column_schema(type, m, true, std::nullopt);
            std::string out;
            BOOST_CHECK_NO_THROW(avro::avro_schema_json(schema, {}));
            BOOST_CHECK_NO_THROW(avro::append_avro_binary(out, schema, ConnectValueWriter(m).value(type, text)));
            BOOST_TEST(!out.empty());
        }
    // The point's record: x and y doubles, wkb bytes, srid null (a union's index 0).
    std::string point;
    avro::append_avro_binary(point, column_schema(kPoint, modes(), false, std::nullopt),
                             ConnectValueWriter(modes()).value(kPoint, "(1.5,-2)"));
    BOOST_TEST(hex(point) == "000000000000f83f00000000000000c0" "022a0101000000000000000000f83f00000000000000c0" "00");
}

BOOST_AUTO_TEST_CASE(arrays_of_these_types_are_arrays_of_their_values) {
    // Debezium 3.6 has no array schema for money[], varbit[] and point[] (it leaves the column out);
    // the router writes the elements as their columns would be.
    const auto array_of = [](ColumnType element) {
        ColumnType array(ValueType::array, element.modifier, 0);
        array.element = std::make_shared<const ColumnType>(element);
        return array;
    };
    BOOST_TEST(json(array_of(kMoney), R"({"$1.50",NULL})", modes(config::DecimalHandlingMode::as_string)) ==
               R"(["1.50",null])");
    BOOST_TEST(json(array_of(kPoint), R"x({"(1.5,-2)"})x") ==
               R"([{"x":1.5,"y":-2.0,"wkb":"AQEAAAAAAAAAAAD4PwAAAAAAAADA","srid":null}])");
}
