#include "outbox/connect/connect_value.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "outbox/connect/bit_string.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/decimal_number.hpp"
#include "outbox/connect/geometry_value.hpp"
#include "outbox/connect/hstore_value.hpp"
#include "outbox/connect/interval_value.hpp"
#include "outbox/connect/java_text.hpp"
#include "outbox/connect/money_value.hpp"
#include "outbox/connect/timestamp_text.hpp"

namespace outbox::connect {

using config::BinaryHandlingMode;
using config::DecimalHandlingMode;
using config::TimePrecisionMode;

int ColumnType::fractional_digits() const { return modifier >= 0 && modifier <= 6 ? modifier : 6; }
// numeric's atttypmod is ((precision << 16) | scale) + VARHDRSZ.
bool ColumnType::numeric_has_scale() const { return modifier >= 4; }
int ColumnType::numeric_precision() const { return (modifier - 4) >> 16 & 0xffff; }
int ColumnType::numeric_scale() const { return (modifier - 4) & 0xffff; }

// The Connect value: its Java text, or what the converters need of it.
struct ConnectValueWriter::Converted {
    enum class Kind {
        string,            // a Java String
        number,            // a Java number or boolean: bare in JSON
        non_finite,        // a double's NaN or infinity: a JSON string
        bytes,             // a ByteBuffer
        decimal,           // a BigDecimal of a fixed scale (Connect's Decimal): `text` and unscaled `bytes`
        variable_decimal,  // Debezium's VariableScaleDecimal struct: `scale` and unscaled `bytes`
        date,              // a java.util.Date (time.precision.mode connect); `text` is JsonConverter's number
        point,             // Debezium's Point struct: x (`floating`), y, and its WKB `bytes`; srid null
        map,               // a java.util.HashMap of strings (hstore.handling.mode map): `pairs`
    };
    Kind kind = Kind::string;
    std::string_view text;
    std::string_view bytes;
    int scale = 0;
    std::int64_t epoch_ms = 0;
    std::int64_t integer = 0;  // a number built here (not an integer column's own text)
    double floating = 0;       // a float's or a double's value, non_finite ones included
    double y = 0;              // a point's
    bool byte_array = false;   // bytes that Debezium holds as a byte[] (Bits), not a ByteBuffer
    HstorePairs pairs;         // a map's, in the HashMap's order
};

namespace {

[[noreturn]] void not_type_text(const ColumnType& type, std::string_view text) {
    throw ValueError("\"" + std::string(text.substr(0, 64)) + "\" is not " + value_type_name(type.kind) +
                     " text as PostgreSQL writes it (DateStyle ISO, IntervalStyle postgres)");
}

template <typename Number>
std::optional<Number> parse_number(std::string_view text) {
    Number value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// BigDecimal.doubleValue(): the nearest double; past the largest an infinity, below the
// smallest a zero, each with the number's sign.
std::optional<double> decimal_as_double(std::string_view text) {
    // A number's digits only: from_chars also reads "nan" and "inf" in any case, which PostgreSQL
    // never writes (its NaN and infinities are matched before).
    if (text.find_first_not_of("0123456789.-+eE") != std::string_view::npos) return std::nullopt;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (end != text.data() + text.size()) return std::nullopt;
    if (error == std::errc{}) return value;
    if (error != std::errc::result_out_of_range) return std::nullopt;
    const auto decimal = DecimalNumber::parse(text);
    if (!decimal) return std::nullopt;
    const bool huge = static_cast<long>(decimal->digits.size()) - 1 - decimal->scale > 0;
    const double magnitude = huge ? std::numeric_limits<double>::infinity() : 0.0;
    return decimal->negative ? -magnitude : magnitude;
}

void append_base64_with(std::string& out, std::string_view bytes, bool url_safe) {
    const auto start = out.size();
    append_base64(out, bytes);
    if (url_safe)
        for (auto i = start; i < out.size(); ++i) out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
}

void append_hex(std::string& out, std::string_view bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (const char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        out += {kHex[b >> 4], kHex[b & 15]};
    }
}

}  // namespace

ConnectValueWriter::Converted ConnectValueWriter::value_of(const ColumnType& type, std::string_view text,
                                                       std::string& owned) const {
    using Kind = Converted::Kind;
    Converted v;
    v.text = text;
    const auto number = [&](std::int64_t n) {
        owned = std::to_string(n);
        v.integer = n;
        v.kind = Kind::number;
        v.text = owned;
    };
    const auto string = [&](std::string s) {
        owned = std::move(s);
        v.kind = Kind::string;
        v.text = owned;
    };
    const auto java_date = [&](std::int64_t epoch_ms, std::int64_t json_number) {
        owned = std::to_string(json_number);
        v.integer = json_number;
        v.kind = Kind::date;
        v.text = owned;
        v.epoch_ms = epoch_ms;
    };
    switch (type.kind) {
        case ValueType::boolean:
            v.kind = Kind::number;
            v.text = text == "t" ? "true" : text == "f" ? "false" : text;
            return v;
        case ValueType::integer: v.kind = Kind::number; return v;
        case ValueType::float32:
        case ValueType::float64: {
            const auto parsed = parse_number<double>(text);
            if (!parsed) not_type_text(type, text);
            // A real's value is the float nearest the text (a text past its range is infinite).
            const double value = type.kind == ValueType::float32 ? static_cast<float>(*parsed) : *parsed;
            v.floating = value;
            if (!std::isfinite(value)) {
                v.kind = Kind::non_finite;
                v.text = std::isnan(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
                return v;
            }
            owned = type.kind == ValueType::float32 ? java_float_text(static_cast<float>(value)) : java_double_text(value);
            v.kind = Kind::number;
            v.text = owned;
            return v;
        }
        case ValueType::numeric: {
            const bool special = text == "NaN" || text == "Infinity" || text == "-Infinity";
            if (modes_.decimal == DecimalHandlingMode::as_string) {
                v.kind = Kind::string;
                if (special) v.text = text == "NaN" ? "NAN" : text == "Infinity" ? "POSITIVE_INFINITY" : "NEGATIVE_INFINITY";
                return v;
            }
            if (modes_.decimal == DecimalHandlingMode::as_double) {
                if (special) {
                    v.kind = Kind::non_finite;
                    v.floating = text == "NaN" ? std::numeric_limits<double>::quiet_NaN()
                                               : (text == "Infinity" ? 1 : -1) * std::numeric_limits<double>::infinity();
                    return v;
                }
                const auto value = decimal_as_double(text);
                if (!value) not_type_text(type, text);
                v.floating = *value;
                if (std::isinf(*value)) {
                    v.kind = Kind::non_finite;
                    v.text = *value > 0 ? "Infinity" : "-Infinity";
                    return v;
                }
                owned = java_double_text(*value);
                v.kind = Kind::number;
                v.text = owned;
                return v;
            }
            if (special)
                throw ValueError(std::string(text) +
                                 " cannot be a decimal (decimal.handling.mode precise, as in Debezium); "
                                 "decimal.handling.mode string or double can write it");
            auto decimal = DecimalNumber::parse(text);
            if (!decimal) not_type_text(type, text);
            if (!type.numeric_has_scale()) {
                const DecimalNumber stripped = decimal->stripped();
                bytes_ = stripped.unscaled_bytes();
                v.kind = Kind::variable_decimal;
                v.scale = stripped.scale;
                v.bytes = bytes_;
                return v;
            }
            owned = decimal->java_text();
            bytes_ = decimal->unscaled_bytes();
            v.kind = Kind::decimal;
            v.text = owned;
            v.bytes = bytes_;
            return v;
        }
        case ValueType::bytea: {
            if (!decode_bytea(text, bytes_)) throw ValueError("the bytea text cannot be decoded");
            if (modes_.binary == BinaryHandlingMode::bytes) {
                v.kind = Kind::bytes;
                v.bytes = bytes_;
                return v;
            }
            owned.clear();
            if (modes_.binary == BinaryHandlingMode::hex) append_hex(owned, bytes_);
            else append_base64_with(owned, bytes_, modes_.binary == BinaryHandlingMode::base64_url_safe);
            v.kind = Kind::string;
            v.text = owned;
            return v;
        }
        case ValueType::timestamptz: {
            if (text == "infinity" || text == "-infinity") return v;  // ZonedTimestamp keeps the word
            const auto micros = parse_timestamp_us(text);
            if (!micros) not_type_text(type, text);
            const int digits = type.fractional_digits();
            string(iso_date_time(*micros, digits));
            return v;
        }
        case ValueType::timestamp: {
            const auto micros = parse_timestamp_us(text);
            if (!micros) not_type_text(type, text);
            const std::int64_t millis = floor_div(*micros, 1000);
            switch (modes_.time) {
                case TimePrecisionMode::connect: java_date(millis, millis); return v;
                case TimePrecisionMode::isostring: string(iso_date_time(*micros, 0)); return v;
                default: number(type.fractional_digits() <= 3 ? millis : *micros); return v;
            }
        }
        case ValueType::date: {
            const auto days = parse_date_days(text);
            if (!days) not_type_text(type, text);
            switch (modes_.time) {
                case TimePrecisionMode::connect: java_date(*days * 86400000, *days); return v;
                case TimePrecisionMode::isostring: string(iso_date(*days)); return v;
                default: number(*days); return v;
            }
        }
        case ValueType::time: {
            const auto micros = parse_time_us(text);
            if (!micros) not_type_text(type, text);
            switch (modes_.time) {
                case TimePrecisionMode::connect: java_date(*micros / 1000, *micros / 1000); return v;
                case TimePrecisionMode::isostring: string(iso_time(*micros)); return v;
                case TimePrecisionMode::adaptive_time_microseconds: number(*micros); return v;
                default: number(type.fractional_digits() <= 3 ? *micros / 1000 : *micros); return v;
            }
        }
        case ValueType::timetz: {
            const auto micros = parse_timetz_utc_us(text);
            if (!micros) not_type_text(type, text);
            string(iso_time(*micros));
            return v;
        }
        case ValueType::interval: {
            const auto parts = IntervalParts::parse(text);
            if (!parts) not_type_text(type, text);
            if (modes_.interval == config::IntervalHandlingMode::string) string(parts->iso_text());
            else number(parts->micro_duration());
            return v;
        }
        case ValueType::money: {
            const auto money = parse_money(text);
            if (!money)
                throw ValueError("\"" + std::string(text.substr(0, 64)) +
                                 "\" is not money Debezium can read (lc_monetary must put one currency character "
                                 "before the amount and use a decimal point, as C and en_US do)");
            if (modes_.decimal == DecimalHandlingMode::as_string) {
                string(money->plain_text());
            } else if (modes_.decimal == DecimalHandlingMode::as_double) {
                v.floating = decimal_as_double(money->plain_text()).value_or(0);
                owned = java_double_text(v.floating);
                // Past a double's range (never PostgreSQL's money, whose range is 64 bits): Infinity.
                v.kind = std::isfinite(v.floating) ? Kind::number : Kind::non_finite;
                v.text = owned;
            } else {
                const DecimalNumber scaled = with_scale_half_up(*money, modes_.money_fraction_digits);
                owned = scaled.java_text();
                bytes_ = scaled.unscaled_bytes();
                v.kind = Kind::decimal;
                v.text = owned;
                v.bytes = bytes_;
            }
            return v;
        }
        case ValueType::bits: {
            if (type.modifier == 1) {  // bit(1), varbit(1): a boolean
                const auto bit = bit_boolean(text);
                if (!bit) not_type_text(type, text);
                v.kind = Kind::number;
                v.text = *bit ? "true" : "false";
                return v;
            }
            auto bytes = bits_bytes(text);
            if (!bytes) not_type_text(type, text);
            bytes_ = std::move(*bytes);
            v.kind = Kind::bytes;
            v.bytes = bytes_;
            v.byte_array = true;
            return v;
        }
        case ValueType::point: {
            const auto point = parse_point(text);
            if (!point) not_type_text(type, text);
            bytes_ = point_wkb(*point);
            v.kind = Kind::point;
            v.floating = point->x;
            v.y = point->y;
            v.bytes = bytes_;
            return v;
        }
        default:
            if (type.kind == ValueType::text && type.name == "hstore") {
                auto pairs = parse_hstore(text);
                if (!pairs) not_type_text(type, text);
                v.pairs = java_hash_map_order(*pairs);
                if (modes_.hstore == config::HStoreHandlingMode::map) {
                    v.kind = Kind::map;
                } else {
                    string(hstore_json(v.pairs));
                }
            }
            return v;  // text, json, uuid, citext, ltree and the rest: a Java String
    }
}

namespace {

// The column's text itself is returned as is; anything built is copied to the caller's buffer,
// which outlives this call.
std::string_view kept(std::string_view view, std::string_view input, std::string& scratch) {
    if (view.data() >= input.data() && view.data() + view.size() <= input.data() + input.size()) return view;
    scratch.assign(view);
    return scratch;
}

// A point as JsonConverter (schemas.enable=false; non-finite coordinates quoted, as Jackson
// quotes them) or SimpleHeaderConverter (bare) writes Debezium's Point struct.
void append_point_json(std::string& out, double x, double y, std::string_view wkb, bool quote_non_finite) {
    const auto coordinate = [&](double value) {
        const std::string text = java_double_text(value);
        if (quote_non_finite && !std::isfinite(value)) append_json_string(out, text);
        else out += text;
    };
    out += "{\"x\":";
    coordinate(x);
    out += ",\"y\":";
    coordinate(y);
    out += ",\"wkb\":\"";
    append_base64(out, wkb);
    out += "\",\"srid\":null}";
}

// Struct.toString() of a Point: srid (null) left out, and the WKB, which Java prints as the byte
// array's identity, in Base64.
void append_point_struct_text(std::string& out, double x, double y, std::string_view wkb) {
    out += "Struct{x=" + java_double_text(x) + ",y=" + java_double_text(y) + ",wkb=";
    append_base64(out, wkb);
    out += '}';
}

// A map's Java text (AbstractMap.toString()): "{a=1, b=null}".
void append_map_text(std::string& out, const HstorePairs& pairs) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : pairs) {
        if (!std::exchange(first, false)) out += ", ";
        out += key + "=" + value.value_or("null");
    }
    out += '}';
}

void append_struct(std::string& out, int scale, std::string_view unscaled) {
    out += "{\"scale\":" + std::to_string(scale) + ",\"value\":\"";
    append_base64(out, unscaled);
    out += "\"}";
}

}  // namespace

std::string_view ConnectValueWriter::string_text(const ColumnType& type, std::string_view text,
                                                 std::string& scratch) const {
    if (type.kind == ValueType::array) {
        scratch.clear();
        append_array(scratch, type, text, ArrayForm::java_list);
        return scratch;
    }
    std::string owned;
    const Converted v = value_of(type, text, owned);
    switch (v.kind) {
        case Converted::Kind::bytes: scratch.assign(v.bytes); return scratch;
        case Converted::Kind::variable_decimal:
            scratch.clear();
            append_struct(scratch, v.scale, v.bytes);
            return scratch;
        case Converted::Kind::date: scratch = java_date_text(v.epoch_ms); return scratch;
        case Converted::Kind::point:
            scratch.clear();
            append_point_struct_text(scratch, v.floating, v.y, v.bytes);
            return scratch;
        case Converted::Kind::map:
            scratch.clear();
            append_map_text(scratch, v.pairs);
            return scratch;
        default: return kept(v.text, text, scratch);
    }
}

std::string_view ConnectValueWriter::header_text(const ColumnType& type, std::string_view text,
                                                 std::string& scratch) const {
    if (type.kind == ValueType::array) {
        scratch.clear();
        append_array(scratch, type, text, ArrayForm::header);
        return scratch;
    }
    std::string owned;
    const Converted v = value_of(type, text, owned);
    switch (v.kind) {
        case Converted::Kind::bytes:
            scratch.clear();
            append_base64(scratch, v.bytes);
            return scratch;
        case Converted::Kind::variable_decimal:
            scratch.clear();
            append_struct(scratch, v.scale, v.bytes);
            return scratch;
        case Converted::Kind::date: scratch = connect_header_date_text(v.epoch_ms); return scratch;
        case Converted::Kind::point:
            scratch.clear();
            append_point_json(scratch, v.floating, v.y, v.bytes, false);
            return scratch;
        case Converted::Kind::map: scratch = hstore_header_text(v.pairs); return scratch;
        default: return kept(v.text, text, scratch);
    }
}

void ConnectValueWriter::append_json(std::string& out, const ColumnType& type, std::string_view text) const {
    if (type.kind == ValueType::array) return append_array(out, type, text, ArrayForm::json);
    std::string owned;
    const Converted v = value_of(type, text, owned);
    switch (v.kind) {
        case Converted::Kind::string:
        case Converted::Kind::non_finite: append_json_string(out, v.text); return;
        case Converted::Kind::number:
        case Converted::Kind::date: out += v.text; return;
        case Converted::Kind::bytes:
        case Converted::Kind::decimal:
            out += '"';
            append_base64(out, v.bytes);
            out += '"';
            return;
        case Converted::Kind::variable_decimal: append_struct(out, v.scale, v.bytes); return;
        case Converted::Kind::point: append_point_json(out, v.floating, v.y, v.bytes, true); return;
        case Converted::Kind::map: append_pairs_object(out, v.pairs, append_json_string); return;
    }
}

void ConnectValueWriter::append_struct_field(std::string& out, const ColumnType& type, std::string_view text) const {
    if (type.kind == ValueType::array) return append_array(out, type, text, ArrayForm::java_list);
    std::string owned;
    const Converted v = value_of(type, text, owned);
    switch (v.kind) {
        case Converted::Kind::bytes: {
            if (v.byte_array) {  // Java prints a byte[]'s identity: Base64 instead
                append_base64(out, v.bytes);
                return;
            }
            const auto size = std::to_string(v.bytes.size());
            out += "java.nio.HeapByteBuffer[pos=0 lim=" + size + " cap=" + size + "]";
            return;
        }
        case Converted::Kind::variable_decimal:
            out += "Struct{scale=" + std::to_string(v.scale) + ",value=";
            append_base64(out, v.bytes);
            out += '}';
            return;
        case Converted::Kind::date: out += java_date_text(v.epoch_ms); return;
        case Converted::Kind::point: append_point_struct_text(out, v.floating, v.y, v.bytes); return;
        case Converted::Kind::map: append_map_text(out, v.pairs); return;
        default: out += v.text; return;
    }
}

Value ConnectValueWriter::value(const ColumnType& type, std::string_view text) const {
    if (type.kind == ValueType::array) return array_value(type, text);
    std::string owned;
    const Converted v = value_of(type, text, owned);
    const Schema::Type schema_type = column_schema_type(type, modes_);
    switch (v.kind) {
        case Converted::Kind::string: return Value::of_string(std::string(v.text));
        case Converted::Kind::non_finite: return Value::of_floating(value_kind(schema_type), v.floating);
        case Converted::Kind::bytes:
        case Converted::Kind::decimal: return Value::of_bytes(std::string(v.bytes));
        case Converted::Kind::variable_decimal:
            return Value::of_struct(
                {Value::of_integer(Value::Kind::int32, v.scale), Value::of_bytes(std::string(v.bytes))});
        case Converted::Kind::point:
            return Value::of_struct({Value::of_floating(Value::Kind::float64, v.floating),
                                     Value::of_floating(Value::Kind::float64, v.y),
                                     Value::of_bytes(std::string(v.bytes)), Value::null()});
        case Converted::Kind::map: {
            Value map;
            map.kind = Value::Kind::map;
            for (const auto& [key, item] : v.pairs)
                map.entries.push_back({Value::of_string(key), item ? Value::of_string(*item) : Value::null()});
            return map;
        }
        case Converted::Kind::number:
        case Converted::Kind::date: break;
    }
    switch (schema_type) {
        case Schema::Type::boolean:
            if (v.text != "true" && v.text != "false") not_type_text(type, text);
            return Value::of_boolean(v.text == "true");
        case Schema::Type::float32:
        case Schema::Type::float64: return Value::of_floating(value_kind(schema_type), v.floating);
        default: break;
    }
    if (type.kind != ValueType::integer) return Value::of_integer(value_kind(schema_type), v.integer);
    // The column's own text, as PostgreSQL writes it (no sign but '-', no leading zero, no -0): JSON
    // passes that text through, and a typed value must write the same number.
    const auto integer = parse_number<std::int64_t>(text);
    const bool negative = text.starts_with('-');
    const std::string_view digits = negative ? text.substr(1) : text;
    if (!integer || (digits.starts_with('0') && (digits.size() > 1 || negative))) not_type_text(type, text);
    return Value::of_integer(value_kind(schema_type), *integer);
}

}  // namespace outbox::connect
