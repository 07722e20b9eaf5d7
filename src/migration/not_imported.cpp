#include "outbox/migration/not_imported.hpp"

#include <algorithm>

namespace outbox::migration {

std::string masked_value(const std::string& key, const std::string& value) {
    std::string name = key;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool secret = name.find("password") != std::string::npos || name.find("secret") != std::string::npos ||
                        name.find("jaas.config") != std::string::npos;
    return secret ? "****" : value;
}

}  // namespace outbox::migration
