#include "outbox/connect/json_nesting.hpp"

namespace outbox::connect {

std::optional<std::string> json_nesting_error(std::string_view text) {
    std::size_t depth = 0;
    bool in_string = false;
    bool escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonNesting)
                return "nests arrays and objects deeper than " + std::to_string(kMaxJsonNesting) + " levels";
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::nullopt;
}

}  // namespace outbox::connect
