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

// `value`, or **** when it is a credential, by what it is: a setting Kafka, Schema Registry's
// client or Debezium types as a password (under any prefix), anything under sasl., user info
// (USER:PASSWORD), a token, secret or password, or a value that holds a PEM block, a URL with
// user:password@, a JSON Web Token or a JAAS login module line, whatever its key.
std::string masked_value(const std::string& key, const std::string& value);

}  // namespace outbox::migration
