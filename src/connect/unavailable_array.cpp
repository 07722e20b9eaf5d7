#include "outbox/connect/unavailable_array.hpp"

#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace outbox::connect {
namespace {

// The builtin array types UnchangedToastedReplicationMessageColumn names (pg_type.dat's OIDs).
constexpr std::uint32_t kJsonArray = 199, kByteaArray = 1001, kInt4Array = 1007, kTextArray = 1009,
                        kBpcharArray = 1014, kVarcharArray = 1015, kInt8Array = 1016, kDateArray = 1182,
                        kUuidArray = 2951, kJsonbArray = 3807;

// Array text of one quoted element.
std::string one_element_array(std::string_view text) {
    std::string out = "{";
    append_backslash_quoted(out, text);
    return out + "}";
}

// The placeholder's bytes as Java's (int) of a byte: signed.
std::string signed_bytes(const std::string& bytes, bool as_dates) {
    std::string out = "{";
    for (const char c : bytes) {
        if (out.size() > 1) out += ',';
        const int value = static_cast<signed char>(c);
        if (!as_dates) {
            out += std::to_string(value);
            continue;
        }
        const std::chrono::year_month_day day{std::chrono::sys_days{std::chrono::days{value}}};
        char text[16];
        std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(day.year()),
                      static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
        out += text;
    }
    return out + "}";
}

}  // namespace

std::string name_uuid_from_bytes(const std::string& bytes) {
    unsigned char md5[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), md5, &length, EVP_md5(), nullptr) != 1 || length != 16)
        throw std::runtime_error("OpenSSL cannot compute an MD5 digest");
    md5[6] = static_cast<unsigned char>((md5[6] & 0x0f) | 0x30);  // version 3
    md5[8] = static_cast<unsigned char>((md5[8] & 0x3f) | 0x80);  // IETF variant
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
        out += kHex[md5[i] >> 4];
        out += kHex[md5[i] & 15];
    }
    return out;
}

std::optional<std::string> unavailable_array_text(const ColumnType& type, const config::ValueModes& modes) {
    const std::string& placeholder = modes.unavailable_placeholder;
    if (type.from_domain) return std::nullopt;  // a domain's name is none of the array types'
    const bool adaptive_dates = modes.time == config::TimePrecisionMode::adaptive ||
                                modes.time == config::TimePrecisionMode::adaptive_time_microseconds;
    switch (type.oid) {
        case kTextArray:
        case kVarcharArray:
        case kBpcharArray:
        case kJsonArray:
        case kJsonbArray: return one_element_array(placeholder);
        case kByteaArray: {
            // A byte[] fits the array's schema in binary.handling.mode bytes only.
            if (modes.binary != config::BinaryHandlingMode::bytes) return std::nullopt;
            static constexpr char kHex[] = "0123456789abcdef";
            std::string hex = "\\x";
            for (const char c : placeholder) {
                hex += kHex[static_cast<unsigned char>(c) >> 4];
                hex += kHex[c & 15];
            }
            return one_element_array(hex);
        }
        case kInt4Array:
        case kInt8Array: return signed_bytes(placeholder, false);
        // An Integer fits io.debezium.time.Date (int32), not connect's java.util.Date or isostring's text.
        case kDateArray:
            if (!adaptive_dates) return std::nullopt;
            return signed_bytes(placeholder, true);
        case kUuidArray: return "{" + name_uuid_from_bytes(placeholder) + "}";
        default: return std::nullopt;
    }
}

}  // namespace outbox::connect
