#include "outbox/util/topic_name.hpp"

namespace outbox {

bool is_legal_topic_name(std::string_view topic) {
    if (topic.empty() || topic.size() > 249 || topic == "." || topic == "..") return false;
    for (const char c : topic) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                        c == '_' || c == '-';
        if (!ok) return false;
    }
    return true;
}

}  // namespace outbox
