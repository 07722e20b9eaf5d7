// Column text output as pgoutput sends it, converted for keys, headers and the envelope under
// every value type, type modifier and Debezium mode. The first bytes pick them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "outbox/router/column_catalog.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_json.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/connect_value.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    using namespace outbox;
    using namespace outbox::router;
    constexpr std::uint32_t kTypes[] = {pg_oid::kText,     pg_oid::kBytea,    pg_oid::kJson,     pg_oid::kJsonb,
                                        pg_oid::kUuid,     pg_oid::kInt8,     pg_oid::kNumeric,  pg_oid::kBool,
                                        pg_oid::kTimestamptz, pg_oid::kUnknown, pg_oid::kInt2,  pg_oid::kInt4,
                                        pg_oid::kFloat4,   pg_oid::kFloat8,   pg_oid::kDate,     pg_oid::kTimestamp,
                                        pg_oid::kTime,     pg_oid::kTimetz,   pg_oid::kInterval, pg_oid::kMoney,
                                        pg_oid::kBit,      pg_oid::kVarbit,   pg_oid::kPoint};
    constexpr std::int32_t kModifiers[] = {-1, 0, 3, 6, (10 << 16 | 2) + 4, (5 << 16) + 4, (1000 << 16 | 999) + 4, 1, 16};
    ColumnType type{value_type(kTypes[data[0] % std::size(kTypes)]), kModifiers[data[1] % std::size(kModifiers)]};
    if (type.kind == connect::ValueType::text && data[1] & 0x80) type.name = data[1] & 0x40 ? "hstore" : "ltree";
    config::ValueModes modes;
    modes.time = static_cast<config::TimePrecisionMode>(data[2] % 4);
    modes.decimal = static_cast<config::DecimalHandlingMode>(data[2] / 4 % 3);
    modes.binary = static_cast<config::BinaryHandlingMode>(data[2] / 12 % 4);
    modes.interval = static_cast<config::IntervalHandlingMode>(data[2] / 48 % 2);
    modes.hstore = static_cast<config::HStoreHandlingMode>(data[2] / 96 % 2);
    modes.money_fraction_digits = data[1] % 4;
    const std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
    const ConnectValueWriter writer(modes);
    std::string scratch, out;
    kafka_bytes(type.kind, text, scratch);
    try {
        writer.string_text(type, text, scratch);
        writer.header_text(type, text, scratch);
        writer.append_json(out, type, text);
        writer.append_struct_field(out, type, text);
        append_connect_schema(out, type, modes, data[1] % 2 == 0, std::nullopt);
        // The typed value writes as JsonConverter writes the column directly.
        std::string direct, typed;
        writer.append_json(direct, type, text);
        append_value_json(typed, column_schema(type, modes, true, std::nullopt), writer.value(type, text));
        if (direct != typed) __builtin_trap();
    } catch (const ValueError&) {
    }
    default_value(type, std::string(text), writer);  // a catalog default expression
    decode_bytea(text, scratch);
    append_json_string(out, text);
    append_base64(out, text);
    return 0;
}
