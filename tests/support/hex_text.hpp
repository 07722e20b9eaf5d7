#pragma once

#include <string>

namespace outbox::test {

// Bytes as lowercase hex and back: how the tests hand arbitrary bytes to a JVM oracle line by line.
inline std::string to_hex(const std::string& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (const char c : bytes) {
        out += digits[static_cast<unsigned char>(c) >> 4];
        out += digits[c & 15];
    }
    return out;
}

inline std::string from_hex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

}  // namespace outbox::test
