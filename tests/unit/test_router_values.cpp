#define BOOST_TEST_MODULE router_values
#include <boost/test/unit_test.hpp>
#include <ostream>
#include <stdexcept>

#include "outbox/router/column_value.hpp"
#include "outbox/router/json_expansion.hpp"
#include "outbox/router/json_nesting.hpp"
#include "outbox/config/placement_parser.hpp"
#include "outbox/router/timestamp_text.hpp"

namespace outbox::router {
std::ostream& operator<<(std::ostream& out, ValueType type) { return out << value_type_name(type); }
}  // namespace outbox::router

using namespace outbox;
using namespace outbox::router;
using outbox::config::parse_additional_placements;

namespace {

std::string json_value(ValueType type, std::string_view text) {
    std::string out, scratch;
    BOOST_REQUIRE(append_json_value(out, type, text, scratch));
    return out;
}

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
    BOOST_TEST(value_type(pg_oid::kNumeric) == ValueType::number);
    BOOST_TEST(value_type(pg_oid::kFloat4) == ValueType::number);
    BOOST_TEST(value_type(pg_oid::kFloat8) == ValueType::number);
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
}

BOOST_AUTO_TEST_CASE(kafka_bytes_and_header_text_by_type) {
    std::string scratch, bytes;
    BOOST_TEST(kafka_bytes(ValueType::boolean, "t", scratch).value() == "true");
    BOOST_TEST(kafka_bytes(ValueType::boolean, "f", scratch).value() == "false");
    BOOST_TEST(kafka_bytes(ValueType::bytea, "\\x6869", scratch).value() == "hi");
    BOOST_TEST(!kafka_bytes(ValueType::bytea, "\\x6", scratch).has_value());
    BOOST_TEST(kafka_bytes(ValueType::json, R"({"a": 1})", scratch).value() == R"({"a": 1})");
    BOOST_TEST(header_text(ValueType::bytea, "\\x6869", scratch, bytes).value() == "aGk=");
    BOOST_TEST(header_text(ValueType::boolean, "t", scratch, bytes).value() == "true");
    BOOST_TEST(header_text(ValueType::number, "1.50", scratch, bytes).value() == "1.50");
    BOOST_TEST(header_text(ValueType::timestamptz, "2024-01-02 03:04:05+00", scratch, bytes).value() ==
               "2024-01-02 03:04:05+00");
}

BOOST_AUTO_TEST_CASE(typed_json_values) {
    BOOST_TEST(json_value(ValueType::integer, "-42") == "-42");
    BOOST_TEST(json_value(ValueType::number, "12.50") == "12.50");
    BOOST_TEST(json_value(ValueType::number, "1e+30") == "1e+30");
    BOOST_TEST(json_value(ValueType::number, "NaN") == "\"NaN\"");
    BOOST_TEST(json_value(ValueType::number, "-Infinity") == "\"-Infinity\"");
    BOOST_TEST(json_value(ValueType::number, ".5") == "\".5\"");
    BOOST_TEST(json_value(ValueType::boolean, "t") == "true");
    BOOST_TEST(json_value(ValueType::bytea, "\\x00") == "\"AA==\"");
    BOOST_TEST(json_value(ValueType::json, R"({"a": 1})") == R"("{\"a\": 1}")");
    BOOST_TEST(json_value(ValueType::text, "plain") == "\"plain\"");
    std::string out, scratch;
    BOOST_TEST(!append_json_value(out, ValueType::bytea, "\\xq", scratch));
}

BOOST_AUTO_TEST_CASE(timestamps_in_postgres_iso_output_and_iso_8601) {
    BOOST_TEST(parse_timestamp_ms("1970-01-01 00:00:00").value() == 0);
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
    BOOST_TEST(expand(R"({"nested": [[], [1, null, 2]], "s": "\u00e9"})") == R"({"nested":[[],[1,null,2]],"s":"é"})");
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
    BOOST_TEST(expansion.expand("\"a string\"", out).value() == "it is a JSON string, not an object or array");
    BOOST_TEST(expansion.expand("12", out).value() == "it is a JSON number, not an object or array");
    BOOST_TEST(expansion.expand("", out).has_value());
    // jsonb prints '{"a": 1e400}' as 401 digits: valid JSON, but past what a double holds.
    BOOST_TEST(expansion.expand("{\"a\": 1" + std::string(400, '0') + "}", out).value().find("it cannot be expanded") == 0u);
    BOOST_TEST(out == "untouched");
}

BOOST_AUTO_TEST_CASE(json_nested_deeper_than_jackson_allows_is_not_expanded) {
    std::string out = "untouched";
    const JsonExpansion expansion;
    const std::string deepest_allowed = std::string(1000, '[') + std::string(1000, ']');
    BOOST_TEST(expand(deepest_allowed) == deepest_allowed);
    BOOST_TEST(expansion.expand("{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}", out).value() ==
               "it nests arrays and objects deeper than 1000 levels");
    BOOST_TEST(expansion.expand(std::string(1001, '{'), out).has_value());
    // Brackets inside strings, escaped quotes included, are text.
    const std::string quoted = "{\"a\": \"\\\"" + std::string(5000, '[') + "\"}";
    BOOST_TEST(!json_nesting_error(quoted));
    BOOST_TEST(expand(quoted) == "{\"a\":\"\\\"" + std::string(5000, '[') + "\"}");
    BOOST_TEST(out == "untouched");
}
