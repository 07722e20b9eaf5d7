#include "outbox/connect/not_null_fallback.hpp"

namespace outbox::connect {

NotNullFallback not_null_fallback(const ColumnType& type, const config::ValueModes& modes) {
    switch (type.kind) {
        case ValueType::boolean: return {type, "f"};
        case ValueType::integer:
        case ValueType::float32:
        case ValueType::float64: return {type, "0"};
        case ValueType::money:  // BigDecimal.ZERO at money.fraction.digits
            return {type, modes.money_fraction_digits > 0
                              ? "0." + std::string(static_cast<std::size_t>(modes.money_fraction_digits), '0')
                              : std::string("0")};
        case ValueType::numeric:
            // BigDecimal.ZERO with the column's scale.
            return {type, type.numeric_has_scale() && type.numeric_scale() > 0
                              ? "0." + std::string(static_cast<std::size_t>(type.numeric_scale()), '0')
                              : std::string("0")};
        case ValueType::bytea: return {type, "\\x"};
        case ValueType::date: return {type, "1970-01-01"};
        case ValueType::time: return {type, "00:00:00"};
        case ValueType::timestamp: return {type, "1970-01-01 00:00:00"};
        case ValueType::timestamptz: {
            // Made once for every column, without the column's fractional digits.
            ColumnType whole_seconds = type;
            whole_seconds.modifier = 0;
            return {whole_seconds, "1970-01-01 00:00:00+00"};
        }
        case ValueType::timetz: return {type, "00:00:00+00"};
        case ValueType::interval: return {type, "00:00:00"};
        case ValueType::array: return {type, "{}"};
        case ValueType::bits: return {type, type.modifier == 1 ? "0" : ""};
        case ValueType::point: return {type, "(0,0)"};
        case ValueType::text:     // also uuid, json, citext, ltree, enums, ranges: the empty string;
        case ValueType::json:     // hstore's empty map, written as "{}" under hstore.handling.mode json
        case ValueType::untyped:
            return {type, ""};
    }
    return {type, ""};
}

}  // namespace outbox::connect
