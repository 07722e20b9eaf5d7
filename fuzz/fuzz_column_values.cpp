// Column text output as pgoutput sends it, converted for keys, headers and the envelope under
// every value type. The first byte picks the type.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "outbox/router/column_value.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    using namespace outbox::router;
    constexpr std::uint32_t kTypes[] = {pg_oid::kText, pg_oid::kBytea, pg_oid::kJson, pg_oid::kJsonb, pg_oid::kUuid,
                                        pg_oid::kInt8, pg_oid::kNumeric, pg_oid::kBool, pg_oid::kTimestamptz,
                                        pg_oid::kUnknown, 20, 21, 23, 700, 701, 1082, 1114, 1083, 1184};
    const ValueType type = value_type(kTypes[data[0] % (sizeof kTypes / sizeof kTypes[0])]);
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    std::string scratch, out;
    kafka_bytes(type, text, scratch);
    header_text(type, text, scratch, out);
    append_json_value(out, type, text, scratch);
    decode_bytea(text, scratch);
    append_json_string(out, text);
    append_base64(out, text);
    return 0;
}
