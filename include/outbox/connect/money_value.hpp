#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "outbox/connect/decimal_number.hpp"

namespace outbox::connect {

// A money column's text (cash_out, as lc_monetary formats it: "$1,234.50", "-$12.50",
// "($12.50)") read as Debezium's PostgreSQL connector reads it: a leading '-' or a parenthesised
// amount is negative, one currency character before the digits is dropped, and so are the
// commas; what is left must be a decimal number. nullopt where Debezium's parse fails (a
// symbol after the amount, a decimal comma, a space).
std::optional<DecimalNumber> parse_money(std::string_view text);

// BigDecimal.setScale(scale, RoundingMode.HALF_UP).
DecimalNumber with_scale_half_up(const DecimalNumber& number, int scale);

}  // namespace outbox::connect
