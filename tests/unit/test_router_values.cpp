#define BOOST_TEST_MODULE router_values
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <stdexcept>

#include "outbox/router/column_catalog.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_json.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/connect_value.hpp"
#include "outbox/connect/decimal_number.hpp"
#include "outbox/connect/expanded_schema.hpp"
#include "outbox/connect/java_text.hpp"
#include "outbox/connect/json_expansion.hpp"
#include "outbox/connect/json_nesting.hpp"
#include "outbox/config/placement_parser.hpp"
#include "outbox/connect/timestamp_text.hpp"
#include "outbox/router/trace_context.hpp"

namespace outbox::connect {
std::ostream& operator<<(std::ostream& out, ValueType type) { return out << value_type_name(type); }
}  // namespace outbox::connect

using namespace outbox;
using namespace outbox::router;
using outbox::config::parse_additional_placements;

namespace {

// Modes by their Debezium names' first letters: "adaptive", "connect", ...
config::ValueModes modes(config::TimePrecisionMode time = config::TimePrecisionMode::adaptive,
                         config::DecimalHandlingMode decimal = config::DecimalHandlingMode::precise,
                         config::BinaryHandlingMode binary = config::BinaryHandlingMode::bytes) {
    return {time, decimal, binary};
}

std::string json_value(ColumnType type, std::string_view text, config::ValueModes m = modes()) {
    std::string out;
    ConnectValueWriter(m).append_json(out, type, text);
    return out;
}
std::string json_value(ValueType type, std::string_view text) { return json_value(ColumnType{type}, text); }

std::string header(ColumnType type, std::string_view text, config::ValueModes m = modes()) {
    std::string scratch;
    return std::string(ConnectValueWriter(m).header_text(type, text, scratch));
}

std::string string_text(ColumnType type, std::string_view text, config::ValueModes m = modes()) {
    std::string scratch;
    return std::string(ConnectValueWriter(m).string_text(type, text, scratch));
}

std::string value_error(ColumnType type, std::string_view text, config::ValueModes m = modes()) {
    try {
        json_value(type, text, m);
    } catch (const ValueError& e) {
        return e.what();
    }
    return "no error";
}

std::string hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (const char c : bytes) out += {digits[static_cast<unsigned char>(c) >> 4], digits[c & 15]};
    return out;
}

constexpr std::int32_t numeric_modifier(int precision, int scale) { return (precision << 16 | scale) + 4; }

std::string base64(std::string_view bytes) {
    std::string out;
    append_base64(out, bytes);
    return out;
}

std::string expand(std::string_view text, JsonExpansion options = {}) {
    std::string out;
    const auto why = options.expand(text, out);
    BOOST_REQUIRE_MESSAGE(!why, why.value_or(""));
    return out;
}

std::string placement_error(std::string_view list) {
    try {
        parse_additional_placements(list);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

BOOST_AUTO_TEST_CASE(type_oids_map_to_value_types) {
    BOOST_TEST(value_type(pg_oid::kBool) == ValueType::boolean);
    BOOST_TEST(value_type(pg_oid::kInt2) == ValueType::integer);
    BOOST_TEST(value_type(pg_oid::kInt4) == ValueType::integer);
    BOOST_TEST(value_type(pg_oid::kInt8) == ValueType::integer);
    BOOST_TEST(value_type(pg_oid::kNumeric) == ValueType::numeric);
    BOOST_TEST(value_type(pg_oid::kFloat4) == ValueType::float32);
    BOOST_TEST(value_type(pg_oid::kFloat8) == ValueType::float64);
    BOOST_TEST(value_type(pg_oid::kDate) == ValueType::date);
    BOOST_TEST(value_type(pg_oid::kTime) == ValueType::time);
    BOOST_TEST(value_type(pg_oid::kTimetz) == ValueType::timetz);
    BOOST_TEST(value_type(pg_oid::kInterval) == ValueType::interval);
    BOOST_TEST(value_type(pg_oid::kJson) == ValueType::json);
    BOOST_TEST(value_type(pg_oid::kJsonb) == ValueType::json);
    BOOST_TEST(value_type(pg_oid::kBytea) == ValueType::bytea);
    BOOST_TEST(value_type(pg_oid::kTimestamp) == ValueType::timestamp);
    BOOST_TEST(value_type(pg_oid::kTimestamptz) == ValueType::timestamptz);
    BOOST_TEST(value_type(pg_oid::kUuid) == ValueType::text);
    BOOST_TEST(value_type(pg_oid::kVarchar) == ValueType::text);
}

BOOST_AUTO_TEST_CASE(bytea_in_hex_and_escape_output_formats) {
    std::string out;
    BOOST_TEST(decode_bytea("\\x", out));
    BOOST_TEST(out.empty());
    BOOST_TEST(decode_bytea("\\x00Ff10", out));
    BOOST_TEST(out == std::string("\x00\xff\x10", 3));
    BOOST_TEST(decode_bytea("ab\\\\c\\001\\377", out));
    BOOST_TEST(out == std::string("ab\\c\x01\xff", 6));
    BOOST_TEST(!decode_bytea("\\x0", out));
    BOOST_TEST(!decode_bytea("\\xzz", out));
    BOOST_TEST(!decode_bytea("a\\9", out));
    BOOST_TEST(!decode_bytea("trailing\\", out));
}

BOOST_AUTO_TEST_CASE(base64_with_padding) {
    BOOST_TEST(base64("") == "");
    BOOST_TEST(base64("f") == "Zg==");
    BOOST_TEST(base64("fo") == "Zm8=");
    BOOST_TEST(base64("foo") == "Zm9v");
    BOOST_TEST(base64(std::string("\xff\xfe\xfd\x00", 4)) == "//79AA==");
}

BOOST_AUTO_TEST_CASE(json_strings_escape_quotes_backslashes_and_controls_only) {
    std::string out;
    append_json_string(out, "a\"b\\c\n\t\x01é");
    BOOST_TEST(out == "\"a\\\"b\\\\c\\n\\t\\u0001é\"");
    out.clear();
    append_json_string(out, "\x1f");
    BOOST_TEST(out == "\"\\u001F\"");  // upper-case hex, as Jackson writes it
}

// Jackson writes a character outside the Basic Multilingual Plane as its UTF-16 surrogate pair,
// escaped: U+1F600 (F0 9F 98 80) is \uD83D\uDE00. Other UTF-8, and malformed bytes, pass through.
BOOST_AUTO_TEST_CASE(json_strings_escape_characters_outside_the_bmp_as_surrogate_pairs) {
    std::string out;
    append_json_string(out, "a\xF0\x9F\x98\x80" "b\xF4\x8F\xBF\xBF\xF0\x90\x80\x80");
    BOOST_TEST(out == "\"a\\uD83D\\uDE00b\\uDBFF\\uDFFF\\uD800\\uDC00\"");
    out.clear();
    append_json_string(out, "\xE2\x80\xA8\xC3\xA9\xF0\x9F\x98");  // U+2028, é, a truncated sequence
    BOOST_TEST(out == "\"\xE2\x80\xA8\xC3\xA9\xF0\x9F\x98\"");
    BOOST_TEST(json_value(ValueType::text, "\xF0\x9F\x98\x80") == "\"\\uD83D\\uDE00\"");
}

BOOST_AUTO_TEST_CASE(kafka_bytes_and_header_text_by_type) {
    std::string scratch;
    BOOST_TEST(kafka_bytes(ValueType::boolean, "t", scratch).value() == "true");
    BOOST_TEST(kafka_bytes(ValueType::boolean, "f", scratch).value() == "false");
    BOOST_TEST(kafka_bytes(ValueType::bytea, "\\x6869", scratch).value() == "hi");
    BOOST_TEST(!kafka_bytes(ValueType::bytea, "\\x6", scratch).has_value());
    BOOST_TEST(kafka_bytes(ValueType::json, R"({"a": 1})", scratch).value() == R"({"a": 1})");
    BOOST_TEST(header({ValueType::bytea}, "\\x6869") == "aGk=");
    BOOST_TEST(header({ValueType::boolean}, "t") == "true");
    BOOST_TEST(header({ValueType::numeric, numeric_modifier(5, 2)}, "1.50") == "1.50");
    BOOST_TEST(header({ValueType::text}, "as is") == "as is");
    BOOST_TEST(value_error({ValueType::bytea}, "\\xq") == "the bytea text cannot be decoded");
}

BOOST_AUTO_TEST_CASE(typed_json_values) {
    BOOST_TEST(json_value(ValueType::integer, "-42") == "-42");
    BOOST_TEST(json_value(ValueType::float64, "1e+30") == "1.0E30");
    BOOST_TEST(json_value(ValueType::float64, "NaN") == "\"NaN\"");
    BOOST_TEST(json_value(ValueType::float64, "-Infinity") == "\"-Infinity\"");
    BOOST_TEST(json_value(ValueType::boolean, "t") == "true");
    BOOST_TEST(json_value(ValueType::bytea, "\\x00") == "\"AA==\"");
    BOOST_TEST(json_value(ValueType::json, R"({"a": 1})") == R"("{\"a\": 1}")");
    BOOST_TEST(json_value(ValueType::text, "plain") == "\"plain\"");
}

// Values and expectations from Debezium 3.6 on Kafka Connect 4.3 (the side-by-side parity test
// compares them on a live connector too).
BOOST_AUTO_TEST_CASE(temporal_columns_as_debezium_represents_them) {
    using config::TimePrecisionMode;
    const ColumnType tz{ValueType::timestamptz}, tz3{ValueType::timestamptz, 3}, tz0{ValueType::timestamptz, 0};
    BOOST_TEST(header(tz, "2024-01-02 08:34:05.5+05:30") == "2024-01-02T03:04:05.500000Z");
    BOOST_TEST(header(tz3, "2024-01-02 08:34:05.5+05:30") == "2024-01-02T03:04:05.500Z");
    BOOST_TEST(header(tz0, "2024-01-02 08:34:05+05:30") == "2024-01-02T03:04:05Z");
    BOOST_TEST(header(tz, "1969-12-31 23:59:59.999999+00") == "1969-12-31T23:59:59.999999Z");
    BOOST_TEST(header(tz3, "infinity") == "infinity");
    BOOST_TEST(header(tz, "0044-03-15 12:00:00+00 BC") == "-0043-03-15T12:00:00.000000Z");
    BOOST_TEST(json_value(tz, "2024-01-02 03:04:05+00", modes(TimePrecisionMode::connect)) ==
               "\"2024-01-02T03:04:05.000000Z\"");

    const ColumnType ts{ValueType::timestamp}, ts3{ValueType::timestamp, 3}, ts0{ValueType::timestamp, 0};
    BOOST_TEST(header(ts, "2024-01-02 03:04:05.123456") == "1704164645123456");
    BOOST_TEST(header(ts3, "2024-01-02 03:04:05.12") == "1704164645120");
    BOOST_TEST(header(ts0, "0044-03-15 00:00:00 BC") == "-63517824000000");
    BOOST_TEST(header(ts, "1899-01-02 03:04:05.000001") == "-2240427354999999");
    BOOST_TEST(header(ts3, "infinity") == "9223372036825200");
    BOOST_TEST(json_value(ts, "-infinity") == "-9223372036832400000");
    BOOST_TEST(header(ts, "2024-01-02 03:04:05.123456", modes(TimePrecisionMode::connect)) ==
               "2024-01-02T03:04:05.123Z");
    BOOST_TEST(header(ts0, "2024-01-02 00:00:00", modes(TimePrecisionMode::connect)) == "2024-01-02");
    BOOST_TEST(string_text(ts, "2024-01-02 03:04:05.5", modes(TimePrecisionMode::connect)) ==
               "Tue Jan 02 03:04:05 UTC 2024");
    BOOST_TEST(json_value(ts, "2024-01-02 03:04:05.5", modes(TimePrecisionMode::connect)) == "1704164645500");
    BOOST_TEST(json_value(ts, "2024-01-02 03:04:05.5", modes(TimePrecisionMode::isostring)) ==
               "\"2024-01-02T03:04:05.5Z\"");
    BOOST_TEST(header(ts, "2024-01-02 00:00:00", modes(TimePrecisionMode::isostring)) == "2024-01-02T00:00:00Z");

    const ColumnType d{ValueType::date};
    BOOST_TEST(header(d, "2024-01-02") == "19724");
    BOOST_TEST(header(d, "1960-01-01") == "-3653");
    BOOST_TEST(header(d, "infinity") == "-2147472692");
    BOOST_TEST(header(d, "2024-01-02", modes(TimePrecisionMode::connect)) == "2024-01-02");
    BOOST_TEST(header(d, "1960-01-01", modes(TimePrecisionMode::connect)) == "00:00:00.000Z");
    BOOST_TEST(string_text(d, "1960-01-01", modes(TimePrecisionMode::connect)) == "Fri Jan 01 00:00:00 UTC 1960");
    BOOST_TEST(json_value(d, "2024-01-02", modes(TimePrecisionMode::connect)) == "19724");
    BOOST_TEST(header(d, "2024-01-02", modes(TimePrecisionMode::isostring)) == "2024-01-02Z");

    const ColumnType t{ValueType::time}, t3{ValueType::time, 3};
    BOOST_TEST(header(t, "03:04:05.25") == "11045250000");
    BOOST_TEST(header(t3, "03:04:05.25") == "11045250");
    BOOST_TEST(header(t, "24:00:00") == "86400000000");
    BOOST_TEST(header(t3, "03:04:05.25", modes(TimePrecisionMode::adaptive_time_microseconds)) == "11045250000");
    BOOST_TEST(header(t, "03:04:05.25", modes(TimePrecisionMode::connect)) == "03:04:05.250Z");
    BOOST_TEST(string_text(t, "24:00:00", modes(TimePrecisionMode::connect)) == "Fri Jan 02 00:00:00 UTC 1970");
    BOOST_TEST(header(t, "03:04:05.5", modes(TimePrecisionMode::isostring)) == "03:04:05.5Z");
    BOOST_TEST(header(t, "24:00:00", modes(TimePrecisionMode::isostring)) == "00:00:00Z");

    const ColumnType ttz{ValueType::timetz};
    BOOST_TEST(header(ttz, "03:04:05.25+02") == "01:04:05.25Z");
    BOOST_TEST(header(ttz, "00:00:00-03:30") == "03:30:00Z");

    const ColumnType iv{ValueType::interval};
    BOOST_TEST(header(iv, "1 day 02:00:00") == "93600000000");
    BOOST_TEST(header(iv, "-1 mons") == "-2629800000000");
    BOOST_TEST(header(iv, "1 year 2 mons 3 days 04:05:06.78") == "37091106780000");
    BOOST_TEST(header(iv, "-1 days -02:00:00") == "-93600000000");
    BOOST_TEST(header(iv, "00:00:00") == "0");

    BOOST_TEST(value_error(ts, "yesterday") ==
               "\"yesterday\" is not timestamp text as PostgreSQL writes it (DateStyle ISO, IntervalStyle postgres)");
    BOOST_TEST(value_error(iv, "3 fortnights") != "no error");
    BOOST_TEST(value_error(ttz, "03:04:05") != "no error");
}

BOOST_AUTO_TEST_CASE(numeric_columns_in_each_decimal_handling_mode) {
    using config::DecimalHandlingMode;
    const ColumnType variable{ValueType::numeric}, fixed{ValueType::numeric, numeric_modifier(10, 2)};
    BOOST_TEST(json_value(variable, "12.50") == R"({"scale":1,"value":"fQ=="})");
    BOOST_TEST(header(variable, "12.50") == R"({"scale":1,"value":"fQ=="})");
    BOOST_TEST(header(variable, "-0.01") == R"({"scale":2,"value":"/w=="})");
    BOOST_TEST(json_value(variable, "1000.000") == R"({"scale":0,"value":"A+g="})");
    BOOST_TEST(json_value(fixed, "12.50") == "\"BOI=\"");
    BOOST_TEST(json_value(fixed, "0.00") == "\"AA==\"");
    BOOST_TEST(header(fixed, "12.50") == "12.50");
    BOOST_TEST(string_text(fixed, "-0.01") == "-0.01");
    BOOST_TEST(header({ValueType::numeric, numeric_modifier(10, 8)}, "0.00000001") == "1E-8");
    BOOST_TEST(value_error(variable, "NaN") ==
               "NaN cannot be a decimal (decimal.handling.mode precise, as in Debezium); decimal.handling.mode "
               "string or double can write it");

    const auto as_double = modes(config::TimePrecisionMode::adaptive, DecimalHandlingMode::as_double);
    BOOST_TEST(header(fixed, "12.50", as_double) == "12.5");
    BOOST_TEST(header({ValueType::numeric, numeric_modifier(5, 0)}, "12345", as_double) == "12345.0");
    BOOST_TEST(json_value(variable, "NaN", as_double) == "\"NaN\"");
    BOOST_TEST(json_value(variable, "0.0001", as_double) == "1.0E-4");
    // Past a double's range, BigDecimal.doubleValue(): the infinities, and zero with its sign.
    BOOST_TEST(json_value(variable, "1" + std::string(400, '0'), as_double) == "\"Infinity\"");
    BOOST_TEST(header(variable, "-1" + std::string(309, '0') + ".5", as_double) == "-Infinity");
    BOOST_TEST(json_value(variable, "0." + std::string(400, '0') + "1", as_double) == "0.0");
    BOOST_TEST(string_text(variable, "-0." + std::string(400, '0') + "1", as_double) == "-0.0");
    BOOST_TEST(json_value(variable, "0." + std::string(315, '0') + "1", as_double) == "1.0E-316");  // subnormal

    const auto as_string = modes(config::TimePrecisionMode::adaptive, DecimalHandlingMode::as_string);
    BOOST_TEST(json_value(fixed, "12.50", as_string) == "\"12.50\"");
    BOOST_TEST(header(variable, "Infinity", as_string) == "POSITIVE_INFINITY");
    BOOST_TEST(header(variable, "NaN", as_string) == "NAN");
    BOOST_TEST(json_value(variable, "-Infinity", as_string) == "\"NEGATIVE_INFINITY\"");
}

BOOST_AUTO_TEST_CASE(decimal_numbers_as_java_writes_them) {
    const auto unscaled = [](std::string_view text) { return hex(DecimalNumber::parse(text)->unscaled_bytes()); };
    BOOST_TEST(unscaled("12.5") == "7d");
    BOOST_TEST(unscaled("12.50") == "04e2");
    BOOST_TEST(unscaled("128") == "0080");
    BOOST_TEST(unscaled("0") == "00");
    BOOST_TEST(unscaled("-100") == "9c");
    BOOST_TEST(unscaled("-128") == "80");
    BOOST_TEST(unscaled("-129") == "ff7f");
    BOOST_TEST(unscaled("-256") == "ff00");
    BOOST_TEST(unscaled("18446744073709551616") == "010000000000000000");
    const auto java = [](std::string_view text) { return DecimalNumber::parse(text)->java_text(); };
    BOOST_TEST(java("12.50") == "12.50");
    BOOST_TEST(java("0.000001") == "0.000001");
    BOOST_TEST(java("0.0000001") == "1E-7");
    BOOST_TEST(java("0.00000000") == "0E-8");
    BOOST_TEST(java("-0.00000012") == "-1.2E-7");
    const auto stripped = DecimalNumber::parse("1200.00")->stripped();
    BOOST_TEST(stripped.digits == "1200");
    BOOST_TEST(stripped.scale == 0);  // BigDecimal 1.2E+3, set back to scale 0
    BOOST_TEST(hex(stripped.unscaled_bytes()) == "04b0");
    BOOST_TEST(!DecimalNumber::parse("NaN"));
    BOOST_TEST(!DecimalNumber::parse("1e5"));
    BOOST_TEST(!DecimalNumber::parse("-"));
}

BOOST_AUTO_TEST_CASE(floats_as_java_writes_them) {
    BOOST_TEST(java_double_text(12.5) == "12.5");
    BOOST_TEST(java_double_text(1e20) == "1.0E20");
    BOOST_TEST(java_double_text(1e-7) == "1.0E-7");
    BOOST_TEST(java_double_text(0.001) == "0.001");
    BOOST_TEST(java_double_text(1e7) == "1.0E7");
    BOOST_TEST(java_double_text(9999999.0) == "9999999.0");
    BOOST_TEST(java_double_text(1200.0) == "1200.0");
    BOOST_TEST(java_double_text(-0.0) == "-0.0");
    BOOST_TEST(java_double_text(-1.23e-4) == "-1.23E-4");
    BOOST_TEST(java_double_text(1.2345678901234567e19) == "1.2345678901234567E19");
    // At least two digits, the two nearest the value: the smallest subnormal is 4.9E-324.
    BOOST_TEST(java_double_text(4.9e-324) == "4.9E-324");
    BOOST_TEST(java_double_text(1e23) == "1.0E23");
    BOOST_TEST(java_double_text(2e-323) == "2.0E-323");
    BOOST_TEST(java_float_text(1.4e-45f) == "1.4E-45");
    BOOST_TEST(java_float_text(1.17549435e-38f) == "1.1754944E-38");  // Java 17 wrote 1.17549435E-38
    BOOST_TEST(java_float_text(1.5f) == "1.5");
    BOOST_TEST(java_float_text(123456789.0f) == "1.2345679E8");  // Java 17 wrote 1.23456792E8
    BOOST_TEST(header({ValueType::float32}, "NaN") == "NaN");
    BOOST_TEST(header({ValueType::float64}, "0.1") == "0.1");
}

BOOST_AUTO_TEST_CASE(bytea_in_each_binary_handling_mode) {
    using config::BinaryHandlingMode;
    const ColumnType b{ValueType::bytea};
    const auto in = [](BinaryHandlingMode mode) {
        return modes(config::TimePrecisionMode::adaptive, config::DecimalHandlingMode::precise, mode);
    };
    BOOST_TEST(string_text(b, "\\x00ff10fb") == std::string("\x00\xff\x10\xfb", 4));
    BOOST_TEST(header(b, "\\x00ff10fb") == "AP8Q+w==");
    BOOST_TEST(json_value(b, "\\xfbff", in(BinaryHandlingMode::base64)) == "\"+/8=\"");
    BOOST_TEST(string_text(b, "\\xfbff", in(BinaryHandlingMode::base64_url_safe)) == "-_8=");
    BOOST_TEST(header(b, "\\x00ff10fb", in(BinaryHandlingMode::hex)) == "00ff10fb");
    BOOST_TEST(header(b, "\\x", in(BinaryHandlingMode::hex)) == "");
}

BOOST_AUTO_TEST_CASE(timestamps_in_postgres_iso_output_and_iso_8601) {
    BOOST_TEST(parse_timestamp_ms("1970-01-01 00:00:00").value() == 0);
    BOOST_TEST(parse_timestamp_ms("1969-12-31 23:59:59.9995").value() == 0);  // toward zero, as Debezium
    BOOST_TEST(parse_timestamp_ms("1969-12-31 23:59:59.9985").value() == -1);
    BOOST_TEST(parse_timestamp_ms("2024-01-02 03:04:05").value() == 1'704'164'645'000);
    BOOST_TEST(parse_timestamp_ms("2024-01-02 03:04:05.1").value() == 1'704'164'645'100);
    BOOST_TEST(parse_timestamp_ms("2024-01-02 03:04:05.123999").value() == 1'704'164'645'123);  // truncated
    BOOST_TEST(parse_timestamp_ms("2024-01-02 03:04:05+00").value() == 1'704'164'645'000);
    BOOST_TEST(parse_timestamp_ms("2024-01-02 05:04:05+02").value() == 1'704'164'645'000);
    BOOST_TEST(parse_timestamp_ms("2024-01-01 23:04:05-04").value() == 1'704'164'645'000);
    BOOST_TEST(parse_timestamp_ms("2024-01-02 08:34:05.25+05:30").value() == 1'704'164'645'250);
    BOOST_TEST(parse_timestamp_ms("2024-01-02 03:04:20+00:00:15").value() == 1'704'164'645'000);
    BOOST_TEST(parse_timestamp_ms("2024-01-02T03:04:05.123Z").value() == 1'704'164'645'123);
    BOOST_TEST(parse_timestamp_ms("2024-02-29 00:00:00").value() == 1'709'164'800'000);
    BOOST_TEST(parse_timestamp_ms("12024-01-01 00:00:00").has_value());
    for (const char* bad :
         {"infinity", "-infinity", "2024-01-02", "2023-02-29 00:00:00", "2024-13-01 00:00:00", "2024-01-02 24:00:00",
          "0044-03-15 12:00:00 BC", "01/02/2024 03:04:05", "2024-01-02 03:04:05 PST", "2024-01-02 03:04:05+"})
        BOOST_TEST(!parse_timestamp_ms(bad).has_value(), bad);
}

BOOST_AUTO_TEST_CASE(integers_parse_whole_64_bit_numbers_only) {
    BOOST_TEST(parse_int64("1704164645123").value() == 1'704'164'645'123);
    BOOST_TEST(parse_int64("-7").value() == -7);
    BOOST_TEST(!parse_int64("").has_value());
    BOOST_TEST(!parse_int64("1.5").has_value());
    BOOST_TEST(!parse_int64("9223372036854775808").has_value());
}

BOOST_AUTO_TEST_CASE(placements_parse_like_debezium) {
    const auto fields =
        parse_additional_placements(" type:HEADER:eventType , aggregateid : envelope,shard:Partition:x,b:header");
    BOOST_REQUIRE(fields.size() == 4u);
    BOOST_TEST((fields[0] == config::AdditionalField{"type", config::Placement::header, "eventType"}));
    BOOST_TEST((fields[1] == config::AdditionalField{"aggregateid", config::Placement::envelope, "aggregateid"}));
    BOOST_TEST((fields[2] == config::AdditionalField{"shard", config::Placement::partition, "x"}));
    BOOST_TEST((fields[3] == config::AdditionalField{"b", config::Placement::header, "b"}));
}

BOOST_AUTO_TEST_CASE(malformed_placements_are_refused) {
    BOOST_TEST(placement_error("type") == "\"type\" is not column:placement or column:placement:alias");
    BOOST_TEST(placement_error("a:header,,b:header") == "empty item in the list");
    BOOST_TEST(placement_error("a:header,") == "empty item in the list");
    BOOST_TEST(placement_error("a:b:c:d") == "\"a:b:c:d\" is not column:placement or column:placement:alias");
    BOOST_TEST(placement_error("type:foo") ==
               "\"type:foo\": unknown placement \"foo\" (expected header, envelope or partition)");
    BOOST_TEST(placement_error(":header") == "\":header\" names no column");
    BOOST_TEST(placement_error("type:header:") == "\"type:header:\" has an empty alias");
    BOOST_TEST(placement_error("a:envelope:x,b:envelope:x") == "two envelope fields are named \"x\"");
    BOOST_TEST(placement_error("a:header:x,b:header:x") == "no error");  // duplicate headers are allowed
    BOOST_TEST(placement_error("payload:envelope").find("would be named \"payload\"") != std::string::npos);
    BOOST_TEST(placement_error("a:partition,b:partition") == "more than one partition placement (\"b\")");
}

BOOST_AUTO_TEST_CASE(expansion_drops_null_and_empty_array_fields_at_every_depth_by_default) {
    BOOST_TEST(expand(R"({"a": 1, "b": null, "c": [], "d": {"e": null, "f": [], "g": true}})") ==
               R"({"a":1,"d":{"g":true}})");
    BOOST_TEST(expand(R"({"deep": {"deeper": {"x": "y", "n": null}}})") == R"({"deep":{"deeper":{"x":"y"}}})");
    BOOST_TEST(expand(R"({"nested": [[1, null, 2], []], "s": "\u00e9"})") == R"({"nested":[[1,null,2],[]],"s":"é"})");
    BOOST_TEST(expand(R"({"z": 1, "a": 2})") == R"({"z":1,"a":2})");  // field order kept
}

BOOST_AUTO_TEST_CASE(expansion_keeps_nulls_and_empty_arrays_when_asked) {
    const JsonExpansion keep{config::JsonNullBehavior::optional_bytes, config::JsonEmptyArrayBehavior::optional_string};
    BOOST_TEST(expand(R"({"a": null, "b": [], "c": {"d": null}})", keep) == R"({"a":null,"b":[],"c":{"d":null}})");
    const JsonExpansion keep_arrays{config::JsonNullBehavior::ignore, config::JsonEmptyArrayBehavior::optional_string};
    BOOST_TEST(expand(R"({"a": null, "b": []})", keep_arrays) == R"({"b":[]})");
}

BOOST_AUTO_TEST_CASE(objects_in_one_array_share_their_fields_as_debezium_merges_their_schemas) {
    BOOST_TEST(expand(R"({"items": [{"a": 1}, {"b": 2}, {"a": 3, "c": null}]})") ==
               R"({"items":[{"a":1,"b":null},{"a":null,"b":2},{"a":3,"b":null}]})");
    // Debezium's test: an element's own empty array stays [], another element supplies the field.
    BOOST_TEST(expand(R"({"cars": [{"colors": []}, {"colors": [{"name": "red"}]}]})") ==
               R"({"cars":[{"colors":[]},{"colors":[{"name":"red"}]}]})");
    BOOST_TEST(expand(R"([{"a": null}, null, {"a": 1}])") == R"([{"a":null},null,{"a":1}])");
}

BOOST_AUTO_TEST_CASE(arrays_debezium_refuses_are_expanded_too) {
    BOOST_TEST(expand(R"({"mixed": [1, "a", 2.5, true]})") == R"({"mixed":[1,"a",2.5,true]})");
    BOOST_TEST(expand(R"([1, 2])") == "[1,2]");
}

BOOST_AUTO_TEST_CASE(text_that_is_not_a_json_object_or_array_is_not_expanded) {
    std::string out = "untouched";
    const JsonExpansion expansion;
    BOOST_TEST(expansion.expand("{broken", out).value().find("it is not valid JSON") == 0u);
    BOOST_TEST(expansion.expand("\"a string\"", out).value() == "it does not start with { or [");
    BOOST_TEST(expansion.expand("12", out).value() == "it does not start with { or [");
    // As Jackson's readTree: no byte-order mark first, no number over 1,000 characters.
    BOOST_TEST(expansion.expand("\xef\xbb\xbf{\"a\": 1}", out).value() == "it does not start with { or [");
    BOOST_TEST(expansion.expand("{\"a\": 0." + std::string(1001, '1') + "}", out).value().find("1000 digits") !=
               std::string::npos);
    BOOST_TEST(expansion.expand("{\"a\": " + std::string(1001, '7') + "}", out).value().find("1000 digits") !=
               std::string::npos);
    BOOST_TEST(expansion.expand("{\"a\": 01}", out).value().find("it is not valid JSON") == 0u);
    BOOST_TEST(expansion.expand("", out).has_value());
    // jsonb prints '{"a": 1e400}' as 401 digits: valid JSON, but past what a double holds.
    BOOST_TEST(expansion.expand("{\"a\": 1" + std::string(400, '0') + "}", out).value().find("it holds an integer past 64 bits") == 0u);
    BOOST_TEST(expansion.expand("{\"a\": [1.5, -9223372036854775809]}", out).has_value());
    BOOST_TEST(expansion.expand("{\"a\": 18446744073709551615}", out).has_value());
    BOOST_TEST(out == "untouched");
}

// Jackson's readTree, which Debezium expands with: what follows the document is ignored, a
// number past a double's range is an infinity (JsonConverter writes it quoted), and an escaped
// surrogate without its pair a lone char (Java's UTF-8 encoder writes '?').
BOOST_AUTO_TEST_CASE(payloads_are_read_as_jackson_reads_them) {
    BOOST_TEST(expand("{\"a\": 1} trailing") == R"({"a":1})");
    BOOST_TEST(expand("{\"a\": 1}} {") == R"({"a":1})");
    BOOST_TEST(expand(R"({"a": 1e400, "b": -1e400, "c": 1e-400})") == R"({"a":"Infinity","b":"-Infinity","c":0.0})");
    BOOST_TEST(expand(R"({"a": "x\ud800y", "b": "\ud83d\ude00"})") == R"({"a":"x\uD800y","b":"\uD83D\uDE00"})");
    // An empty field name fails Debezium's expansion, unless its null is dropped.
    BOOST_TEST(expand(R"({"": null, "a": 1})") == R"({"a":1})");
    std::string out;
    BOOST_TEST(JsonExpansion{}.expand(R"({"b": {"": 1}})", out).value().find("empty field name") != std::string::npos);
    BOOST_TEST(expand(R"({"a": 1, "a": 2, "b": 3})") == R"({"a":2,"b":3})");
    BOOST_TEST(expand(R"({"a": 123456789012345678901234567890, "a": 1})") == R"({"a":1})");
    BOOST_TEST(expand("{\"a\": 0." + std::string(1000, '1') + "}") == R"({"a":0.1111111111111111})");
}

BOOST_AUTO_TEST_CASE(json_nested_deeper_than_jackson_allows_is_not_expanded) {
    std::string out = "untouched";
    const JsonExpansion expansion;
    const std::string deepest_allowed = std::string(1000, '[') + "1" + std::string(1000, ']');
    BOOST_TEST(expand(deepest_allowed) == deepest_allowed);
    BOOST_TEST(expansion.expand("{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}", out)
                   .value()
                   .find("nesting deeper than 1000 levels") != std::string::npos);
    BOOST_TEST(expansion.expand(std::string(1001, '{'), out).has_value());
    // Brackets inside strings, escaped quotes included, are text.
    const std::string quoted = "{\"a\": \"\\\"" + std::string(5000, '[') + "\"}";
    BOOST_TEST(!json_nesting_error(quoted));
    BOOST_TEST(expand(quoted) == "{\"a\":\"\\\"" + std::string(5000, '[') + "\"}");
    BOOST_TEST(out == "untouched");
}

BOOST_AUTO_TEST_CASE(trace_context_from_the_writers_properties_text) {
    const std::string parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    // As Debezium's Quarkus outbox extension writes it (Properties.store): a date comment first.
    const auto quarkus = parse_trace_context("#Tue Nov 25 10:00:00 UTC 2026\ntraceparent=" + parent + "\n");
    BOOST_REQUIRE(quarkus.has_value());
    BOOST_TEST(quarkus->traceparent == parent);
    BOOST_TEST(quarkus->tracestate.empty());
    const auto with_state = parse_trace_context("tracestate=congo\\=t61rcWkgMzE,rojo=00f067aa0ba902b7\ntraceparent: " +
                                                parent);
    BOOST_REQUIRE(with_state.has_value());
    BOOST_TEST(with_state->tracestate == "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
    // A later version is read as version 00, its extra fields dropped.
    const auto later = parse_trace_context("traceparent=cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x");
    BOOST_REQUIRE(later.has_value());
    BOOST_TEST(later->traceparent == parent);
    for (const char* bad : {"", "tracestate=a=b", "traceparent=", "traceparent=00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
                            "traceparent=00-00000000000000000000000000000000-b7ad6b7169203331-01",
                            "traceparent=00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
                            "traceparent=ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                            "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
                            "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331"})
        BOOST_TEST(!parse_trace_context(bad).has_value(), bad);
}

// Connect schemas as Debezium 3.6 declares them under JsonConverter (the parity test compares
// them with a live connector).
BOOST_AUTO_TEST_CASE(connect_schemas_of_columns_in_each_mode) {
    const auto schema = [](ColumnType type, bool optional = true, std::optional<Value> dflt = std::nullopt,
                           config::ValueModes m = modes()) {
        std::string out;
        append_connect_schema(out, type, m, optional, dflt);
        return out;
    };
    BOOST_TEST(schema({ValueType::text}) == R"({"type":"string","optional":true})");
    BOOST_TEST(schema({ValueType::text, -1, pg_oid::kUuid}, false,
                      Value::of_string("00000000-0000-0000-0000-000000000000")) ==
               R"({"type":"string","optional":false,"name":"io.debezium.data.Uuid","version":1,)"
               R"("default":"00000000-0000-0000-0000-000000000000"})");
    BOOST_TEST(schema({ValueType::integer, -1, pg_oid::kInt2}) == R"({"type":"int16","optional":true})");
    BOOST_TEST(schema({ValueType::integer, -1, pg_oid::kInt8}, true, Value::of_integer(Value::Kind::int64, 42)) ==
               R"({"type":"int64","optional":true,"default":42})");
    BOOST_TEST(schema({ValueType::json}) == R"({"type":"string","optional":true,"name":"io.debezium.data.Json","version":1})");
    BOOST_TEST(schema({ValueType::numeric, numeric_modifier(8, 2)}) ==
               R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,)"
               R"("parameters":{"scale":"2","connect.decimal.precision":"8"}})");
    BOOST_TEST(schema({ValueType::numeric}) ==
               R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},)"
               R"({"type":"bytes","optional":false,"field":"value"}],"optional":true,)"
               R"("name":"io.debezium.data.VariableScaleDecimal","version":1,"doc":"Variable scaled decimal"})");
    BOOST_TEST(schema({ValueType::timestamp, 3}) ==
               R"({"type":"int64","optional":true,"name":"io.debezium.time.Timestamp","version":1})");
    BOOST_TEST(schema({ValueType::timestamp}, true, std::nullopt, modes(config::TimePrecisionMode::connect)) ==
               R"({"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1})");
    BOOST_TEST(schema({ValueType::date}, true, std::nullopt, modes(config::TimePrecisionMode::isostring)) ==
               R"({"type":"string","optional":true,"name":"io.debezium.time.IsoDate","version":1})");
    BOOST_TEST(schema({ValueType::bytea}) == R"({"type":"bytes","optional":true})");
}

// The typed value of a column (Connect's data model, which Avro writes) is the value the direct
// JSON path writes: JsonConverter writing the model gives the same bytes in every mode.
BOOST_AUTO_TEST_CASE(typed_column_values_write_as_the_direct_json) {
    using config::DecimalHandlingMode;
    using config::TimePrecisionMode;
    using config::BinaryHandlingMode;
    const std::vector<std::pair<ColumnType, std::string>> cases = {
        {{ValueType::text}, "héllo \"q\""},
        {{ValueType::text, -1, pg_oid::kUuid}, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
        {{ValueType::boolean}, "t"},
        {{ValueType::boolean}, "f"},
        {{ValueType::integer, -1, pg_oid::kInt2}, "-32768"},
        {{ValueType::integer, -1, pg_oid::kInt4}, "2147483647"},
        {{ValueType::integer, -1, pg_oid::kInt8}, "-9223372036854775808"},
        {{ValueType::float32}, "3.14"},
        {{ValueType::float32}, "NaN"},
        {{ValueType::float64}, "1e+20"},
        {{ValueType::float64}, "-Infinity"},
        {{ValueType::numeric, numeric_modifier(8, 2)}, "-123.45"},
        {{ValueType::numeric}, "1234.5000"},
        {{ValueType::numeric}, "NaN"},
        {{ValueType::numeric}, "1e400"},
        {{ValueType::json}, "{\"a\": [1, 2]}"},
        {{ValueType::bytea}, "\\x00ff10"},
        {{ValueType::timestamptz}, "2024-01-02 03:04:05.123456+00"},
        {{ValueType::timestamptz}, "infinity"},
        {{ValueType::timestamp, 3}, "1969-12-31 23:59:59.999"},
        {{ValueType::timestamp}, "2024-01-02 03:04:05.123456"},
        {{ValueType::date}, "1960-02-29"},
        {{ValueType::time, 3}, "23:59:59.999"},
        {{ValueType::time}, "12:00:00.000001"},
        {{ValueType::timetz}, "10:00:00+02"},
        {{ValueType::interval}, "1 year 2 mons 3 days 04:05:06.5"},
    };
    int compared = 0;
    for (const auto time : {TimePrecisionMode::adaptive, TimePrecisionMode::adaptive_time_microseconds,
                            TimePrecisionMode::connect, TimePrecisionMode::isostring})
        for (const auto decimal : {DecimalHandlingMode::precise, DecimalHandlingMode::as_double,
                                   DecimalHandlingMode::as_string})
            for (const auto binary : {BinaryHandlingMode::bytes, BinaryHandlingMode::base64, BinaryHandlingMode::hex,
                                      BinaryHandlingMode::base64_url_safe}) {
                const auto m = modes(time, decimal, binary);
                const ConnectValueWriter writer(m);
                for (const auto& [type, text] : cases) {
                    std::string direct;
                    try {
                        writer.append_json(direct, type, text);
                    } catch (const ValueError&) {
                        continue;  // precise decimals refuse NaN
                    }
                    const Value value = writer.value(type, text);
                    const Schema schema = column_schema(type, m, true, std::nullopt);
                    BOOST_TEST((value.kind == value_kind(schema.type)), text);
                    std::string typed;
                    append_value_json(typed, schema, value);
                    BOOST_TEST(typed == direct, text);
                    ++compared;
                }
            }
    BOOST_TEST(compared > 1000);
    const ConnectValueWriter writer(modes());
    BOOST_TEST((writer.value({ValueType::numeric}, "1234.5000") ==
                Value::of_struct({Value::of_integer(Value::Kind::int32, 1), Value::of_bytes(std::string("\x30\x39", 2))})));
    BOOST_TEST((writer.value({ValueType::date}, "1970-01-03") == Value::of_integer(Value::Kind::int32, 2)));
    BOOST_CHECK_THROW(writer.value({ValueType::integer, -1, pg_oid::kInt4}, "x1"), ValueError);
}

// An expanded payload's schema and value in Connect's data model write as the direct JSON.
BOOST_AUTO_TEST_CASE(expanded_payloads_in_the_data_model_write_as_the_direct_json) {
    for (const char* text : {R"({"a":1,"big":9000000000,"f":1.5,"s":"x","t":true,"c":{"d":[1,2]},"n":null})",
                             R"({"o":[{"x":1},{"y":"b"}],"e":[],"m":[[1.5],[2.5,null]]})"}) {
        const auto document = OrderedJson::parse(text);
        const auto inferred = infer_expanded_schema(document, "payload", config::JsonNullBehavior::optional_bytes,
                                                    config::JsonEmptyArrayBehavior::optional_string);
        const SchemaPtr schema = connect_schema_of(*inferred);
        std::string direct, typed;
        append_expanded_value(direct, *inferred, document);
        append_value_json(typed, *schema, expanded_connect_value(*inferred, document));
        BOOST_TEST(typed == direct);
        BOOST_TEST(schema->name.value_or("<none>") == "payload");
        BOOST_TEST(schema->fields.size() == document.size());
    }
}

BOOST_AUTO_TEST_CASE(column_defaults_as_debezium_parses_them) {
    const ConnectValueWriter values(modes());
    const auto dflt = [&](ColumnType type, const std::string& expression) {
        const auto value = default_value(type, expression, values);
        if (!value) return std::string("<none>");
        std::string json;
        append_value_json(json, column_schema(type, modes(), true, std::nullopt), *value);
        return json;
    };
    BOOST_TEST(dflt({ValueType::text}, "'Created'::character varying") == "\"Created\"");
    BOOST_TEST(dflt({ValueType::text}, "'it''s'::text") == "\"it's\"");
    BOOST_TEST(dflt({ValueType::integer, -1, pg_oid::kInt8}, "42") == "42");
    BOOST_TEST(dflt({ValueType::integer, -1, pg_oid::kInt4}, "'-1'::integer") == "-1");
    BOOST_TEST(dflt({ValueType::boolean}, "true") == "true");
    BOOST_TEST(dflt({ValueType::json}, "'{}'::jsonb") == "\"{}\"");
    // Function calls: the type's placeholder.
    BOOST_TEST(dflt({ValueType::text, -1, pg_oid::kUuid}, "gen_random_uuid()") ==
               "\"00000000-0000-0000-0000-000000000000\"");
    BOOST_TEST(dflt({ValueType::timestamptz}, "now()") == "\"1970-01-01T00:00:00.000000Z\"");
    BOOST_TEST(dflt({ValueType::timestamp}, "CURRENT_TIMESTAMP") == "0");
    BOOST_TEST(dflt({ValueType::integer, -1, pg_oid::kInt4}, "nextval('outbox_seq_seq'::regclass)") == "0");
    // No default.
    BOOST_TEST(dflt({ValueType::text}, "NULL::text") == "<none>");
    BOOST_TEST(dflt({ValueType::bytea}, "gen_random_bytes(4)") == "<none>");
    BOOST_TEST(dflt({ValueType::integer, -1, pg_oid::kInt4}, "(1 + 2)") == "<none>");
}

std::pair<std::string, std::string> expand_with_schema(std::string_view text, std::string_view name = "payload",
                                                       JsonExpansion options = {}) {
    std::string value, schema;
    SchemaPtr inferred;
    const auto why = options.expand(text, value, name, &inferred);
    BOOST_REQUIRE_MESSAGE(!why, why.value_or(""));
    append_schema_json(schema, *inferred);
    return {value, schema};
}

std::string refusal(std::string_view text, JsonExpansion options = {}, bool with_schema = false) {
    std::string value = "untouched";
    SchemaPtr schema;
    const auto why = options.expand(text, value, "payload", with_schema ? &schema : nullptr);
    BOOST_TEST(value == "untouched");
    return why.value_or("<expanded>");
}

BOOST_AUTO_TEST_CASE(expanded_payload_schemas_as_debezium_infers_them) {
    BOOST_TEST(expand_with_schema(R"({"a":1,"big":9000000000,"f":1.5,"s":"x","t":true,"c":{"d":[1,2]}})").second ==
               R"({"type":"struct","fields":[{"type":"int32","optional":true,"field":"a"},)"
               R"({"type":"int64","optional":true,"field":"big"},{"type":"double","optional":true,"field":"f"},)"
               R"({"type":"string","optional":true,"field":"s"},{"type":"boolean","optional":true,"field":"t"},)"
               R"({"type":"struct","fields":[{"type":"array","items":{"type":"int32","optional":true},)"
               R"("optional":true,"field":"d"}],"optional":true,"name":"payload.c","field":"c"}],"optional":true,)"
               R"("name":"payload"})");
    // Objects of one shape keep the element schema; of several, Debezium's merged struct is required.
    const JsonExpansion keep_nulls{config::JsonNullBehavior::optional_bytes};
    BOOST_TEST(expand_with_schema(R"({"o":[{"x":1,"y":null},{"x":2,"y":"b"}],"n":null})", "body", keep_nulls).second ==
               R"({"type":"struct","fields":[{"type":"array","items":{"type":"struct","fields":[)"
               R"({"type":"int32","optional":true,"field":"x"},{"type":"string","optional":true,"field":"y"}],)"
               R"("optional":false,"name":"body.o"},"optional":true,"field":"o"},)"
               R"({"type":"bytes","optional":true,"field":"n"}],"optional":true,"name":"body"})");
    BOOST_TEST(expand_with_schema(R"({"o":[{"x":1},{"x":2}]})").second ==
               R"({"type":"struct","fields":[{"type":"array","items":{"type":"struct","fields":[)"
               R"({"type":"int32","optional":true,"field":"x"}],"optional":true,"name":"payload.o"},"optional":true,)"
               R"("field":"o"}],"optional":true,"name":"payload"})");
    // Objects inside an array of arrays: unnamed, and shaped by the first inner array's.
    BOOST_TEST(expand_with_schema(R"({"a":[[{"x":1}],[{"y":2}]]})").first == R"({"a":[[{"x":1}],[{"x":null}]]})");
    BOOST_TEST(expand_with_schema(R"({"a":[[{"x":1}]]})").second ==
               R"({"type":"struct","fields":[{"type":"array","items":{"type":"array","items":{"type":"struct",)"
               R"("fields":[{"type":"int32","optional":true,"field":"x"}],"optional":true},"optional":true},)"
               R"("optional":true,"field":"a"}],"optional":true,"name":"payload"})");
}

// Debezium's arrays: nulls are skipped when the schema is inferred and kept in the value; the
// first non-null element decides.
BOOST_AUTO_TEST_CASE(arrays_take_their_first_non_null_elements_schema_and_keep_their_nulls) {
    const auto [value, schema] = expand_with_schema(R"({"n": [null, 2]})");
    BOOST_TEST(value == R"({"n":[null,2]})");
    BOOST_TEST(schema == R"({"type":"struct","fields":[{"type":"array","items":{"type":"int32","optional":true},)"
                         R"("optional":true,"field":"n"}],"optional":true,"name":"payload"})");
    BOOST_TEST(expand(R"({"n": [null, 2.5, null]})") == R"({"n":[null,2.5,null]})");
    // Only nulls: no schema, so Debezium keeps the payload, unless nulls are optional bytes.
    BOOST_TEST(refusal(R"({"allnull": [null], "x": 1})") ==
               "Debezium infers no Connect schema for it: an array holds only nulls, which have no schema");
    BOOST_TEST(refusal(R"({"allnull": [null, null]})", {}, true).find("only nulls") != std::string::npos);
    const JsonExpansion keep_nulls{config::JsonNullBehavior::optional_bytes};
    BOOST_TEST(expand_with_schema(R"({"allnull": [null], "x": 1})", "payload", keep_nulls).second ==
               R"({"type":"struct","fields":[{"type":"array","items":{"type":"bytes","optional":true},)"
               R"("optional":true,"field":"allnull"},{"type":"int32","optional":true,"field":"x"}],"optional":true,)"
               R"("name":"payload"})");
    // An empty array first has no schema either; one later is an empty value.
    BOOST_TEST(refusal(R"({"nested": [[], [1]]})").find("first element is an empty array") != std::string::npos);
    BOOST_TEST(expand(R"({"nested": [[1], [], null]})") == R"({"nested":[[1],[],null]})");
}

// Objects in one array: every field any of them has, null where one has none. Debezium merges
// their distinct schemas in a hash set's order, which follows Java identity hash codes; the
// router merges them in order of first appearance.
BOOST_AUTO_TEST_CASE(objects_in_an_array_get_the_merged_fields_in_order_of_first_appearance) {
    BOOST_TEST(expand(R"({"arr": [{"x": 1}, {"y": "s"}, {"x": 2, "y": "t"}]})") ==
               R"({"arr":[{"x":1,"y":null},{"x":null,"y":"s"},{"x":2,"y":"t"}]})");
    // A null placeholder gives way to a real type; a nested object keeps the first shape.
    const JsonExpansion keep_nulls{config::JsonNullBehavior::optional_bytes};
    BOOST_TEST(expand_with_schema(R"({"a": [{"v": null}, {"v": 1}]})", "payload", keep_nulls).first ==
               R"({"a":[{"v":null},{"v":1}]})");
    BOOST_TEST(expand(R"({"a": [{"o": {"p": 1}}, {"o": {"q": 2}}]})") == R"({"a":[{"o":{"p":1}},{"o":{"p":null}}]})");
}

// Where Debezium's Struct refuses the values (its task then fails), the router keeps the payload
// under JsonConverter with schemas and expands it, each object with its own fields, without.
BOOST_AUTO_TEST_CASE(values_that_do_not_fit_the_inferred_schema) {
    BOOST_TEST(refusal(R"({"a": [{"x": 1}, {"x": "s"}]})", {}, true).find("do not fit") != std::string::npos);
    BOOST_TEST(refusal(R"({"a": [[1], ["s"]]})", {}, true).find("a string where the inferred schema is int32") !=
               std::string::npos);
    BOOST_TEST(refusal(R"({"a": [{"x": 1}, {"y": 2}, null]})", {}, true).find("required") != std::string::npos);
    BOOST_TEST(refusal(R"({"m": [1, "two"]})", {}, true).find("mixes JSON kinds (number and string)") != std::string::npos);
    BOOST_TEST(refusal(R"({"m": [1, 9000000000]})", {}, true).find("mixes number types") != std::string::npos);
    BOOST_TEST(refusal(R"([1, 2])", {}, true).find("JSON array") != std::string::npos);
    // A top-level array Debezium infers no schema for it keeps (found by the parity fuzzer);
    // one it does fails its task, and the router expands it without schemas.
    BOOST_TEST(refusal(R"([null, null])").find("only nulls") != std::string::npos);
    BOOST_TEST(refusal(R"([])").find("empty JSON array") != std::string::npos);
    BOOST_TEST(refusal(R"([[], [9]])").find("empty array") != std::string::npos);
    BOOST_TEST(expand(R"([1, "a"])") == R"([1,"a"])");
    BOOST_TEST(expand(R"({"a": [{"x": 1}, {"x": "s"}]})") == R"({"a":[{"x":1},{"x":"s"}]})");
}
