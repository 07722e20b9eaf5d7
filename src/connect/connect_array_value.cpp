// ConnectValueWriter for array columns: Debezium's PostgreSQL connector reads an array's text
// with pgjdbc's PgArray and converts each element as a column of the element type, into a Connect
// array (a java.util.List) whose schema is an array of the element's optional schema.
#include <algorithm>

#include "outbox/connect/connect_value.hpp"
#include "outbox/connect/pg_array.hpp"
#include "outbox/connect/timestamp_text.hpp"

namespace outbox::connect {
namespace {

constexpr std::uint32_t kBoxOid = 603;  // box[] separates its elements with ';'

const ColumnType& element_of(const ColumnType& type) {
    if (!type.element) throw ValueError("the array's element type is unknown");
    return *type.element;
}

std::vector<PgArrayElement> elements_of(const ColumnType& type, std::string_view text) {
    auto parsed = parse_pg_array(text, element_of(type).oid == kBoxOid ? ';' : ',');
    if (!parsed)
        throw ValueError("\"" + std::string(text.substr(0, 64)) + "\" is not an array's text as PostgreSQL writes it");
    return std::move(*parsed);
}

// A multi-dimensional array's top-level elements are its sub-arrays, which reach Debezium's
// element converter as Java arrays. The converters that take any object's text (text, varchar,
// uuid, json, jsonb, inet, ranges, ltree, enums, ...) write the array object's identity
// ("[Ljava.lang.String;@1b2c3d", which no one can reproduce: the router writes the sub-array's
// PostgreSQL text there); the others find no value they read and write null, in every mode:
// numbers, booleans, dates and times (timetz and timestamptz too), numeric, bytea, and the
// extensions' citext and hstore, whose converters read strings and PGobjects only.
bool sub_arrays_as_text(const ColumnType& element) {
    return (element.kind == ValueType::text || element.kind == ValueType::json) && element.name != "citext" &&
           element.name != "hstore";
}

std::string two_digits(std::int64_t n) { return {static_cast<char>('0' + n / 10), static_cast<char>('0' + n % 10)}; }

// The element as Debezium's converter gets it from pgjdbc. A time element is a java.sql.Time,
// which holds milliseconds (the microseconds are cut off) of a day (24:00:00 is midnight). A
// timetz element is a java.sql.Time of its UTC instant, which Debezium turns back into a UTC
// time through Time.toLocalTime(): whole seconds (the fraction is cut off).
std::string element_text(const ColumnType& element, const std::string& text) {
    if (element.kind == ValueType::timetz) {
        const auto micros = parse_timetz_utc_us(text);
        if (!micros) return text;  // the element's converter names the bad text
        const std::int64_t seconds = *micros / 1000000;
        return two_digits(seconds / 3600) + ":" + two_digits(seconds / 60 % 60) + ":" + two_digits(seconds % 60) + "+00";
    }
    if (element.kind != ValueType::time) return text;
    const auto point = text.find('.');
    std::string cut = point == std::string::npos || text.size() <= point + 4 ? text : text.substr(0, point + 4);
    if (cut.starts_with("24:")) cut.replace(0, 2, "00");
    return cut;
}

bool numeric_special(const std::vector<PgArrayElement>& elements) {
    for (const auto& element : elements) {
        if (element.kind == PgArrayElement::Kind::array && numeric_special(element.elements)) return true;
        if (element.kind == PgArrayElement::Kind::text &&
            (element.text == "NaN" || element.text == "Infinity" || element.text == "-Infinity"))
            return true;
    }
    return false;
}

}  // namespace

bool debezium_reads_array(const ColumnType& type, std::string_view text) {
    if (type.kind != ValueType::array || !type.element) return true;
    // Debezium's ltree[] converter takes each element's toString(): a NULL element fails it; an
    // enum[]'s schema requires its elements: a NULL element fails the record's Struct. Either way
    // (event.converting.failure.handling.mode warn, its default) the column is null.
    if (type.element->name == "ltree" || type.element->enum_values) {
        const auto elements = parse_pg_array(text);
        return !elements || std::none_of(elements->begin(), elements->end(), [](const PgArrayElement& element) {
            return element.kind == PgArrayElement::Kind::null;
        });
    }
    if (type.element->kind != ValueType::numeric) return true;
    const auto elements = parse_pg_array(text);
    return !elements || !numeric_special(*elements);
}

void ConnectValueWriter::append_embedded_header_text(std::string& out, const ColumnType& type,
                                                     std::string_view text) const {
    std::string scratch;
    const std::string_view header = header_text(type, text, scratch);
    // Values quotes Strings and bytes only: a precise decimal is a BigDecimal, a Number (its
    // Connect value is the unscaled bytes), and a double's NaN is bare too.
    const Value::Kind kind = value(type, text).kind;
    const bool big_decimal = type.kind == ValueType::numeric && type.numeric_has_scale() &&
                             modes_.decimal == config::DecimalHandlingMode::precise;
    if (kind == Value::Kind::string || (kind == Value::Kind::bytes && !big_decimal)) append_backslash_quoted(out, header);
    else out += header;
}

void ConnectValueWriter::append_array(std::string& out, const ColumnType& type, std::string_view text,
                                      ArrayForm form) const {
    const ColumnType& element = element_of(type);
    const auto elements = elements_of(type, text);
    const bool sub_array_text = sub_arrays_as_text(element);
    out += '[';
    bool first = true;
    for (const auto& item : elements) {
        if (!std::exchange(first, false)) out += form == ArrayForm::java_list ? ", " : ",";
        if (item.kind == PgArrayElement::Kind::null || (item.kind == PgArrayElement::Kind::array && !sub_array_text)) {
            out += "null";
            continue;
        }
        const bool sub_array = item.kind == PgArrayElement::Kind::array;
        const std::string text_of_item = sub_array ? std::string() : element_text(element, item.text);
        switch (form) {
            case ArrayForm::json:
                if (sub_array) append_json_string(out, item.source);
                else append_json(out, element, text_of_item);
                break;
            case ArrayForm::java_list:
                if (sub_array) out += item.source;
                else append_struct_field(out, element, text_of_item);
                break;
            case ArrayForm::header:
                if (sub_array) append_backslash_quoted(out, item.source);
                else append_embedded_header_text(out, element, text_of_item);
                break;
        }
    }
    out += ']';
}

Value ConnectValueWriter::array_value(const ColumnType& type, std::string_view text) const {
    const ColumnType& element = element_of(type);
    const bool sub_array_text = sub_arrays_as_text(element);
    std::vector<Value> items;
    for (const auto& item : elements_of(type, text)) {
        if (item.kind == PgArrayElement::Kind::text) items.push_back(value(element, element_text(element, item.text)));
        else if (item.kind == PgArrayElement::Kind::array && sub_array_text)
            items.push_back(Value::of_string(std::string(item.source)));
        else items.push_back(Value::null());
    }
    return Value::of_array(std::move(items));
}

}  // namespace outbox::connect
