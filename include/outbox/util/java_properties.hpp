#pragma once

#include <string>
#include <vector>

namespace outbox::util {

struct JavaProperty {
    std::string key;
    std::string value;
    int line = 0;  // where the entry starts (1-based)
};

// A .properties file as java.util.Properties.load reads it: `#` and `!` comments, `=`, `:` or
// white space between key and value, lines continued by an odd number of trailing backslashes,
// and the escapes \t \n \r \f \uXXXX (any other escaped character stands for itself). Entries
// in file order; a repeated key is kept each time (the caller decides which wins).
std::vector<JavaProperty> parse_java_properties(const std::string& text);

}  // namespace outbox::util
