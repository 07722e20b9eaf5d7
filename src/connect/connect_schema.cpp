#include "outbox/connect/connect_schema.hpp"

namespace outbox::connect {

using config::BinaryHandlingMode;
using config::DecimalHandlingMode;
using config::TimePrecisionMode;

namespace {

// A schema's JSON as JsonConverter writes it: type, then fields, optional, name, version, doc,
// parameters, default.
struct SchemaShape {
    const char* type;
    const char* name = nullptr;
    const char* doc = nullptr;
    std::string parameters = {};  // the object's members, without braces
};

SchemaShape shape_of(const ColumnType& type, const config::ValueModes& modes) {
    const bool connect = modes.time == TimePrecisionMode::connect;
    const bool iso = modes.time == TimePrecisionMode::isostring;
    switch (type.kind) {
        case ValueType::boolean: return {"boolean"};
        case ValueType::integer:
            return {type.oid == pg_oid::kInt2 ? "int16" : type.oid == pg_oid::kInt4 ? "int32" : "int64"};
        case ValueType::float32: return {"float"};
        case ValueType::float64: return {"double"};
        case ValueType::numeric:
            if (modes.decimal == DecimalHandlingMode::as_double) return {"double"};
            if (modes.decimal == DecimalHandlingMode::as_string) return {"string"};
            if (!type.numeric_has_scale())
                return {"struct", "io.debezium.data.VariableScaleDecimal", "Variable scaled decimal"};
            return {"bytes", "org.apache.kafka.connect.data.Decimal", nullptr,
                    "\"scale\":\"" + std::to_string(type.numeric_scale()) + "\",\"connect.decimal.precision\":\"" +
                        std::to_string(type.numeric_precision()) + "\""};
        case ValueType::json: return {"string", "io.debezium.data.Json"};
        case ValueType::bytea: return {modes.binary == BinaryHandlingMode::bytes ? "bytes" : "string"};
        case ValueType::timestamptz: return {"string", "io.debezium.time.ZonedTimestamp"};
        case ValueType::timetz: return {"string", "io.debezium.time.ZonedTime"};
        case ValueType::interval: return {"int64", "io.debezium.time.MicroDuration"};
        case ValueType::timestamp:
            if (connect) return {"int64", "org.apache.kafka.connect.data.Timestamp"};
            if (iso) return {"string", "io.debezium.time.IsoTimestamp"};
            return type.fractional_digits() <= 3 ? SchemaShape{"int64", "io.debezium.time.Timestamp"}
                                                 : SchemaShape{"int64", "io.debezium.time.MicroTimestamp"};
        case ValueType::date:
            if (connect) return {"int32", "org.apache.kafka.connect.data.Date"};
            if (iso) return {"string", "io.debezium.time.IsoDate"};
            return {"int32", "io.debezium.time.Date"};
        case ValueType::time:
            if (connect) return {"int32", "org.apache.kafka.connect.data.Time"};
            if (iso) return {"string", "io.debezium.time.IsoTime"};
            if (modes.time == TimePrecisionMode::adaptive && type.fractional_digits() <= 3)
                return {"int32", "io.debezium.time.Time"};
            return {"int64", "io.debezium.time.MicroTime"};
        default: return {"string", type.oid == pg_oid::kUuid ? "io.debezium.data.Uuid" : nullptr};
    }
}

}  // namespace

void append_connect_schema(std::string& out, const ColumnType& type, const config::ValueModes& modes, bool optional,
                           const std::optional<std::string>& default_json) {
    const SchemaShape shape = shape_of(type, modes);
    out += "{\"type\":\"";
    out += shape.type;
    out += '"';
    if (std::string_view(shape.type) == "struct")
        out += ",\"fields\":[{\"type\":\"int32\",\"optional\":false,\"field\":\"scale\"},"
               "{\"type\":\"bytes\",\"optional\":false,\"field\":\"value\"}]";
    out += optional ? ",\"optional\":true" : ",\"optional\":false";
    if (shape.name) {
        out += ",\"name\":\"";
        out += shape.name;
        out += "\",\"version\":1";
    }
    if (shape.doc) {
        out += ",\"doc\":\"";
        out += shape.doc;
        out += '"';
    }
    if (!shape.parameters.empty()) out += ",\"parameters\":{" + shape.parameters + "}";
    if (default_json) out += ",\"default\":" + *default_json;
    out += '}';
}

}  // namespace outbox::connect
