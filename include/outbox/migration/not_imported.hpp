#pragma once

#include <string>

namespace outbox::migration {

// A setting the import could not carry over, and why.
struct NotImported {
    std::string origin;  // file and key or line
    std::string key;
    std::string value;   // masked_value(): secrets are never listed
    std::string reason;
};

// `value`, or **** when `key` names a secret (a password, a secret, a JAAS configuration).
std::string masked_value(const std::string& key, const std::string& value);

}  // namespace outbox::migration
