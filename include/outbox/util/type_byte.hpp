#pragma once

#include <string>

namespace outbox {

// A protocol type byte as error messages show it: 'w' when printable ASCII, 0x1F otherwise
// (anything else would garble the log line).
std::string type_byte_text(char type);

}  // namespace outbox
