#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace outbox::connect {

// bit(n) and varbit text ("10100101") as Debezium's io.debezium.data.Bits bytes: the bits read
// as one binary number (the first the most significant), written little-endian in as few bytes
// as hold its highest set bit (java.util.BitSet.toByteArray(); all zeros give no bytes).
// nullopt for text that is not bits.
std::optional<std::string> bits_bytes(std::string_view text);

// bit(1) and varbit(1), which Debezium makes a boolean: Integer.valueOf(text, 2) != 0. nullopt
// where Java's parse fails (the empty varbit, more than 31 significant bits).
std::optional<bool> bit_boolean(std::string_view text);

}  // namespace outbox::connect
