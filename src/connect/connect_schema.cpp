#include "outbox/connect/connect_schema.hpp"

#include "outbox/connect/connect_json.hpp"

namespace outbox::connect {

using config::BinaryHandlingMode;
using config::DecimalHandlingMode;
using config::TimePrecisionMode;
using Type = Schema::Type;

namespace {

// A column's schema before optionality and default: its type and, for Debezium's and Connect's
// logical types, the name (version 1), doc and parameters.
struct SchemaShape {
    Type type;
    const char* name = nullptr;
    const char* doc = nullptr;
    bool decimal_parameters = false;
    std::optional<std::pair<const char*, std::string>> parameter = std::nullopt;  // a logical type's only parameter
    bool point_fields = false;
};

SchemaShape shape_of(const ColumnType& type, const config::ValueModes& modes) {
    const bool connect = modes.time == TimePrecisionMode::connect;
    const bool iso = modes.time == TimePrecisionMode::isostring;
    switch (type.kind) {
        case ValueType::boolean: return {Type::boolean};
        case ValueType::integer:
            return {type.oid == pg_oid::kInt2 ? Type::int16 : type.oid == pg_oid::kInt4 ? Type::int32 : Type::int64};
        case ValueType::float32: return {Type::float32};
        case ValueType::float64: return {Type::float64};
        case ValueType::numeric:
            if (modes.decimal == DecimalHandlingMode::as_double) return {Type::float64};
            if (modes.decimal == DecimalHandlingMode::as_string) return {Type::string};
            if (!type.numeric_has_scale())
                return {Type::structure, "io.debezium.data.VariableScaleDecimal", "Variable scaled decimal"};
            return {Type::bytes, "org.apache.kafka.connect.data.Decimal", nullptr, true};
        case ValueType::json: return {Type::string, "io.debezium.data.Json"};
        case ValueType::bytea: return {modes.binary == BinaryHandlingMode::bytes ? Type::bytes : Type::string};
        case ValueType::timestamptz: return {Type::string, "io.debezium.time.ZonedTimestamp"};
        case ValueType::timetz: return {Type::string, "io.debezium.time.ZonedTime"};
        case ValueType::interval:
            if (modes.interval == config::IntervalHandlingMode::string) return {Type::string, "io.debezium.time.Interval"};
            return {Type::int64, "io.debezium.time.MicroDuration"};
        case ValueType::money:
            if (modes.decimal == DecimalHandlingMode::as_double) return {Type::float64};
            if (modes.decimal == DecimalHandlingMode::as_string) return {Type::string};
            return {Type::bytes, "org.apache.kafka.connect.data.Decimal", nullptr, false,
                    std::pair{"scale", std::to_string(modes.money_fraction_digits)}};
        case ValueType::bits:
            if (type.modifier == 1) return {Type::boolean};
            // An unbounded varbit's length is the JDBC driver's unknown length, Integer.MAX_VALUE.
            return {Type::bytes, "io.debezium.data.Bits", nullptr, false,
                    std::pair{"length", std::to_string(type.modifier < 0 ? 2147483647 : type.modifier)}};
        case ValueType::point:
            return {Type::structure, "io.debezium.data.geometry.Point", "Geometry (POINT)", false, std::nullopt, true};
        case ValueType::array: return {Type::array};
        case ValueType::timestamp:
            if (connect) return {Type::int64, "org.apache.kafka.connect.data.Timestamp"};
            if (iso) return {Type::string, "io.debezium.time.IsoTimestamp"};
            return type.fractional_digits() <= 3 ? SchemaShape{Type::int64, "io.debezium.time.Timestamp"}
                                                 : SchemaShape{Type::int64, "io.debezium.time.MicroTimestamp"};
        case ValueType::date:
            if (connect) return {Type::int32, "org.apache.kafka.connect.data.Date"};
            if (iso) return {Type::string, "io.debezium.time.IsoDate"};
            return {Type::int32, "io.debezium.time.Date"};
        case ValueType::time:
            if (connect) return {Type::int32, "org.apache.kafka.connect.data.Time"};
            if (iso) return {Type::string, "io.debezium.time.IsoTime"};
            if (modes.time == TimePrecisionMode::adaptive && type.fractional_digits() <= 3)
                return {Type::int32, "io.debezium.time.Time"};
            return {Type::int64, "io.debezium.time.MicroTime"};
        default:
            // Extension types by name, as Debezium's TypeRegistry finds them.
            if (type.name == "hstore")
                return modes.hstore == config::HStoreHandlingMode::map ? SchemaShape{Type::map}
                                                                        : SchemaShape{Type::string, "io.debezium.data.Json"};
            if (type.name == "ltree") return {Type::string, "io.debezium.data.Ltree"};
            if (type.enum_values)
                return {Type::string, "io.debezium.data.Enum", nullptr, false,
                        std::pair<const char*, std::string>{"allowed", *type.enum_values}};
            return {Type::string, type.oid == pg_oid::kUuid ? "io.debezium.data.Uuid" : nullptr};
    }
}

SchemaPtr required(Type type, bool optional = false) {
    auto schema = std::make_shared<Schema>();
    schema->type = type;
    schema->optional = optional;
    return schema;
}

}  // namespace

Schema::Type column_schema_type(const ColumnType& type, const config::ValueModes& modes) {
    return shape_of(type, modes).type;
}

Schema column_schema(const ColumnType& type, const config::ValueModes& modes, bool optional,
                     std::optional<Value> default_value) {
    const SchemaShape shape = shape_of(type, modes);
    Schema schema;
    schema.type = shape.type;
    schema.optional = optional;
    if (shape.point_fields)
        schema.fields = {{"x", required(Type::float64)},
                         {"y", required(Type::float64)},
                         {"wkb", required(Type::bytes, true)},
                         {"srid", required(Type::int32, true)}};
    else if (shape.type == Type::map) {  // hstore: keys are never null, values may be
        schema.keys = required(Type::string);
        schema.values = required(Type::string, true);
    } else if (shape.type == Type::structure)  // VariableScaleDecimal
        schema.fields = {{"scale", required(Type::int32)}, {"value", required(Type::bytes)}};
    // An array's elements have their column type's schema, optional (SchemaBuilder.array of it),
    // but an enum's, which Debezium's array schema takes as its Enum builder makes it: required.
    if (shape.type == Type::array && type.element)
        schema.items = std::make_shared<Schema>(
            column_schema(*type.element, modes, !type.element->enum_values.has_value(), std::nullopt));
    if (shape.name) {
        schema.name = shape.name;
        schema.version = 1;
    }
    if (shape.doc) schema.doc = shape.doc;
    if (shape.decimal_parameters)
        schema.parameters = {{"scale", std::to_string(type.numeric_scale())},
                             {"connect.decimal.precision", std::to_string(type.numeric_precision())}};
    if (shape.parameter) schema.parameters = {{shape.parameter->first, shape.parameter->second}};
    schema.default_value = std::move(default_value);
    return schema;
}

void append_connect_schema(std::string& out, const ColumnType& type, const config::ValueModes& modes, bool optional,
                           const std::optional<Value>& default_value) {
    append_schema_json(out, column_schema(type, modes, optional, default_value));
}

}  // namespace outbox::connect
