// PostgreSQL array text output as pgoutput sends it, parsed (pg_array.hpp) and converted as an
// array column of each element type and Debezium mode. The first bytes pick them. Checks: what
// parses re-parses the same from its canonical text, and the typed array writes as JsonConverter
// writes the column directly.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/connect_json.hpp"
#include "outbox/connect/connect_schema.hpp"
#include "outbox/connect/connect_value.hpp"
#include "outbox/connect/pg_array.hpp"

namespace {

using namespace outbox::connect;

// The elements as array_out writes them: every element quoted.
void append_canonical(std::string& out, const std::vector<PgArrayElement>& elements, char delimiter) {
    out += '{';
    for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) out += delimiter;
        const auto& element = elements[i];
        if (element.kind == PgArrayElement::Kind::null) {
            out += "NULL";
        } else if (element.kind == PgArrayElement::Kind::array) {
            append_canonical(out, element.elements, delimiter);
        } else {
            out += '"';
            for (const char c : element.text) {
                if (c == '"' || c == '\\') out += '\\';
                out += c;
            }
            out += '"';
        }
    }
    out += '}';
}

bool same(const std::vector<PgArrayElement>& a, const std::vector<PgArrayElement>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].kind != b[i].kind || a[i].text != b[i].text || !same(a[i].elements, b[i].elements)) return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    using namespace outbox;
    const std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
    for (const char delimiter : {',', ';'}) {
        const auto parsed = parse_pg_array(text, delimiter);
        if (!parsed) continue;
        std::string canonical;
        append_canonical(canonical, *parsed, delimiter);
        const auto again = parse_pg_array(canonical, delimiter);
        if (!again || !same(*parsed, *again)) __builtin_trap();
    }
    constexpr std::uint32_t kElements[] = {pg_oid::kText,  pg_oid::kBytea,  pg_oid::kJson,       pg_oid::kJsonb,
                                           pg_oid::kUuid,  pg_oid::kInt8,   pg_oid::kNumeric,    pg_oid::kBool,
                                           pg_oid::kInt2,  pg_oid::kInt4,   pg_oid::kFloat4,     pg_oid::kFloat8,
                                           pg_oid::kDate,  pg_oid::kTime,   pg_oid::kTimestamp,  pg_oid::kTimestamptz,
                                           pg_oid::kTimetz, pg_oid::kInterval};
    constexpr std::int32_t kModifiers[] = {-1, 0, 3, 6, (10 << 16 | 2) + 4, (5 << 16) + 4};
    const std::uint32_t element_oid = kElements[data[0] % std::size(kElements)];
    const std::int32_t modifier = kModifiers[data[1] % std::size(kModifiers)];
    ColumnType type(ValueType::array, modifier, 0);
    type.element = std::make_shared<const ColumnType>(value_type(element_oid), modifier, element_oid);
    config::ValueModes modes;
    modes.time = static_cast<config::TimePrecisionMode>(data[2] % 4);
    modes.decimal = static_cast<config::DecimalHandlingMode>(data[2] / 4 % 3);
    modes.binary = static_cast<config::BinaryHandlingMode>(data[2] / 12 % 4);
    const ConnectValueWriter writer(modes);
    std::string scratch, out;
    try {
        writer.string_text(type, text, scratch);
        writer.header_text(type, text, scratch);
        writer.append_struct_field(out, type, text);
        std::string direct, typed;
        writer.append_json(direct, type, text);
        append_value_json(typed, column_schema(type, modes, true, std::nullopt), writer.value(type, text));
        if (direct != typed) __builtin_trap();
    } catch (const ValueError&) {
    }
    return 0;
}
