#include "outbox/migration/not_imported.hpp"

#include <algorithm>
#include <regex>
#include <set>

namespace outbox::migration {
namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// Settings Kafka (clients, Connect, Schema Registry's client) and Debezium declare as passwords
// (ConfigDef.Type.PASSWORD), by the name they have under any prefix (producer.override.,
// value.converter., database.).
const std::set<std::string>& password_typed_settings() {
    static const std::set<std::string> names = {
        "password", "sslpassword", "ssl.key.password", "ssl.keystore.password", "ssl.truststore.password",
        "ssl.keystore.key", "ssl.keystore.certificate.chain", "ssl.truststore.certificates", "basic.auth.user.info",
        "bearer.auth.token", "bearer.auth.client.secret", "schema.registry.basic.auth.user.info",
        "schema.registry.ssl.key.password", "schema.registry.ssl.keystore.password",
        "schema.registry.ssl.truststore.password"};
    return names;
}

bool password_typed(const std::string& key) {
    for (const auto& name : password_typed_settings())
        if (key == name || (key.size() > name.size() && key.ends_with("." + name))) return true;
    return false;
}

// A key naming a credential by its kind, at any depth: anything under sasl. (JAAS configurations,
// OAuth client secrets and tokens), user info (USER:PASSWORD), tokens, secrets, passwords.
bool credential_key(const std::string& key) {
    static const std::regex credential(
        R"((^|\.)sasl\.|user\.?info|token|secret|password|passwd|credential|private\.?key|api\.?key)");
    return std::regex_search(key, credential);
}

// A value that is a credential whatever its key: a PEM block (a private key, a certificate chain
// inlined), a URL carrying user:password@, a JSON Web Token, a JAAS login module line.
// A value of more than 4 KiB is masked unread: only inlined certificates, keys and tokens are
// that long, and std::regex recurses once per character it matches (a long run would exhaust the
// stack).
bool credential_value(const std::string& value) {
    constexpr std::size_t kLongestRead = 4096;
    if (value.size() > kLongestRead) return true;
    static const std::regex pem("-----BEGIN [A-Z0-9 ]+-----");
    static const std::regex url_user_info(R"([A-Za-z][A-Za-z0-9+.\-]*://[^/@\s:]+:[^/@\s]+@)");
    static const std::regex jwt(R"(eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*)");
    static const std::regex jaas(R"(LoginModule\s+(required|requisite|sufficient|optional))");
    return std::regex_search(value, pem) || std::regex_search(value, url_user_info) || std::regex_search(value, jwt) ||
           std::regex_search(value, jaas);
}

}  // namespace

std::string masked_value(const std::string& key, const std::string& value) {
    if (value.empty()) return value;
    const std::string name = lower(key);
    return password_typed(name) || credential_key(name) || credential_value(value) ? "****" : value;
}

}  // namespace outbox::migration
