#include "outbox/util/type_byte.hpp"

namespace outbox {

std::string type_byte_text(char type) {
    const auto byte = static_cast<unsigned char>(type);
    if (byte >= 0x20 && byte < 0x7f) return std::string("'") + type + "'";
    static constexpr char kHex[] = "0123456789ABCDEF";
    return std::string("0x") + kHex[byte >> 4] + kHex[byte & 0xf];
}

}  // namespace outbox
