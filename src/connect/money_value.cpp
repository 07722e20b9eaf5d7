#include "outbox/connect/money_value.hpp"

namespace outbox::connect {
namespace {

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// The length of the UTF-8 sequence a lead byte starts; 0 for a byte no sequence starts with.
std::size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 0;
}

}  // namespace

std::optional<DecimalNumber> parse_money(std::string_view text) {
    if (text.empty()) return std::nullopt;
    const bool negative = text.front() == '(' || text.front() == '-';
    std::string value = text.front() == '-' ? "(" + std::string(text.substr(1)) + ")" : std::string(text);
    // PGtokenizer.removePara: a leading '(' and a trailing ')', each on its own.
    if (value.starts_with('(')) value.erase(0, 1);
    if (value.ends_with(')')) value.pop_back();
    if (!value.empty() && !is_ascii_digit(value.front()) && value.front() != '.') {
        // One Java char: a code point of the Basic Multilingual Plane. A wider one leaves half of
        // its surrogate pair, which no number starts with.
        const std::size_t length = utf8_length(static_cast<unsigned char>(value.front()));
        if (length == 0 || length == 4 || length > value.size()) return std::nullopt;
        value.erase(0, length);
    }
    std::string digits;
    for (const char c : value)
        if (c != ',') digits.push_back(c);
    // new BigDecimal(String) of "-" and the rest when negative: a sign of its own is allowed only
    // on an amount not marked negative ("$-1.00").
    if (negative && (digits.starts_with('-') || digits.starts_with('+'))) return std::nullopt;
    auto number = DecimalNumber::parse(digits);
    if (!number) return std::nullopt;
    if (negative && number->digits != "0") number->negative = true;
    return number;
}

DecimalNumber with_scale_half_up(const DecimalNumber& number, int scale) {
    DecimalNumber out = number;
    if (scale >= number.scale) {
        if (out.digits != "0") out.digits.append(static_cast<std::size_t>(scale - number.scale), '0');
        out.scale = scale;
        return out;
    }
    const auto dropped = static_cast<std::size_t>(number.scale - scale);
    out.scale = scale;
    if (dropped > out.digits.size()) {
        out.digits = "0";
        out.negative = false;
        return out;
    }
    const bool round_up = out.digits[out.digits.size() - dropped] >= '5';
    out.digits.resize(out.digits.size() - dropped);
    if (round_up) {
        std::size_t i = out.digits.size();
        while (i > 0 && out.digits[i - 1] == '9') out.digits[--i] = '0';
        if (i == 0) out.digits.insert(0, 1, '1');
        else ++out.digits[i - 1];
    }
    const auto first = out.digits.find_first_not_of('0');
    out.digits = first == std::string::npos ? "0" : out.digits.substr(first);
    if (out.digits == "0") out.negative = false;
    return out;
}

}  // namespace outbox::connect
