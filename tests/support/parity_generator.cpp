#include "parity_generator.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>

#include "random_draws.hpp"

namespace outbox::test {
namespace {

const std::string kString = "org.apache.kafka.connect.storage.StringConverter";
const std::string kJson = "org.apache.kafka.connect.json.JsonConverter";
const std::string kSimpleHeader = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

// Text across Unicode planes, with quotes, backslashes and control characters (never NUL, which
// PostgreSQL's text cannot hold, nor $, which closes the dollar quote).
std::string random_text(Rng& rng, int max_pieces) {
    static const std::vector<std::string> pieces = {
        "a", "Z", "0", " ", "\"", "\\", "'", "\t", "\n", "\r", "\x01", "\x1f", "\x7f", "/", "<", "&",
        "\xc3\xa9",          // é
        "\xe2\x9c\x93",      // ✓
        "\xe2\x80\xa8",      // U+2028
        "\xef\xbf\xbd",      // U+FFFD
        "\xf0\x9f\x98\x80",  // U+1F600
        "\xf0\x90\x8d\x88",  // U+10348
        "\xf4\x8f\xbf\xbf",  // U+10FFFF
        "ab", "x-y", "\xe4\xb8\xad"};
    std::string text;
    const int n = uniform(rng, 0, max_pieces);
    for (int i = 0; i < n; ++i) text += pick(rng, pieces);
    return text;
}

std::string dollar_quoted(const std::string& text) { return "$q$" + text + "$q$"; }

// A JSON string literal of `text` (jsonb refuses \u0000, which random_text never makes).
std::string json_literal(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char escape[8];
            std::snprintf(escape, sizeof escape, "\\u%04x", u);
            out += escape;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string random_json_number(Rng& rng) {
    static const std::vector<std::string> numbers = {
        "0", "1", "-1", "42", "2147483647", "-2147483648", "2147483648", "-2147483649", "9223372036854775807",
        "-9223372036854775808", "9000000000", "1.5", "-2.25", "0.1", "1e20", "1.0E-7", "123.456", "1e308",
        "4.9e-324", "2.5e-3", "12.50", "100000000000000000000", "0.000001"};
    return pick(rng, numbers);
}

std::string random_json(Rng& rng, int depth);

std::string random_json_array(Rng& rng, int depth) {
    std::string out = "[";
    const int shape = uniform(rng, 0, 7);
    const int n = uniform(rng, 0, 4);
    for (int i = 0; i < n; ++i) {
        if (i) out += ", ";
        switch (shape) {
            case 0: out += std::to_string(uniform(rng, -5, 5)); break;                       // ints
            case 1: out += chance(rng, 0.3) ? "null" : std::to_string(uniform(rng, 0, 9)); break;  // ints and nulls
            case 2: out += "null"; break;                                                    // only nulls
            case 3: out += json_literal(random_text(rng, 3)); break;                         // strings
            case 4: out += random_json(rng, depth + 1); break;                               // anything (mixed)
            case 5: {                                                                        // objects, shapes vary
                out += "{";
                const int fields = uniform(rng, 0, 2);
                for (int f = 0; f < fields; ++f)
                    out += std::string(f ? ", " : "") + json_literal(std::string(1, static_cast<char>('a' + uniform(rng, 0, 3)))) +
                           ": " + (chance(rng, 0.2) ? "null" : std::to_string(uniform(rng, 0, 9)));
                out += "}";
                break;
            }
            case 6: out += chance(rng, 0.2) ? "[]" : "[" + std::to_string(uniform(rng, 0, 9)) + "]"; break;  // arrays
            default: out += random_json_number(rng); break;
        }
    }
    return out + "]";
}

std::string random_json(Rng& rng, int depth) {
    const int kind = depth >= 3 ? uniform(rng, 0, 4) : uniform(rng, 0, 7);
    switch (kind) {
        case 0: return json_literal(random_text(rng, 4));
        case 1: return random_json_number(rng);
        case 2: return chance(rng, 0.5) ? "true" : "false";
        case 3: return "null";
        case 4: return std::to_string(uniform(rng, -1000, 1000));
        case 5:
        case 6: {
            std::string out = "{";
            const int n = uniform(rng, 0, 4);
            for (int i = 0; i < n; ++i)
                out += std::string(i ? ", " : "") + json_literal("k" + std::to_string(i) + random_text(rng, 1)) + ": " +
                       random_json(rng, depth + 1);
            return out + "}";
        }
        default: return random_json_array(rng, depth);
    }
}

std::string random_uuid(Rng& rng) {
    char text[37];
    std::snprintf(text, sizeof text, "%08x-%04x-4%03x-8%03x-%012" PRIx64, static_cast<unsigned>(rng()),
                  static_cast<unsigned>(rng() & 0xffff), static_cast<unsigned>(rng() & 0xfff),
                  static_cast<unsigned>(rng() & 0xfff), static_cast<std::uint64_t>(rng() & 0xffffffffffffULL));
    return text;
}

std::string random_bits(Rng& rng, int length) {
    std::string bits;
    for (int i = 0; i < length; ++i) bits += chance(rng, 0.5) ? '1' : '0';
    return bits;
}

// An hstore key or value in hstore's input syntax: double quotes, '"' and '\' escaped.
std::string hstore_quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// A value of an extension type that is stored out of line (over 2 kB, STORAGE EXTERNAL); empty
// for the other types.
std::string toast_literal(const std::string& sql) {
    if (sql == "hstore") return "hstore('big', repeat('h', 3000))";
    if (sql == "citext") return "repeat('C', 3000)::citext";
    if (sql == "ltree") return "array_to_string(array_fill('l'::text, ARRAY[1500]), '.')::ltree";
    return "";
}

// A column type and its values, as SQL literals, fitting the connector's modes.
struct ColumnType {
    std::string sql;
    std::function<std::string(Rng&, const FuzzConnector&)> literal;
    bool key = true;  // usable as the record key (its StringConverter text is Debezium's)
    bool enumerated = false;  // an enum (sql names the type)
};

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string random_date(Rng& rng, const FuzzConnector& c) {
    if (c.time_mode != "connect" && chance(rng, 0.1)) return quoted(pick(rng, std::vector<std::string>{"0044-03-15 BC", "9999-12-31", "0001-01-01"}));
    char text[16];
    std::snprintf(text, sizeof text, "%04d-%02d-%02d", uniform(rng, 1900, 2100), uniform(rng, 1, 12), uniform(rng, 1, 28));
    return text;
}

std::string random_time(Rng& rng) {
    char text[32];
    std::snprintf(text, sizeof text, "%02d:%02d:%02d.%06d", uniform(rng, 0, 23), uniform(rng, 0, 59), uniform(rng, 0, 59),
                  uniform(rng, 0, 999999));
    return text;
}

// An hstore of up to `most` pairs, keys and values from `text`, a fifth of the values NULL.
std::string random_hstore(Rng& r, int most, const std::function<std::string(Rng&)>& text) {
    std::string pairs;
    const int n = uniform(r, 0, most);
    for (int i = 0; i < n; ++i)
        pairs += std::string(i ? ", " : "") + hstore_quoted(text(r)) + "=>" +
                 (chance(r, 0.2) ? std::string("NULL") : hstore_quoted(text(r)));
    return dollar_quoted(pairs) + "::hstore";
}

// An ltree path of up to four labels.
std::string random_ltree(Rng& r) {
    static const std::vector<std::string> labels = {"a", "Top", "x_1", "Science", "Z9", "b"};
    std::string path;
    const int n = uniform(r, 0, 4);
    for (int i = 0; i < n; ++i) path += (i ? "." : "") + pick(r, labels);
    return quoted(path);
}

const std::vector<ColumnType>& column_types() {
    static const std::vector<ColumnType> types = {
        {"smallint", [](Rng& r, const FuzzConnector&) {
             return quoted(pick(r, std::vector<std::string>{"0", "-32768", "32767", std::to_string(uniform(r, -999, 999))}));
         }},
        {"integer", [](Rng& r, const FuzzConnector&) {
             return quoted(pick(r, std::vector<std::string>{"0", "-2147483648", "2147483647", std::to_string(uniform(r, -99999, 99999))}));
         }},
        {"bigint", [](Rng& r, const FuzzConnector&) {
             return quoted(pick(r, std::vector<std::string>{"-9223372036854775808", "9223372036854775807", "9000000000",
                                                            std::to_string(static_cast<std::int64_t>(r()))}));
         }},
        {"boolean", [](Rng& r, const FuzzConnector&) { return quoted(chance(r, 0.5) ? "true" : "false"); }},
        {"real", [](Rng& r, const FuzzConnector&) {
             return quoted(pick(r, std::vector<std::string>{"1.5", "-0", "3.4028235e38", "1.17549435e-38", "1e-45", "0.1",
                                                            "123456.79", "NaN", "Infinity", "-Infinity", "16777217"}));
         }, false},
        {"double precision", [](Rng& r, const FuzzConnector&) {
             double random = 0;
             std::uint64_t bits = r();
             std::memcpy(&random, &bits, sizeof random);
             char text[40];
             std::snprintf(text, sizeof text, "%.17g", random);
             std::string value = std::isfinite(random) ? text : "1e300";
             return quoted(pick(r, std::vector<std::string>{"0.1", "1e-300", "1.7976931348623157e308", "4.9e-324", "2.0e-3",
                                                            "1e23", "9007199254740993", "-2.5", "NaN", "-Infinity", value,
                                                            value, "1e7", "1e-3", "0.001", "9999999"}));
         }, false},
        {"numeric", [](Rng& r, const FuzzConnector& c) {
             std::vector<std::string> values = {"0", "12.50", "-0.00012", "1000.000", "123456789012345678901234567890.5",
                                                "1e400", "-1e-400", "0.000000001", std::to_string(uniform(r, -99999, 99999)) + "." +
                                                                                   std::to_string(uniform(r, 0, 999))};
             if (c.decimal_mode != "precise") values.insert(values.end(), {"NaN", "Infinity", "-Infinity"});
             return quoted(pick(r, values));
         }, false},
        {"numeric(10,2)", [](Rng& r, const FuzzConnector&) {
             return quoted(std::to_string(uniform(r, -99999999, 99999999)) + "." + std::to_string(uniform(r, 10, 99)));
         }},
        {"text", [](Rng& r, const FuzzConnector&) { return dollar_quoted(random_text(r, 6)); }},
        {"varchar(20)", [](Rng& r, const FuzzConnector&) { return dollar_quoted(random_text(r, 4)); }},
        {"uuid", [](Rng& r, const FuzzConnector&) { return quoted(random_uuid(r)); }},
        {"date", [](Rng& r, const FuzzConnector& c) {
             const std::string d = random_date(r, c);
             return d[0] == '\'' ? d : quoted(d);
         }, false},
        {"time", [](Rng& r, const FuzzConnector&) { return quoted(chance(r, 0.1) ? "24:00:00" : random_time(r)); }, false},
        {"time(3)", [](Rng& r, const FuzzConnector&) { return quoted(random_time(r)); }, false},
        {"timetz", [](Rng& r, const FuzzConnector&) {
             return quoted(random_time(r) + pick(r, std::vector<std::string>{"+00", "+05:30", "-03:30", "+14"}));
         }, false},
        {"timestamp", [](Rng& r, const FuzzConnector& c) {
             if (c.time_mode != "connect" && chance(r, 0.1)) return quoted(pick(r, std::vector<std::string>{"infinity", "-infinity"}));
             const std::string d = random_date(r, c);
             return quoted((d[0] == '\'' ? d.substr(1, d.size() - 2) : d) + " " + random_time(r));
         }, false},
        {"timestamp(3)", [](Rng& r, const FuzzConnector& c) {
             const std::string d = random_date(r, c);
             return quoted((d[0] == '\'' ? d.substr(1, d.size() - 2) : d) + " " + random_time(r));
         }, false},
        {"timestamptz", [](Rng& r, const FuzzConnector& c) {
             if (chance(r, 0.1)) return quoted(pick(r, std::vector<std::string>{"infinity", "-infinity"}));
             const std::string d = random_date(r, c);
             return quoted((d[0] == '\'' ? d.substr(1, d.size() - 2) : d) + " " + random_time(r) + "+02");
         }, false},
        {"timestamptz(0)", [](Rng& r, const FuzzConnector& c) {
             std::string d = random_date(r, c);
             if (d[0] == '\'') d = d.substr(1, d.size() - 2);
             return quoted(d + " " + random_time(r) + "-05");
         }, false},
        {"interval", [](Rng& r, const FuzzConnector&) {
             return quoted(pick(r, std::vector<std::string>{"1 year 2 mons 3 days 04:05:06.78", "-1 days -02:00:00", "0",
                                                            std::to_string(uniform(r, -500, 500)) + " days " + random_time(r),
                                                            "-178000000 years", "00:00:00.000001", "-00:00:00.0005",
                                                            "-1 years -2 mons +3 days -04:05:06.5",
                                                            std::to_string(uniform(r, -99, 99)) + " mons " +
                                                                std::to_string(uniform(r, -99, 99)) + ":00:01.5"}));
         }, false},
        {"bytea", [](Rng& r, const FuzzConnector&) {
             std::string hex = "'\\x";
             const int n = uniform(r, 0, 6);
             for (int i = 0; i < n; ++i) {
                 char byte[3];
                 std::snprintf(byte, sizeof byte, "%02x", uniform(r, 0, 255));
                 hex += byte;
             }
             return hex + "'";
         }, false},
        {"jsonb", [](Rng& r, const FuzzConnector&) { return dollar_quoted(random_json(r, 2)); }, false},
        // Issue 37's scalars. bit(n > 1), varbit and point are no keys (Java prints a byte[]'s
        // identity under StringConverter); hstore, citext and ltree are the extensions'.
        {"money", [](Rng& r, const FuzzConnector&) {
             return quoted(pick(r, std::vector<std::string>{"0", "12.34", "-0.05", "92233720368547758.07",
                                                            "-92233720368547758.08", "1000000",
                                                            std::to_string(uniform(r, -99999, 99999)) + "." +
                                                                std::to_string(uniform(r, 0, 99))}));
         }},
        {"bit(1)", [](Rng& r, const FuzzConnector&) { return quoted(chance(r, 0.5) ? "1" : "0"); }},
        {"bit(12)", [](Rng& r, const FuzzConnector&) { return quoted(random_bits(r, 12)); }, false},
        {"varbit", [](Rng& r, const FuzzConnector&) { return quoted(random_bits(r, uniform(r, 0, 40))); }, false},
        {"varbit(1)", [](Rng& r, const FuzzConnector&) { return quoted(chance(r, 0.5) ? "1" : "0"); }},
        {"point", [](Rng& r, const FuzzConnector&) {
             const std::vector<std::string> coordinates = {"0", "-0", "1.5", "-2", "1e300", "-1e-300", "NaN", "Infinity",
                                                           "0.1", std::to_string(uniform(r, -1000, 1000)) + ".25"};
             return quoted("(" + pick(r, coordinates) + "," + pick(r, coordinates) + ")");
         }, false},
        {"hstore", [](Rng& r, const FuzzConnector&) {
             return random_hstore(r, 16, [](Rng& rng) { return random_text(rng, 3); });
         }},
        {"citext", [](Rng& r, const FuzzConnector&) { return dollar_quoted(random_text(r, 5)); }},
        {"ltree", [](Rng& r, const FuzzConnector&) { return random_ltree(r); }},
    };
    return types;
}

// Element types of the arrays and domains drawn (Debezium maps each: PostgresValueConverter's
// *_ARRAY cases). Not money[], bit[], varbit[], point[] (Debezium 3.6 has no array schema for
// them and leaves the column out); the extensions' types and timetz are drawn as arrays only
// (extension_array_elements); domains over the scalars of issue 37 are in the side-by-side cases.
bool array_element(const ColumnType& type) {
    for (const char* excluded : {"interval", "timetz", "money", "bit(1)", "bit(12)", "varbit", "varbit(1)", "point",
                                 "hstore", "citext", "ltree"})
        if (type.sql == excluded) return false;
    return true;
}

// Elements of hstore[], citext[], ltree[] and timetz[], with the texts an array must quote
// (delimiters, braces, blanks, quotes, backslashes, "NULL" as text, empty elements).
const std::vector<ColumnType>& extension_array_elements() {
    static const auto array_text = [](Rng& r) {
        return chance(r, 0.3) ? pick(r, std::vector<std::string>{"a,b", "{x}", "NULL", "null", " lead", "trail ", "",
                                                                  "a\\b", "q\"d", "x=>y", "}{", ",,"})
                              : random_text(r, 4);
    };
    static const std::vector<ColumnType> types = {
        {"hstore", [](Rng& r, const FuzzConnector&) { return random_hstore(r, 4, array_text); }},
        {"citext", [](Rng& r, const FuzzConnector&) { return dollar_quoted(array_text(r)); }},
        // An ltree[] holding a NULL element is null in Debezium's record: never a key.
        {"ltree", [](Rng& r, const FuzzConnector&) { return random_ltree(r); }, false},
        {"timetz", [](Rng& r, const FuzzConnector&) {
             std::string time = random_time(r);
             if (chance(r, 0.3)) {  // fewer fraction digits, or none
                 const int digits = uniform(r, 0, 5);
                 time.resize(digits == 0 ? 8 : 9 + digits);
             }
             if (chance(r, 0.1)) time = "24:00:00";
             return quoted(time + pick(r, std::vector<std::string>{"+00", "+05:30", "-03:30", "+14", "-14:59",
                                                                   "+01:02:03", "-00:00:01", "+15:59"}));
         }},
    };
    return types;
}

// Whether Debezium's element converter reads no value from a Java array (so a two-dimensional
// array's sub-arrays are nulls, which the router writes too), in every mode: those of numbers,
// booleans, dates and times, numeric, bytea, citext and hstore. The text, uuid, jsonb, ltree and
// enum converters write a Java array's identity there, which no one reproduces.
bool null_sub_arrays(const ColumnType& element) {
    if (element.enumerated) return false;
    for (const char* type : {"text", "varchar(20)", "uuid", "jsonb", "ltree"})
        if (element.sql == type) return false;
    return true;
}

// Labels of the enums drawn: blanks, quotes, commas, braces, "NULL" and non-ASCII, which an array
// must quote and io.debezium.data.Enum's "allowed" joins by ','.
const std::vector<std::string> kEnumLabels = {"sad", "ok", "so so", "x\"y", "a,b", "NULL", "\xc3\xa9\xf0\x9f\x98\x80", "{x}"};

std::string enum_labels_sql() {
    std::string sql;
    for (const auto& label : kEnumLabels) sql += (sql.empty() ? "" : ", ") + dollar_quoted(label);
    return sql;
}

// An array literal of `element`'s values: NULL elements, empty arrays, and where Debezium's element
// converter reads sub-arrays as nulls, two-dimensional arrays; `cast` is the array type's SQL.
std::string random_array(Rng& rng, const ColumnType& element, const FuzzConnector& connector, const std::string& cast) {
    if (chance(rng, 0.15)) return "'{}'::" + cast;
    // Not an infinity or a date or timestamp before 1583: Debezium reads array elements through
    // pgjdbc's java.sql types, which turn them into other instants (documented).
    const auto item = [&] {
        for (int attempt = 0; attempt < 20 && !chance(rng, 0.2); ++attempt) {
            std::string literal = element.literal(rng, connector);
            if (literal.find("infinity") == std::string::npos && literal.find("BC") == std::string::npos &&
                literal.find("0001-") == std::string::npos)
                return literal;
        }
        return std::string("NULL");
    };
    std::string out = "ARRAY[";
    if (null_sub_arrays(element) && chance(rng, 0.15)) {
        const int inner = uniform(rng, 1, 2);
        for (int row = 0; row < 2; ++row) {
            out += std::string(row ? ", " : "") + "[";
            for (int i = 0; i < inner; ++i) out += std::string(i ? ", " : "") + item();
            out += "]";
        }
    } else {
        const int n = uniform(rng, 1, 4);
        for (int i = 0; i < n; ++i) out += std::string(i ? ", " : "") + item();
    }
    return out + "]::" + cast;
}

// A column of an array or domain type: its SQL type, the domain it needs created (if any) and
// its values.
struct DerivedColumn {
    std::string sql;
    std::string setup;
    std::function<std::string(Rng&, const FuzzConnector&)> literal;
    std::shared_ptr<const ColumnType> base;  // the scalar type beneath
    bool array = false;
};

// A type of column_types() or extension_array_elements(), which live as long as the program.
std::shared_ptr<const ColumnType> borrowed(const ColumnType& type) { return {std::shared_ptr<void>(), &type}; }

DerivedColumn random_derived(Rng& rng, const std::string& schema, const std::string& column) {
    std::vector<const ColumnType*> elements;
    for (const auto& type : column_types())
        if (array_element(type)) elements.push_back(&type);
    const auto base = borrowed(*elements[static_cast<std::size_t>(uniform(rng, 0, static_cast<int>(elements.size()) - 1))]);
    const std::string domain = schema + ".d_" + column;
    // Not an array of a domain: Debezium has no converter for one, leaves the column out of its
    // records and fails the record that places it (documented).
    switch (uniform(rng, 0, 5)) {
        case 0: {  // an array
            const std::string cast = base->sql + "[]";
            return {cast, "", [base, cast](Rng& r, const FuzzConnector& c) { return random_array(r, *base, c, cast); }, base, true};
        }
        case 1:  // a domain over the type
            return {domain, "CREATE DOMAIN " + domain + " AS " + base->sql + "; ",
                    [base](Rng& r, const FuzzConnector& c) { return base->literal(r, c); }, base};
        case 2: {  // a domain over an array of it
            const std::string cast = base->sql + "[]";
            return {domain, "CREATE DOMAIN " + domain + " AS " + cast + "; ",
                    [base, cast](Rng& r, const FuzzConnector& c) { return random_array(r, *base, c, cast); }, base, true};
        }
        case 5: {  // an enum (never NULL as the key), or an array of it (never the key: a NULL element makes it null)
            const std::string type = schema + ".e_" + column;
            const bool array = chance(rng, 0.5);
            const auto element = std::make_shared<const ColumnType>(ColumnType{
                type, [](Rng& r, const FuzzConnector&) { return dollar_quoted(pick(r, kEnumLabels)); }, !array, true});
            const std::string setup = "CREATE TYPE " + type + " AS ENUM (" + enum_labels_sql() + "); ";
            if (!array)
                return {type, setup, [element](Rng& r, const FuzzConnector& c) { return element->literal(r, c); }, element};
            const std::string cast = type + "[]";
            return {cast, setup, [element, cast](Rng& r, const FuzzConnector& c) { return random_array(r, *element, c, cast); },
                    element, true};
        }
        default: {  // an array of an extension's type or of timetz (two draws in six)
            const auto element = borrowed(pick(rng, extension_array_elements()));
            const std::string cast = element->sql + "[]";
            return {cast, "", [element, cast](Rng& r, const FuzzConnector& c) { return random_array(r, *element, c, cast); },
                    element, true};
        }
    }
}

// An array of one element repeated past the 2 kB that moves it out of line (STORAGE EXTERNAL),
// and not so far that a record outgrows a Kafka message: a column's SQL value.
std::string toast_array_literal(Rng& rng, const DerivedColumn& column, const FuzzConnector& connector) {
    std::string element = "NULL";
    for (int attempt = 0; attempt < 20 && element == "NULL"; ++attempt) {
        const std::string literal = column.base->literal(rng, connector);
        if (literal.find("infinity") == std::string::npos && literal.find("BC") == std::string::npos &&
            literal.find("0001-") == std::string::npos)
            element = literal;
    }
    const std::size_t count = element.size() <= 8 ? 4000 : std::max<std::size_t>(10, 16000 / element.size());
    return "array_fill((" + element + ")::" + column.base->sql + ", ARRAY[" + std::to_string(count) + "])::" + column.sql;
}

}  // namespace

std::map<std::string, std::string> FuzzConnector::connect_properties() const {
    std::map<std::string, std::string> p = {
        {"key.converter", key_converter},     {"value.converter", value_converter},
        {"header.converter", header_converter}, {"time.precision.mode", time_mode},
        {"decimal.handling.mode", decimal_mode}, {"binary.handling.mode", binary_mode},
        {"extended.headers.enabled", context_headers ? "true" : "false"},
        {"interval.handling.mode", interval_mode}, {"hstore.handling.mode", hstore_mode},
        {"money.fraction.digits", std::to_string(money_fraction_digits)},
        // A record Debezium's task fails on is skipped (and reported missing), not the end of the run.
        {"errors.tolerance", "all"}};
    if (key_converter == kJson) p["key.converter.schemas.enable"] = key_schemas ? "true" : "false";
    if (value_converter == kJson) p["value.converter.schemas.enable"] = value_schemas ? "true" : "false";
    if (header_converter == kJson) p["header.converter.schemas.enable"] = header_schemas ? "true" : "false";
    return p;
}

std::string FuzzConnector::router_yaml() const {
    std::string yaml = "key.converter: " + key_converter + "\nvalue.converter: " + value_converter + "\n";
    if (header_converter == kJson) yaml += "header.converter: " + header_converter + "\n";
    if (key_converter == kJson) yaml += std::string("key.converter.schemas.enable: ") + (key_schemas ? "true" : "false") + "\n";
    if (value_converter == kJson)
        yaml += std::string("value.converter.schemas.enable: ") + (value_schemas ? "true" : "false") + "\n";
    if (header_converter == kJson)
        yaml += std::string("header.converter.schemas.enable: ") + (header_schemas ? "true" : "false") + "\n";
    yaml += "time.precision.mode: " + time_mode + "\ndecimal.handling.mode: " + decimal_mode +
            "\nbinary.handling.mode: " + binary_mode + "\ntopic.prefix: " + name + "\n";
    yaml += "interval.handling.mode: " + interval_mode + "\nhstore.handling.mode: " + hstore_mode +
            "\nmoney.fraction.digits: " + std::to_string(money_fraction_digits) + "\n";
    yaml += std::string("extended.headers.enabled: ") + (context_headers ? "true" : "false") + "\n";
    yaml += "errors.tolerance: all\n";
    return yaml;
}

std::string FuzzConnector::describe() const {
    const auto short_name = [](const std::string& c) { return c.substr(c.rfind('.') + 1); };
    return name + ": key " + short_name(key_converter) + (key_schemas ? "+schemas" : "") + ", value " +
           short_name(value_converter) + (value_schemas ? "+schemas" : "") + ", headers " + short_name(header_converter) +
           (header_schemas ? "+schemas" : "") + ", " + time_mode + "/" + decimal_mode + "/" + binary_mode + "/" +
           interval_mode + "/hstore " + hstore_mode + "/money " + std::to_string(money_fraction_digits) +
           (context_headers ? ", context headers" : "");
}

bool FuzzCase::expands() const {
    return std::any_of(options.begin(), options.end(), [](const auto& o) { return o.first == "table.expand.json.payload"; });
}

bool FuzzCase::has_envelope() const {
    return std::any_of(options.begin(), options.end(), [](const auto& o) {
        return o.first == "table.fields.additional.placement" && o.second.find(":envelope") != std::string::npos;
    });
}

bool FuzzCase::keeps_nulls() const {
    return std::any_of(options.begin(), options.end(), [](const auto& o) {
        return o.first == "table.json.payload.null.behavior" && o.second == "optional_bytes";
    });
}

std::string FuzzCase::describe() const {
    std::string text = "seed " + std::to_string(seed) + " (" + setup + columns + ")";
    for (const auto& [option, value] : options) text += " " + option + "=" + value;
    if (!key_columns.empty()) text += " message.key.columns=" + key_columns;
    return text;
}

FuzzConnector generate_connector(std::uint64_t seed, const std::string& name) {
    Rng rng(seed * 7919 + 17);
    FuzzConnector c;
    c.name = name;
    const int key = uniform(rng, 0, 2), value = uniform(rng, 0, 2), header = uniform(rng, 0, 2);
    c.key_converter = key == 0 ? kString : kJson;
    c.key_schemas = key == 2;
    c.value_converter = value == 0 ? kString : kJson;
    c.value_schemas = value == 2;
    c.header_converter = header == 0 ? kSimpleHeader : kJson;
    c.header_schemas = header == 2;
    c.time_mode = pick(rng, std::vector<std::string>{"adaptive", "adaptive_time_microseconds", "connect", "isostring"});
    c.decimal_mode = pick(rng, std::vector<std::string>{"precise", "double", "string"});
    c.binary_mode = pick(rng, std::vector<std::string>{"bytes", "base64", "base64-url-safe", "hex"});
    c.context_headers = chance(rng, 0.5);
    c.interval_mode = pick(rng, std::vector<std::string>{"numeric", "string"});
    c.hstore_mode = pick(rng, std::vector<std::string>{"json", "map"});
    c.money_fraction_digits = pick(rng, std::vector<int>{2, 0, 3});
    return c;
}

FuzzCase generate_case(int seed, const FuzzConnector& connector, int rows) {
    Rng rng(static_cast<std::uint64_t>(seed) * 104729 + 3);
    FuzzCase fc;
    fc.seed = seed;
    fc.schema = "fz" + std::to_string(seed);
    fc.topic = "fz." + std::to_string(seed);
    const bool string_values = connector.value_converter == kString;
    const bool pk_updates = chance(rng, 0.3);
    const bool uuid_id = chance(rng, 0.5);
    const bool jsonb_payload = chance(rng, 0.75);
    const bool expand = chance(rng, 0.5);
    const bool tombstones = chance(rng, 0.2);

    struct Extra {
        std::string name;
        const ColumnType* type;
        bool not_null;
    };
    std::vector<Extra> extras;
    const int n_extra = uniform(rng, 0, 5);
    for (int i = 0; i < n_extra; ++i) {
        const ColumnType& type = pick(rng, column_types());
        // A bytea or scale-less numeric as a Struct field under StringConverter: Debezium writes a
        // Java object's identity there (documented), so such a table keeps them out of envelopes.
        extras.push_back({"c" + std::to_string(i), &type, chance(rng, 0.3)});
    }
    const bool shard = chance(rng, 0.25);
    // The key a primary-key UPDATE changes (its old value the __debezium.oldkey header), drawn
    // apart so that the other draws stay as they were: the id (text or uuid as above, or bigint),
    // or the id with a second column of any type.
    Rng key_rng(static_cast<std::uint64_t>(seed) * 7877 + 11);
    const int key_shape = pk_updates ? uniform(key_rng, 0, 2) : 0;
    const bool bigint_id = key_shape == 1 && !uuid_id;
    const ColumnType* second_key = key_shape == 2 ? &pick(key_rng, column_types()) : nullptr;
    while (second_key && second_key->sql == "point") second_key = &pick(key_rng, column_types());  // no btree order
    // The moved row's payload stored out of line (TOAST, no compression): the UPDATE leaves it
    // unchanged, so pgoutput does not send it and both write unavailable.value.placeholder.
    Rng toast_rng(static_cast<std::uint64_t>(seed) * 6151 + 5);
    const bool toasted = pk_updates && chance(toast_rng, 0.5);
    // message.key.columns (drawn apart, as above): the record key of the table, which a
    // primary-key UPDATE's __debezium.oldkey carries; an UPDATE of only those columns sends no
    // old key, so both drop it as an update. A key column outside the primary key is absent from
    // the old key: null when nullable, else its default or its type's fallback. aggregateid
    // (nullable, NOT NULL, or NOT NULL with a default) never holds its fallback or default, so
    // the primary-key UPDATE always changes the key; a NOT NULL extra column of any type may join it.
    Rng keycols_rng(static_cast<std::uint64_t>(seed) * 5003 + 13);
    std::string aggregateid_constraint = " NOT NULL";
    if (chance(keycols_rng, 0.3)) {
        fc.key_columns = pick(keycols_rng, std::vector<std::string>{"aggregateid", "id,aggregateid", "aggregateid,id"});
        aggregateid_constraint = pick(keycols_rng, std::vector<std::string>{"", " NOT NULL", " NOT NULL DEFAULT 'dflt'"});
        std::vector<std::string> not_null_extras;
        for (const auto& e : extras)
            if (e.not_null && e.type->key) not_null_extras.push_back(e.name);
        if (!not_null_extras.empty() && chance(keycols_rng, 0.7)) fc.key_columns += "," + pick(keycols_rng, not_null_extras);
    }
    fc.columns = std::string("id ") + (uuid_id ? "uuid" : bigint_id ? "bigint" : "text") +
                 (pk_updates && !second_key ? " PRIMARY KEY" : " NOT NULL") + ", aggregatetype text NOT NULL, aggregateid text" +
                 aggregateid_constraint + ", payload " + (jsonb_payload ? "jsonb" : "text");
    for (const auto& e : extras) fc.columns += ", " + e.name + " " + e.type->sql + (e.not_null ? " NOT NULL" : "");
    if (shard) fc.columns += ", shard integer";
    // Arrays and domains, drawn apart so that the other draws stay as they were.
    Rng derived_rng(static_cast<std::uint64_t>(seed) * 9973 + 7);
    std::vector<std::pair<std::string, DerivedColumn>> derived;
    const int n_derived = uniform(derived_rng, 0, 3);
    for (int i = 0; i < n_derived; ++i) {
        const std::string name = "v" + std::to_string(i);
        derived.emplace_back(name, random_derived(derived_rng, fc.schema, name));
        fc.setup += derived.back().second.setup;
        fc.columns += ", " + name + " " + derived.back().second.sql;
    }
    if (second_key) fc.columns += ", kc " + second_key->sql + " NOT NULL, PRIMARY KEY (id, kc)";
    // table.field.event.timestamp (drawn apart): a timestamp column, or a domain over one, whose
    // value is the record's timestamp: around the epoch (Debezium truncates toward zero; -1 is
    // Kafka's "none", the time of producing in both; 0 is that time in the router only, as
    // librdkafka cannot send 0) or any instant to 2019. Debezium takes only a timestamp with a
    // Timestamp or MicroTimestamp schema: not under time.precision.mode isostring, nor connect
    // (it reads the field as a long, and Connect's Timestamp is a Date: its task fails the
    // record; documented). NOT NULL: a NULL is Debezium's processing time and the router's
    // commit time.
    Rng timestamp_rng(static_cast<std::uint64_t>(seed) * 3571 + 19);
    if ((connector.time_mode == "adaptive" || connector.time_mode == "adaptive_time_microseconds") &&
        chance(timestamp_rng, 0.25)) {
        std::string type = pick(timestamp_rng, std::vector<std::string>{"timestamp", "timestamp(0)", "timestamp(3)",
                                                                           "timestamp(6)", "domain"});
        if (type == "domain") {
            type = fc.schema + ".d_ets";
            fc.setup += "CREATE DOMAIN " + type + " AS " +
                        pick(timestamp_rng, std::vector<std::string>{"timestamp", "timestamp(3)"}) + "; ";
        }
        fc.columns += ", ets " + type + " NOT NULL";
        fc.options.push_back({"table.field.event.timestamp", "ets"});
        fc.event_timestamp = true;
    }

    fc.options.push_back({"route.topic.replacement", fc.topic});
    std::string placements;
    const auto place = [&](const std::string& item) { placements += (placements.empty() ? "" : ", ") + item; };
    std::vector<std::string> key_candidates;
    for (const auto& e : extras) {
        if (e.type->key && e.not_null) key_candidates.push_back(e.name);
        const bool identity_text = string_values && (e.type->sql == "bytea" || e.type->sql == "numeric" ||
                                                     e.type->sql == "bit(12)" || e.type->sql == "varbit" ||
                                                     e.type->sql == "point");
        const int where = uniform(rng, 0, 3);
        if (where == 1 || where == 3) place(e.name + ":header" + (chance(rng, 0.3) ? ":h_" + e.name : ""));
        if ((where == 2 || where == 3) && !identity_text) place(e.name + ":envelope" + (chance(rng, 0.3) ? ":e_" + e.name : ""));
    }
    for (const auto& [name, column] : derived) {
        // Struct text of a decimal without scale or of bytes is a Java object's identity (as above).
        const bool identity_text = string_values && (column.base->sql == "bytea" || column.base->sql == "numeric");
        const int where = uniform(derived_rng, 0, 3);
        if (where == 1 || where == 3) place(name + ":header");
        if ((where == 2 || where == 3) && !identity_text) place(name + ":envelope");
    }
    if (shard) place("shard:partition");
    const bool missing = chance(rng, 0.1);
    if (missing) place("nosuchcolumn:header");
    if (!placements.empty()) fc.options.push_back({"table.fields.additional.placement", placements});
    if (missing) fc.options.push_back({"table.field.additional.missing", "ignore"});
    if (!key_candidates.empty() && chance(rng, 0.4)) fc.options.push_back({"table.field.event.key", pick(rng, key_candidates)});
    // An array or domain as the key (a number element's or a key type's).
    // Never NULL then: a record without a key lands on a partition of the producer's choosing.
    std::string derived_key;
    for (const auto& [name, column] : derived)
        if (column.base->key && chance(derived_rng, 0.3) &&
            std::none_of(fc.options.begin(), fc.options.end(), [](const auto& o) { return o.first == "table.field.event.key"; })) {
            fc.options.push_back({"table.field.event.key", name});
            derived_key = name;
        }
    if (expand) {
        fc.options.push_back({"table.expand.json.payload", "true"});
        if (chance(rng, 0.3)) fc.options.push_back({"table.json.payload.null.behavior", "optional_bytes"});
    }
    if (tombstones) fc.options.push_back({"route.tombstone.on.empty.payload", "true"});

    std::vector<std::string> ids;
    std::string statement;
    for (int r = 0; r < rows; ++r) {
        std::string id = uuid_id ? random_uuid(rng) : "r" + std::to_string(seed) + "_" + std::to_string(r);
        if (bigint_id) id = std::to_string(static_cast<std::int64_t>(seed) * 1000 + r);
        ids.push_back(id);
        std::string payload;
        if (tombstones && chance(rng, 0.2)) {
            payload = jsonb_payload ? "NULL" : pick(rng, std::vector<std::string>{"NULL", "''", "$q$ \t $q$"});
        } else if (jsonb_payload || chance(rng, 0.6)) {
            // Expansion of a top-level array fails Debezium's task: rarely, to see both sides' handling.
            payload = dollar_quoted(chance(rng, 0.08) ? random_json_array(rng, 1) : "{" + [&] {
                std::string fields;
                const int n = uniform(rng, 0, 5);
                for (int i = 0; i < n; ++i)
                    fields += std::string(i ? ", " : "") + json_literal("f" + std::to_string(i) + random_text(rng, 1)) +
                              ": " + random_json(rng, 1);
                return fields;
            }() + "}");
        } else {
            // Text that is not JSON (no leading blank before JSON: documented).
            payload = dollar_quoted("p" + random_text(rng, 5));
        }
        if (toasted && r == 0)
            payload = jsonb_payload ? "jsonb_build_object('big', repeat(md5('" + id + "'), 100))" : "repeat(md5('" + id + "'), 100)";
        std::string values = quoted(id) + ", 'x', " + dollar_quoted("k" + random_text(rng, 2)) + ", " + payload;
        for (const auto& e : extras) {
            std::string value = !e.not_null && chance(rng, 0.15) ? "NULL" : e.type->literal(rng, connector);
            // The moved row's extension values out of line too: both write the placeholder.
            if (toasted && r == 0 && !toast_literal(e.type->sql).empty()) value = toast_literal(e.type->sql);
            values += ", " + value;
        }
        if (shard) values += ", " + (chance(rng, 0.2) ? std::string("NULL") : std::to_string(uniform(rng, 0, 2)));
        for (const auto& [name, column] : derived) {
            std::string value = name != derived_key && chance(derived_rng, 0.1) ? "NULL" : column.literal(derived_rng, connector);
            // The moved row's arrays out of line too: both write Debezium's placeholder for the type
            // (not the key's: the placeholder of most array types is null, and a record without a
            // key lands on a partition of the producer's choosing).
            if (toasted && r == 0 && column.array && name != derived_key)
                value = toast_array_literal(toast_rng, column, connector);
            values += ", " + value;
        }
        if (second_key) values += ", " + second_key->literal(key_rng, connector);
        if (fc.event_timestamp)
            values += ", " + (chance(timestamp_rng, 0.5)
                                  ? "TIMESTAMP " + pick(timestamp_rng, std::vector<std::string>{
                                                       "'1970-01-01 00:00:00'", "'1970-01-01 00:00:00.0004'",
                                                       "'1969-12-31 23:59:59.9995'", "'1969-12-31 23:59:59.999'",
                                                       "'1970-01-01 00:00:00.001'", "'1970-01-01 00:00:00.0019'"})
                                  : "TIMESTAMP 'epoch' + " +
                                        std::to_string(uniform(timestamp_rng, 0, 1'577'836'799)) + " * interval '1 second' + " +
                                        std::to_string(uniform(timestamp_rng, 0, 999'999)) + " * interval '1 microsecond'");
        statement += (statement.empty() ? "INSERT INTO " + fc.schema + ".outbox VALUES " : ", ") + std::string("(") + values + ")";
        ++fc.records;
        if (chance(rng, 0.5) || r + 1 == rows) {
            fc.statements.push_back(statement);
            statement.clear();
        }
    }
    if (toasted) {
        std::string storage = "ALTER TABLE " + fc.schema + ".outbox ALTER COLUMN payload SET STORAGE EXTERNAL";
        for (const auto& e : extras)
            if (!toast_literal(e.type->sql).empty()) storage += ", ALTER COLUMN " + e.name + " SET STORAGE EXTERNAL";
        for (const auto& [name, column] : derived)
            if (column.array) storage += ", ALTER COLUMN " + name + " SET STORAGE EXTERNAL";
        fc.statements.insert(fc.statements.begin(), storage);
    }
    // An UPDATE of the message.key.columns only (a table without a primary key takes none).
    if (!fc.key_columns.empty() && pk_updates && chance(keycols_rng, 0.5))
        fc.statements.push_back("UPDATE " + fc.schema + ".outbox SET aggregateid = aggregateid || 'u' WHERE id = " +
                                quoted(ids.back()));
    if (pk_updates) {
        // Move one row to a new key: Debezium's delete is dropped, its create routed.
        std::string new_id = uuid_id ? random_uuid(rng) : "moved" + std::to_string(seed);
        if (bigint_id) new_id = std::to_string(-static_cast<std::int64_t>(seed));
        fc.statements.push_back("UPDATE " + fc.schema + ".outbox SET id = " + quoted(new_id) + " WHERE id = " +
                                quoted(ids.front()));
        ++fc.records;
    }
    return fc;
}

}  // namespace outbox::test
