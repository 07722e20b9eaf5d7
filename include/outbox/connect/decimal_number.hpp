#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace outbox::connect {

// A numeric column's value as Java's BigDecimal holds it: an unscaled integer and a scale
// (value = unscaled × 10^-scale). PostgreSQL's text keeps the column's scale ("12.50" has
// scale 2), and so does the BigDecimal Debezium makes of it.
struct DecimalNumber {
    bool negative = false;
    std::string digits;  // the unscaled value's decimal digits, without leading zeros ("0" for zero)
    int scale = 0;

    // PostgreSQL's numeric output ("-12.50", "1000", "0.000"); nullopt for NaN, the
    // infinities and anything else.
    static std::optional<DecimalNumber> parse(std::string_view text);

    // Trailing zeros removed and a negative scale set back to 0, as Debezium's
    // VariableScaleDecimal is made (BigDecimal.stripTrailingZeros).
    DecimalNumber stripped() const;

    // The unscaled value as BigInteger.toByteArray(): big-endian two's complement, shortest.
    std::string unscaled_bytes() const;

    // BigDecimal.toString(): plain, or scientific when the exponent is below -6 ("1E-8").
    std::string java_text() const;
    // BigDecimal.toPlainString(): never scientific ("0.00000001", "1200" for scale -2).
    std::string plain_text() const;
};

}  // namespace outbox::connect
