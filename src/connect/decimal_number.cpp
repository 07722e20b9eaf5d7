#include "outbox/connect/decimal_number.hpp"

#include <cstdint>
#include <vector>

namespace outbox::connect {

std::optional<DecimalNumber> DecimalNumber::parse(std::string_view text) {
    DecimalNumber number;
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) number.negative = text[i++] == '-';
    bool any_digit = false;
    bool point = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            any_digit = true;
            if (!(number.digits.empty() && c == '0')) number.digits.push_back(c);
            if (point) ++number.scale;
        } else if (c == '.' && !point) {
            point = true;
        } else {
            return std::nullopt;
        }
    }
    if (!any_digit) return std::nullopt;
    if (number.digits.empty()) {
        number.digits = "0";
        number.negative = false;
    }
    return number;
}

DecimalNumber DecimalNumber::stripped() const {
    DecimalNumber out = *this;
    if (out.digits == "0") {
        out.scale = 0;
        return out;
    }
    while (out.scale > 0 && out.digits.size() > 1 && out.digits.back() == '0') {
        out.digits.pop_back();
        --out.scale;
    }
    return out;
}

std::string DecimalNumber::unscaled_bytes() const {
    // Magnitude in base 2^32, least significant limb first.
    std::vector<std::uint32_t> limbs;
    for (const char c : digits) {
        std::uint64_t carry = static_cast<std::uint64_t>(c - '0');
        for (auto& limb : limbs) {
            const std::uint64_t product = static_cast<std::uint64_t>(limb) * 10 + carry;
            limb = static_cast<std::uint32_t>(product);
            carry = product >> 32;
        }
        if (carry != 0) limbs.push_back(static_cast<std::uint32_t>(carry));
    }
    std::string magnitude;  // big-endian, no leading zero bytes
    for (auto limb = limbs.rbegin(); limb != limbs.rend(); ++limb)
        for (int shift = 24; shift >= 0; shift -= 8) {
            const auto byte = static_cast<char>(*limb >> shift & 0xff);
            if (!magnitude.empty() || byte != 0) magnitude.push_back(byte);
        }
    if (!negative) {
        // A sign byte when the top bit is set; zero is one zero byte.
        if (magnitude.empty() || static_cast<unsigned char>(magnitude[0]) & 0x80) magnitude.insert(0, 1, '\0');
        return magnitude;
    }
    // Two's complement: invert and add one, then drop redundant leading 0xff bytes.
    std::string bytes = '\0' + magnitude;
    for (auto& b : bytes) b = static_cast<char>(~static_cast<unsigned char>(b));
    for (auto b = bytes.rbegin(); b != bytes.rend(); ++b) {
        *b = static_cast<char>(static_cast<unsigned char>(*b) + 1);
        if (*b != 0) break;
    }
    while (bytes.size() > 1 && static_cast<unsigned char>(bytes[0]) == 0xff &&
           static_cast<unsigned char>(bytes[1]) & 0x80)
        bytes.erase(0, 1);
    return bytes;
}

std::string DecimalNumber::java_text() const {
    std::string out = negative ? "-" : "";
    const auto length = static_cast<long>(digits.size());
    const long adjusted = length - 1 - scale;
    if (scale >= 0 && adjusted >= -6) {
        if (scale == 0) return out + digits;
        if (length > scale) return out + digits.substr(0, length - scale) + "." + digits.substr(length - scale);
        return out + "0." + std::string(static_cast<std::size_t>(scale - length), '0') + digits;
    }
    out += digits[0];
    if (length > 1) out += "." + digits.substr(1);
    out += "E";
    if (adjusted >= 0) out += "+";
    return out + std::to_string(adjusted);
}

std::string DecimalNumber::plain_text() const {
    std::string out = negative ? "-" : "";
    const auto length = static_cast<long>(digits.size());
    if (scale <= 0) return out + digits + (digits == "0" ? "" : std::string(static_cast<std::size_t>(-scale), '0'));
    if (length > scale) return out + digits.substr(0, length - scale) + "." + digits.substr(length - scale);
    return out + "0." + std::string(static_cast<std::size_t>(scale - length), '0') + digits;
}

}  // namespace outbox::connect
