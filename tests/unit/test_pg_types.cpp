#define BOOST_TEST_MODULE pg_types
#include <boost/test/unit_test.hpp>

#include "outbox/avro/avro_encoder.hpp"
#include "outbox/avro/avro_schema.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_json.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/connect_value.hpp"
#include "outbox/connect/pg_array.hpp"
#include "outbox/connect/pg_type_resolver.hpp"
#include "outbox/connect/unavailable_array.hpp"

using namespace outbox::connect;

namespace {

CatalogType domain(std::uint32_t oid, std::string name, std::uint32_t base, std::int32_t base_modifier = -1) {
    return {oid, std::move(name), "public", 'd', 'N', base, base_modifier, 0};
}

CatalogType array_type(std::uint32_t oid, std::string name, std::uint32_t element) {
    return {oid, std::move(name), "public", 'b', 'A', 0, -1, element};
}

// The extensions' types and their arrays as an extension creates them (OIDs past the builtins).
PgTypeResolver extension_types() {
    return PgTypeResolver({{16500, "hstore", "public", 'b', 'U', 0, -1, 0}, array_type(16505, "_hstore", 16500),
                           {16510, "citext", "public", 'b', 'S', 0, -1, 0}, array_type(16515, "_citext", 16510),
                           {16520, "ltree", "public", 'b', 'U', 0, -1, 0}, array_type(16525, "_ltree", 16520)});
}

using Kind = PgArrayElement::Kind;

// The parsed top level as text: elements as themselves, NULL as null, sub-arrays in brackets.
std::string shape(const std::vector<PgArrayElement>& elements) {
    std::string out = "[";
    for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) out += '|';
        if (elements[i].kind == Kind::null) out += "null";
        else if (elements[i].kind == Kind::array) out += shape(elements[i].elements);
        else out += "<" + elements[i].text + ">";
    }
    return out + "]";
}

std::string parsed(std::string_view text, char delimiter = ',') {
    const auto elements = parse_pg_array(text, delimiter);
    return elements ? shape(*elements) : "refused";
}

struct Written {
    std::string json, java_list, header, schema, typed_json;
};

Written written(const ColumnType& type, std::string_view text, outbox::config::ValueModes modes = {}) {
    const ConnectValueWriter writer(modes);
    Written out;
    writer.append_json(out.json, type, text);
    std::string scratch;
    out.java_list = std::string(writer.string_text(type, text, scratch));
    std::string field;
    writer.append_struct_field(field, type, text);
    if (type.kind == ValueType::array) BOOST_TEST(field == out.java_list);  // List.toString() either way
    out.header = std::string(writer.header_text(type, text, scratch));
    append_connect_schema(out.schema, type, modes, true, std::nullopt);
    append_value_json(out.typed_json, column_schema(type, modes, true, std::nullopt), writer.value(type, text));
    BOOST_TEST(out.typed_json == out.json);
    return out;
}

CatalogType extension_type(std::uint32_t oid, std::string name) { return {oid, std::move(name), "public", 'b', 'U', 0, -1, 0}; }

}  // namespace

BOOST_AUTO_TEST_CASE(builtin_types_resolve_without_the_catalog) {
    const PgTypeResolver types;
    const ColumnType int4 = types.resolve(pg_oid::kInt4, -1);
    BOOST_TEST((int4.kind == ValueType::integer));
    BOOST_TEST(int4.oid == pg_oid::kInt4);
    BOOST_TEST(!int4.element);
    BOOST_TEST(int4.name.empty());
    // numeric(10,2)[]: the array's modifier is its elements'.
    const std::int32_t numeric_10_2 = (10 << 16 | 2) + 4;
    const ColumnType numerics = types.resolve(1231, numeric_10_2);
    BOOST_TEST((numerics.kind == ValueType::array));
    BOOST_REQUIRE(numerics.element);
    BOOST_TEST((numerics.element->kind == ValueType::numeric));
    BOOST_TEST(numerics.element->numeric_scale() == 2);
    BOOST_TEST(numerics.element->numeric_precision() == 10);
    for (const auto& [array, element] : {std::pair{1000u, pg_oid::kBool}, {1001u, pg_oid::kBytea}, {1005u, pg_oid::kInt2},
                                        {1007u, pg_oid::kInt4}, {1009u, pg_oid::kText}, {1016u, pg_oid::kInt8},
                                        {1021u, pg_oid::kFloat4}, {1022u, pg_oid::kFloat8}, {1115u, pg_oid::kTimestamp},
                                        {1182u, pg_oid::kDate}, {1183u, pg_oid::kTime}, {1185u, pg_oid::kTimestamptz},
                                        {1231u, pg_oid::kNumeric}, {2951u, pg_oid::kUuid}, {3807u, pg_oid::kJsonb},
                                        {199u, pg_oid::kJson}, {1015u, pg_oid::kVarchar}, {1270u, pg_oid::kTimetz}}) {
        BOOST_TEST(builtin_array_element(array) == element);
        BOOST_TEST((types.resolve(array, -1).element->kind == value_type(element)));
    }
    BOOST_TEST(builtin_array_element(pg_oid::kInt4) == 0u);
    BOOST_TEST(builtin_type(16383));
    BOOST_TEST(!builtin_type(kFirstNormalObjectId));
    // An OID only the catalog explains, without it: text, as before.
    BOOST_TEST((types.resolve(16500, -1).kind == ValueType::text));
}

BOOST_AUTO_TEST_CASE(domains_resolve_to_their_base_type_with_the_domain_modifier) {
    const std::int32_t numeric_10_2 = (10 << 16 | 2) + 4;
    const PgTypeResolver types({domain(16400, "positive", pg_oid::kInt4), domain(16401, "money2", pg_oid::kNumeric, numeric_10_2),
                                domain(16402, "event_time", pg_oid::kTimestamp, 3),
                                domain(16403, "strictly_positive", 16400),  // a domain over a domain
                                domain(16404, "int_list", 1007),            // a domain over int4[]
                                array_type(16405, "_positive", 16400),      // positive[]
                                domain(16406, "cycle_a", 16407), domain(16407, "cycle_b", 16406)});
    const ColumnType positive = types.resolve(16400, -1);
    BOOST_TEST((positive.kind == ValueType::integer));
    BOOST_TEST(positive.oid == pg_oid::kInt4);
    BOOST_TEST(positive.name.empty());
    const ColumnType money2 = types.resolve(16401, -1);
    BOOST_TEST((money2.kind == ValueType::numeric));
    BOOST_TEST(money2.numeric_has_scale());
    BOOST_TEST(money2.numeric_scale() == 2);
    const ColumnType event_time = types.resolve(16402, -1);
    BOOST_TEST((event_time.kind == ValueType::timestamp));
    BOOST_TEST(event_time.fractional_digits() == 3);
    BOOST_TEST(types.resolve(16403, -1).oid == pg_oid::kInt4);
    const ColumnType int_list = types.resolve(16404, -1);
    BOOST_TEST((int_list.kind == ValueType::array));
    BOOST_TEST(int_list.element->oid == pg_oid::kInt4);
    const ColumnType positives = types.resolve(16405, -1);
    BOOST_TEST((positives.kind == ValueType::array));
    BOOST_TEST(positives.name == "_positive");
    BOOST_TEST((positives.element->kind == ValueType::integer));
    BOOST_TEST(positives.element->oid == pg_oid::kInt4);
    // A catalog that loops is read as text, never followed forever.
    BOOST_TEST((types.resolve(16406, -1).kind == ValueType::text));
}

BOOST_AUTO_TEST_CASE(extension_types_carry_their_name_and_schema) {
    const PgTypeResolver types({extension_type(16600, "hstore"), array_type(16605, "_hstore", 16600),
                                {16610, "mood", "app", 'e', 'E', 0, -1, 0}});
    const ColumnType hstore = types.resolve(16600, -1);
    BOOST_TEST((hstore.kind == ValueType::text));
    BOOST_TEST(hstore.name == "hstore");
    BOOST_TEST(hstore.schema == "public");
    const ColumnType hstores = types.resolve(16605, -1);
    BOOST_TEST((hstores.kind == ValueType::array));
    BOOST_TEST(hstores.element->name == "hstore");
    BOOST_TEST(types.resolve(16610, -1).schema == "app");
}

BOOST_AUTO_TEST_CASE(array_text_parses_as_array_out_writes_it) {
    BOOST_TEST(parsed("{1,2,NULL,-3}") == "[<1>|<2>|null|<-3>]");
    BOOST_TEST(parsed("{}") == "[]");
    BOOST_TEST(parsed("{\"\"}") == "[<>]");  // one empty string
    BOOST_TEST(parsed(R"({"a b","c\"d","e\\f",NULL,"NULL",null,nULl})") == R"([<a b>|<c"d>|<e\f>|null|<NULL>|null|null])");
    BOOST_TEST(parsed(R"({\NULL,NULLx,xNULL})") == "[<NULL>|<NULLx>|<xNULL>]");
    BOOST_TEST(parsed("{{1,2},{3,NULL}}") == "[[<1>|<2>]|[<3>|null]]");
    BOOST_TEST(parsed("[0:1]={a,b}") == "[<a>|<b>]");
    BOOST_TEST(parsed("[1:2][-1:0]={{1,2},{3,4}}") == "[[<1>|<2>]|[<3>|<4>]]");
    BOOST_TEST(parsed("{  a b , c  }") == "[<a b>|<c>]");
    BOOST_TEST(parsed(R"({a\ ,b})") == "[<a >|<b>]");  // an escaped space is kept
    BOOST_TEST(parsed("{(1,2),(3,4);(5,6),(7,8)}", ';') == "[<(1,2),(3,4)>|<(5,6),(7,8)>]");
    BOOST_TEST(parsed("{\"2024-01-02 03:04:05+00\"}") == "[<2024-01-02 03:04:05+00>]");
    for (const char* refused : {"", "1,2", "{1,2", "{1,,2}", "{,}", "{1}x", "{{1},2}", "{{1,2},{3}}", "{\"a}",
                                "{a\"b}", "[1:2]{1,2}", "[x]={1}", "{{}}", "{1,{2}}", "{a\\}", "{{{{{{{1}}}}}}}"})
        BOOST_TEST(parsed(refused) == "refused", refused);
}

BOOST_AUTO_TEST_CASE(arrays_are_connect_arrays_of_their_converted_elements) {
    const PgTypeResolver types;
    const Written ints = written(types.resolve(1007, -1), "{1,2,NULL,-3}");
    BOOST_TEST(ints.json == "[1,2,null,-3]");
    BOOST_TEST(ints.java_list == "[1, 2, null, -3]");
    BOOST_TEST(ints.header == "[1,2,null,-3]");
    BOOST_TEST(ints.schema == R"({"type":"array","items":{"type":"int32","optional":true},"optional":true})");
    const Written empty = written(types.resolve(1009, -1), "{}");
    BOOST_TEST(empty.json == "[]");
    BOOST_TEST(empty.java_list == "[]");
    const Written texts = written(types.resolve(1009, -1), R"({"a b","c\"d",NULL})");
    BOOST_TEST(texts.json == R"(["a b","c\"d",null])");
    BOOST_TEST(texts.java_list == R"([a b, c"d, null])");
    BOOST_TEST(texts.header == R"(["a b","c\"d",null])");
    BOOST_TEST(texts.schema == R"({"type":"array","items":{"type":"string","optional":true},"optional":true})");
    const Written booleans = written(types.resolve(1000, -1), "{t,f,NULL}");
    BOOST_TEST(booleans.json == "[true,false,null]");
    BOOST_TEST(booleans.java_list == "[true, false, null]");
    const Written dates = written(types.resolve(1182, -1), "{1970-01-02,1969-12-31,NULL}");
    BOOST_TEST(dates.json == "[1,-1,null]");
    BOOST_TEST(dates.schema ==
               R"({"type":"array","items":{"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1},"optional":true})");
    const Written uuids = written(types.resolve(2951, -1), "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}");
    BOOST_TEST(uuids.json == R"(["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"])");
    const Written doubles = written(types.resolve(1022, -1), "{1.5,-0,NaN,Infinity}");
    BOOST_TEST(doubles.json == R"([1.5,-0.0,"NaN","Infinity"])");
    BOOST_TEST(doubles.java_list == "[1.5, -0.0, NaN, Infinity]");
    BOOST_TEST(doubles.header == "[1.5,-0.0,NaN,Infinity]");  // Values writes a Double bare
    const std::int32_t numeric_10_2 = (10 << 16 | 2) + 4;
    const Written decimals = written(types.resolve(1231, numeric_10_2), "{12.50,NULL}");
    BOOST_TEST(decimals.json == R"(["BOI=",null])");
    BOOST_TEST(decimals.java_list == "[12.50, null]");
    BOOST_TEST(decimals.header == "[12.50,null]");
    const Written bytes = written(types.resolve(1001, -1), R"({"\\x0102",NULL})");
    BOOST_TEST(bytes.json == R"(["AQI=",null])");
    BOOST_TEST(bytes.java_list == "[java.nio.HeapByteBuffer[pos=0 lim=2 cap=2], null]");
    BOOST_TEST(bytes.header == R"(["AQI=",null])");
    const Written jsons = written(types.resolve(3807, -1), R"({"{\"a\": 1}"})");
    BOOST_TEST(jsons.json == R"(["{\"a\": 1}"])");
    const Written micros = written(types.resolve(1115, -1), R"({"1970-01-01 00:00:01.000001"})");
    BOOST_TEST(micros.json == "[1000001]");
    const Written millis = written(types.resolve(1115, 3), R"({"1970-01-01 00:00:01.001"})");
    BOOST_TEST(millis.json == "[1001]");
    // A time element reaches Debezium as a java.sql.Time: milliseconds, the rest cut off.
    const Written times = written(types.resolve(1183, -1), "{00:00:01.001999,00:00:02,24:00:00}");
    BOOST_TEST(times.json == "[1001000,2000000,0]");
    BOOST_TEST(times.schema ==
               R"({"type":"array","items":{"type":"int64","optional":true,"name":"io.debezium.time.MicroTime","version":1},"optional":true})");
}

BOOST_AUTO_TEST_CASE(multi_dimensional_arrays_as_debeziums_element_converters_take_sub_arrays) {
    const PgTypeResolver types;
    // A number converter finds no number in a Java array: null.
    BOOST_TEST(written(types.resolve(1007, -1), "{{1,2},{3,4}}").json == "[null,null]");
    // A string converter writes the array object's identity, which the router cannot: the
    // sub-array's text instead (a documented difference).
    const Written texts = written(types.resolve(1009, -1), "{{a,b},{c,NULL}}");
    BOOST_TEST(texts.json == R"(["{a,b}","{c,NULL}"])");
    BOOST_TEST(texts.java_list == "[{a,b}, {c,NULL}]");
    // Of the string types, the timetz, citext and hstore converters read no Java array: null.
    const PgTypeResolver extensions = extension_types();
    BOOST_TEST(written(types.resolve(1270, -1), "{{01:02:03+00},{04:05:06-01}}").json == "[null,null]");
    BOOST_TEST(written(extensions.resolve(16515, -1), "{{a,b},{c,NULL}}").java_list == "[null, null]");
    BOOST_TEST(written(extensions.resolve(16505, -1), R"({{"a=>1"},{"b=>2"}})").header == "[null,null]");
    outbox::config::ValueModes map;
    map.hstore = outbox::config::HStoreHandlingMode::map;
    BOOST_TEST(written(extensions.resolve(16505, -1), R"({{"a=>1"},{"b=>2"}})", map).json == "[null,null]");
    // ltree's takes any object's text: the identity again, the sub-array's text here.
    BOOST_TEST(written(extensions.resolve(16525, -1), "{{a,b},{c,d}}").json == R"(["{a,b}","{c,d}"])");
    BOOST_TEST(written(types.resolve(2951, -1), "{{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}}").json ==
               R"(["{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}"])");
    // Dates, times, timestamps, numeric and bytea are null in every mode, strings or not.
    outbox::config::ValueModes strings;
    strings.time = outbox::config::TimePrecisionMode::isostring;
    strings.decimal = outbox::config::DecimalHandlingMode::as_string;
    strings.binary = outbox::config::BinaryHandlingMode::base64;
    for (const auto& [oid, text] : std::vector<std::pair<std::uint32_t, const char*>>{
             {1182, "{{2024-01-02},{2024-01-03}}"}, {1183, "{{03:04:05},{04:05:06}}"},
             {1115, R"({{"2024-01-02 03:04:05"},{"2024-01-02 03:04:06"}})"},
             {1185, R"({{"2024-01-02 03:04:05+00"},{"2024-01-02 03:04:06+00"}})"}, {1231, "{{1.5},{2.5}}"},
             {1001, R"({{"\\x01"},{"\\x02"}})"}})
        for (const auto& modes : {outbox::config::ValueModes{}, strings})
            BOOST_TEST(written(types.resolve(oid, -1), text, modes).json == "[null,null]", "array type " << oid);
}

BOOST_AUTO_TEST_CASE(arrays_of_hstore_citext_and_ltree_hold_their_elements_as_those_columns) {
    const PgTypeResolver types = extension_types();
    // hstore.handling.mode json: each element Debezium's JSON text of the map.
    const Written hstores = written(types.resolve(16505, -1), R"({"\"a\"=>\"1\", \"b\"=>NULL","\"k,1\"=>\"v \\\"q\\\" => \\\\y\"",NULL,""})");
    BOOST_TEST(hstores.json == R"(["{\"a\":\"1\",\"b\":null}","{\"k,1\":\"v \\\"q\\\" => \\\\y\"}",null,"{}"])");
    BOOST_TEST(hstores.java_list == R"([{"a":"1","b":null}, {"k,1":"v \"q\" => \\y"}, null, {}])");
    BOOST_TEST(hstores.header == R"(["{\"a\":\"1\",\"b\":null}","{\"k,1\":\"v \\\"q\\\" => \\\\y\"}",null,"{}"])");
    BOOST_TEST(hstores.schema ==
               R"({"type":"array","items":{"type":"string","optional":true,"name":"io.debezium.data.Json","version":1},"optional":true})");
    // map: each element a Connect map.
    outbox::config::ValueModes map;
    map.hstore = outbox::config::HStoreHandlingMode::map;
    const Written maps = written(types.resolve(16505, -1), R"({"\"a\"=>\"1\", \"b\"=>NULL",NULL,""})", map);
    BOOST_TEST(maps.json == R"([{"a":"1","b":null},null,{}])");
    BOOST_TEST(maps.java_list == "[{a=1, b=null}, null, {}]");
    BOOST_TEST(maps.header == R"([{"a":"1","b":null},null,{}])");
    BOOST_TEST(maps.schema == R"({"type":"array","items":{"type":"map","keys":{"type":"string","optional":false},)"
                              R"("values":{"type":"string","optional":true},"optional":true},"optional":true})");
    const Written citexts = written(types.resolve(16515, -1), R"({"MiXeD Case","a,b","q\"uote","back\\slash",NULL,"","NULL"})");
    BOOST_TEST(citexts.json == R"(["MiXeD Case","a,b","q\"uote","back\\slash",null,"","NULL"])");
    BOOST_TEST(citexts.java_list == R"([MiXeD Case, a,b, q"uote, back\slash, null, , NULL])");
    BOOST_TEST(citexts.schema == R"({"type":"array","items":{"type":"string","optional":true},"optional":true})");
    const Written ltrees = written(types.resolve(16525, -1), R"({Top.Science,"",a.b_c})");
    BOOST_TEST(ltrees.json == R"(["Top.Science","","a.b_c"])");
    BOOST_TEST(ltrees.java_list == "[Top.Science, , a.b_c]");
    BOOST_TEST(ltrees.schema ==
               R"({"type":"array","items":{"type":"string","optional":true,"name":"io.debezium.data.Ltree","version":1},"optional":true})");
    BOOST_TEST(written(types.resolve(16525, -1), "{}").json == "[]");
}

// Debezium's ltree[] converter calls each element's toString(): a NULL element fails it, and the
// column is null (its event.converting.failure.handling.mode warn).
BOOST_AUTO_TEST_CASE(an_ltree_array_holding_a_null_element_is_one_debezium_cannot_read) {
    const PgTypeResolver types = extension_types();
    BOOST_TEST(!debezium_reads_array(types.resolve(16525, -1), "{a,NULL}"));
    BOOST_TEST(!debezium_reads_array(types.resolve(16525, -1), "{NULL}"));
    BOOST_TEST(debezium_reads_array(types.resolve(16525, -1), R"({a,"NULL",""})"));
    BOOST_TEST(debezium_reads_array(types.resolve(16525, -1), "{}"));
    BOOST_TEST(debezium_reads_array(types.resolve(16515, -1), "{a,NULL}"));  // citext[]: a null element
    BOOST_TEST(debezium_reads_array(types.resolve(16505, -1), "{NULL}"));    // hstore[] too
}

// A timetz element reaches Debezium as a java.sql.Time of its UTC instant, which it reads back
// through Time.toLocalTime(): the UTC time in whole seconds.
BOOST_AUTO_TEST_CASE(a_timetz_array_holds_whole_seconds_in_utc) {
    const PgTypeResolver types;
    const Written times = written(types.resolve(1270, -1),
                                  "{03:04:05.25+02,23:59:59.999999-03:30,24:00:00+00,NULL,12:00:00.5+05:45,"
                                  "01:02:03.000001-14,10:00:00+01:02:03,00:30:00.75+01}");
    BOOST_TEST(times.json == R"(["01:04:05Z","03:29:59Z","00:00:00Z",null,"06:15:00Z","15:02:03Z","08:57:57Z","23:30:00Z"])");
    BOOST_TEST(times.java_list == "[01:04:05Z, 03:29:59Z, 00:00:00Z, null, 06:15:00Z, 15:02:03Z, 08:57:57Z, 23:30:00Z]");
    BOOST_TEST(times.header == R"(["01:04:05Z","03:29:59Z","00:00:00Z",null,"06:15:00Z","15:02:03Z","08:57:57Z","23:30:00Z"])");
    BOOST_TEST(times.schema ==
               R"({"type":"array","items":{"type":"string","optional":true,"name":"io.debezium.time.ZonedTime","version":1},"optional":true})");
    // timetz(3)[] the same; the scalar keeps its fraction.
    BOOST_TEST(written(types.resolve(1270, 3), "{03:04:05.124+02}").json == R"(["01:04:05Z"])");
    BOOST_TEST(written(types.resolve(pg_oid::kTimetz, -1), "03:04:05.25+02").json == R"("01:04:05.25Z")");
    BOOST_CHECK_THROW(written(types.resolve(1270, -1), "{25:00:00+00}"), ValueError);
}

// An array unchanged and stored out of line: the array text of Debezium's placeholder list for
// the array types its UnchangedToastedReplicationMessageColumn names, nothing (null) for others.
BOOST_AUTO_TEST_CASE(an_unchanged_toasted_array_is_debeziums_placeholder_list) {
    const PgTypeResolver types;
    const outbox::config::ValueModes defaults;
    const auto placeholder = [&](std::uint32_t oid, const outbox::config::ValueModes& modes) {
        return unavailable_array_text(types.resolve(oid, -1), modes).value_or("<null>");
    };
    for (const std::uint32_t oid : {1009u, 1015u, 1014u, 199u, 3807u})
        BOOST_TEST(placeholder(oid, defaults) == R"({"__debezium_unavailable_value"})");
    outbox::config::ValueModes odd = defaults;
    odd.unavailable_placeholder = "a\"b\\";
    BOOST_TEST(written(types.resolve(1009, -1), placeholder(1009, odd)).json == R"(["a\"b\\"])");
    BOOST_TEST(written(types.resolve(1007, -1), placeholder(1007, odd)).json == "[97,34,98,92]");
    BOOST_TEST(written(types.resolve(1016, -1), placeholder(1016, odd)).json == "[97,34,98,92]");
    // date[]: the same ints as epoch days, where its schema is io.debezium.time.Date.
    BOOST_TEST(placeholder(1182, odd) == "{1970-04-08,1970-02-04,1970-04-09,1970-04-03}");
    BOOST_TEST(written(types.resolve(1182, -1), placeholder(1182, odd)).json == "[97,34,98,92]");
    outbox::config::ValueModes microseconds = odd;
    microseconds.time = outbox::config::TimePrecisionMode::adaptive_time_microseconds;
    BOOST_TEST(placeholder(1182, microseconds) == placeholder(1182, odd));
    for (const auto mode : {outbox::config::TimePrecisionMode::connect, outbox::config::TimePrecisionMode::isostring}) {
        outbox::config::ValueModes other = odd;
        other.time = mode;
        BOOST_TEST(placeholder(1182, other) == "<null>");
    }
    // bytea[]: the placeholder's bytes, in binary.handling.mode bytes only.
    BOOST_TEST(written(types.resolve(1001, -1), placeholder(1001, defaults)).json ==
               R"(["X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ=="])");
    outbox::config::ValueModes base64 = defaults;
    base64.binary = outbox::config::BinaryHandlingMode::base64;
    BOOST_TEST(placeholder(1001, base64) == "<null>");
    // uuid[]: Java's UUID.nameUUIDFromBytes of the placeholder (Debezium's value for the default).
    BOOST_TEST(placeholder(2951, defaults) == "{b68a35a7-17ad-35b3-af2a-ae46edb4545a}");
    BOOST_TEST(name_uuid_from_bytes("") == "d41d8cd9-8f00-3204-a980-0998ecf8427e");
    // Others, and the extensions' arrays: null.
    for (const std::uint32_t oid : {1005u, 1000u, 1022u, 1231u, 1115u, 1185u, 1183u, 1270u, 1002u})
        BOOST_TEST(placeholder(oid, defaults) == "<null>", "array type " << oid);
    const PgTypeResolver extensions = extension_types();
    for (const std::uint32_t oid : {16505u, 16515u, 16525u})
        BOOST_TEST(!unavailable_array_text(extensions.resolve(oid, -1), defaults).has_value());
    // A domain over text[]: Debezium names it by the domain's name, none of those.
    const PgTypeResolver domains({domain(16404, "text_list", 1009)});
    BOOST_TEST(domains.resolve(16404, -1).from_domain);
    BOOST_TEST(!types.resolve(1009, -1).from_domain);
    BOOST_TEST(!unavailable_array_text(domains.resolve(16404, -1), defaults).has_value());
}

// An enum is io.debezium.data.Enum with its labels in their sort order; an enum[] an array of
// required Enums, so one holding a NULL element is null (Debezium's Struct refuses it).
BOOST_AUTO_TEST_CASE(enums_and_their_arrays_are_debeziums_enum_schema) {
    CatalogType mood{16600, "mood", "public", 'e', 'E', 0, -1, 0};
    mood.enum_values = "sad,ok,happy";
    const PgTypeResolver types({mood, array_type(16605, "_mood", 16600)});
    const Written scalar = written(types.resolve(16600, -1), "happy");
    BOOST_TEST(scalar.json == R"("happy")");
    BOOST_TEST(scalar.schema ==
               R"({"type":"string","optional":true,"name":"io.debezium.data.Enum","version":1,"parameters":{"allowed":"sad,ok,happy"}})");
    const Written array = written(types.resolve(16605, -1), "{sad,happy}");
    BOOST_TEST(array.json == R"(["sad","happy"])");
    BOOST_TEST(array.java_list == "[sad, happy]");
    BOOST_TEST(array.schema == R"({"type":"array","items":{"type":"string","optional":false,"name":"io.debezium.data.Enum",)"
                               R"("version":1,"parameters":{"allowed":"sad,ok,happy"}},"optional":true})");
    BOOST_TEST(debezium_reads_array(types.resolve(16605, -1), "{sad,happy}"));
    BOOST_TEST(!debezium_reads_array(types.resolve(16605, -1), "{sad,NULL}"));
    // Not an enum: no labels, a plain string.
    BOOST_TEST(written(extension_types().resolve(16510, -1), "x").schema == R"({"type":"string","optional":true})");
}

BOOST_AUTO_TEST_CASE(malformed_array_text_is_a_value_error) {
    const ConnectValueWriter writer({});
    std::string out;
    BOOST_CHECK_THROW(writer.append_json(out, PgTypeResolver().resolve(1007, -1), "{1,2"), ValueError);
    BOOST_CHECK_THROW(writer.append_json(out, PgTypeResolver().resolve(1007, -1), "{1,{2}}"), ValueError);
    BOOST_CHECK_THROW(writer.value(PgTypeResolver().resolve(1007, -1), "{x}"), ValueError);
}

BOOST_AUTO_TEST_CASE(domains_convert_as_their_base_type) {
    const PgTypeResolver types({domain(16400, "positive", pg_oid::kInt4), domain(16402, "event_time", pg_oid::kTimestamp, 3),
                                domain(16404, "int_list", 1007), array_type(16405, "_positive", 16400),
                                domain(16406, "flag", pg_oid::kBool), domain(16407, "blob", pg_oid::kBytea)});
    BOOST_TEST(written(types.resolve(16400, -1), "42").json == "42");
    BOOST_TEST(written(types.resolve(16400, -1), "42").schema == R"({"type":"int32","optional":true})");
    BOOST_TEST(written(types.resolve(16402, -1), "2024-01-02 03:04:05.123").json == "1704164645123");
    BOOST_TEST(written(types.resolve(16404, -1), "{1,NULL}").json == "[1,null]");
    BOOST_TEST(written(types.resolve(16405, -1), "{1,NULL}").java_list == "[1, null]");
    BOOST_TEST(written(types.resolve(16406, -1), "t").json == "true");
    BOOST_TEST(written(types.resolve(16407, -1), "\\x0102").json == R"("AQI=")");
}

BOOST_AUTO_TEST_CASE(a_numeric_array_holding_nan_or_an_infinity_is_one_debezium_cannot_read) {
    const PgTypeResolver types;
    BOOST_TEST(!debezium_reads_array(types.resolve(1231, -1), "{1,NaN}"));
    BOOST_TEST(!debezium_reads_array(types.resolve(1231, -1), "{{1},{-Infinity}}"));
    BOOST_TEST(debezium_reads_array(types.resolve(1231, -1), "{1,NULL,\"NaN x\"}"));
    BOOST_TEST(debezium_reads_array(types.resolve(1022, -1), "{1,NaN}"));  // pgjdbc reads a double's NaN
    BOOST_TEST(debezium_reads_array(types.resolve(pg_oid::kNumeric, -1), "NaN"));
}

// AvroData maps a Connect array to an Avro array of its (optional) items.
BOOST_AUTO_TEST_CASE(an_array_column_is_an_avro_array) {
    const ColumnType ints = PgTypeResolver().resolve(1007, -1);
    const outbox::config::ValueModes modes;
    const Schema schema = column_schema(ints, modes, true, std::nullopt);
    BOOST_TEST(outbox::avro::avro_schema_json(schema, {false}) == R"(["null",{"type":"array","items":["null","int"]}])");
    std::string bytes;
    outbox::avro::append_avro_binary(bytes, schema, ConnectValueWriter(modes).value(ints, "{1,NULL,-3}"));
    std::string hex;
    for (const char c : bytes) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        hex += {kHex[static_cast<unsigned char>(c) >> 4], kHex[c & 15]};
    }
    // Branch 1; a block of 3 items (zig-zag 6): branch 1 and 1, null, branch 1 and -3; the end.
    BOOST_TEST(hex == "0206020200020500");
}
