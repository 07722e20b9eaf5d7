// The text outputs of money, bit/varbit, point, interval and hstore as the router reads them (the
// first byte picks the parser). Invariants: a parse writes back what it read (hstore pairs through
// their own text, money through its plain text), the HashMap order keeps every pair once, and bits
// never set a bit the text did not hold.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "outbox/connect/bit_string.hpp"
#include "outbox/connect/geometry_value.hpp"
#include "outbox/connect/hstore_value.hpp"
#include "outbox/connect/interval_value.hpp"
#include "outbox/connect/money_value.hpp"

using namespace outbox::connect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 5) {
        case 0:
            if (const auto money = parse_money(text)) {
                const auto again = DecimalNumber::parse(money->plain_text());
                if (!again || again->plain_text() != money->plain_text()) __builtin_trap();
                for (int digits : {0, 2, 9})
                    if (with_scale_half_up(*money, digits).scale != digits) __builtin_trap();
                money->java_text();
                money->unscaled_bytes();
            }
            break;
        case 1: {
            const auto bytes = bits_bytes(text);
            if (bytes && (bytes->size() > (text.size() + 7) / 8 || (!bytes->empty() && bytes->back() == '\0')))
                __builtin_trap();
            bit_boolean(text);
            break;
        }
        case 2:
            if (const auto point = parse_point(text))
                if (point_wkb(*point).size() != 21) __builtin_trap();
            break;
        case 3:
            if (const auto interval = IntervalParts::parse(text)) {
                interval->micro_duration();
                if (!interval->iso_text().starts_with('P')) __builtin_trap();
            }
            break;
        default:
            if (const auto pairs = parse_hstore(text)) {
                const auto ordered = java_hash_map_order(*pairs);
                if (ordered.size() > pairs->size()) __builtin_trap();
                hstore_json(ordered);
                for (const auto& [key, value] : *pairs) {
                    const auto back = parse_hstore(hstore_text(key, value.value_or("")));
                    if (!back || back->size() != 1 || (*back)[0].first != key) __builtin_trap();
                }
            }
            break;
    }
    return 0;
}
