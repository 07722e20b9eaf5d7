#pragma once

#include <bit>
#include <cstring>
#include <string>

namespace outbox {

// Network byte order, as the PostgreSQL protocol writes integers. memcpy rather than a cast:
// protocol fields are not aligned. One load and a byte swap.
template <typename T>
T load_be(const char* at) {
    T value;
    std::memcpy(&value, at, sizeof value);
    if constexpr (std::endian::native == std::endian::little) {
        if constexpr (sizeof value == 2) value = __builtin_bswap16(value);
        if constexpr (sizeof value == 4) value = __builtin_bswap32(value);
        if constexpr (sizeof value == 8) value = __builtin_bswap64(value);
    }
    return value;
}

template <typename T>
void store_be(char* at, T value) {
    for (std::size_t i = 0; i < sizeof value; ++i) at[i] = static_cast<char>(value >> (8 * (sizeof value - 1 - i)));
}

template <typename T>
void append_be(std::string& out, T value) {
    char bytes[sizeof value];
    store_be(bytes, value);
    out.append(bytes, sizeof bytes);
}

}  // namespace outbox
