#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace outbox::connect {

// Arrays and objects nested deeper than this are refused before parsing: writing a document
// back and shaping it recurse once per level, and a row from outside must not exhaust the
// stack. Jackson, which Debezium parses with, refuses the same depth by default.
constexpr std::size_t kMaxJsonNesting = 1000;

// Why `text` may not be parsed as JSON ("nests ... deeper than ..."), or nothing. Only
// brackets outside strings count; whether the text is valid JSON is the parser's business.
std::optional<std::string> json_nesting_error(std::string_view text);

}  // namespace outbox::connect
