#include "outbox/migration/producer_properties.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace outbox::migration {
namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

// Java producer properties librdkafka knows under the same name, with the same meaning.
const std::set<std::string>& same_name_properties() {
    static const std::set<std::string> names = {
        "acks", "batch.size", "bootstrap.servers", "client.id", "compression.type", "connections.max.idle.ms",
        "delivery.timeout.ms", "enable.idempotence", "linger.ms", "max.in.flight.requests.per.connection",
        "metadata.max.age.ms", "reconnect.backoff.max.ms", "reconnect.backoff.ms", "request.timeout.ms", "retries",
        "retry.backoff.ms", "sasl.kerberos.service.name", "security.protocol", "socket.connection.setup.timeout.ms",
        "ssl.endpoint.identification.algorithm", "ssl.key.password", "transaction.timeout.ms", "transactional.id"};
    return names;
}

const std::map<std::string, std::string>& renamed_properties() {
    static const std::map<std::string, std::string> names = {
        {"sasl.mechanism", "sasl.mechanisms"},
        {"max.request.size", "message.max.bytes"},
        {"receive.buffer.bytes", "socket.receive.buffer.bytes"},
        {"send.buffer.bytes", "socket.send.buffer.bytes"},
    };
    return names;
}

bool jaas_blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The text of a quoted JAAS value from just after its opening quote, escapes decoded as
// java.io.StreamTokenizer decodes them; nothing when no closing quote ends it.
std::optional<std::string> jaas_unquoted(std::string_view text) {
    static const std::map<char, char> escapes = {{'a', '\a'}, {'b', '\b'}, {'f', '\f'}, {'n', '\n'},
                                                 {'r', '\r'}, {'t', '\t'}, {'v', '\v'}};
    std::string value;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '"') return value;
        if (text[i] != '\\') {
            value += text[i];
            continue;
        }
        if (++i == text.size()) return std::nullopt;
        const char c = text[i];
        if (c >= '0' && c <= '7') {
            int code = c - '0';
            const std::size_t most = c <= '3' ? 2 : 1;
            for (std::size_t more = 0; more < most && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7'; ++more)
                code = code * 8 + (text[++i] - '0');
            // A Java char: Kafka sends the password as UTF-8.
            if (code < 0x80) {
                value += static_cast<char>(code);
            } else {
                value += static_cast<char>(0xC0 | (code >> 6));
                value += static_cast<char>(0x80 | (code & 0x3F));
            }
            continue;
        }
        const auto escape = escapes.find(c);
        value += escape == escapes.end() ? c : escape->second;
    }
    return std::nullopt;
}

// The quoted value of `option` (option="...") in a JAAS configuration, as Kafka's JaasConfig
// reads it. A scan, not a regular expression: std::regex recurses once per character matched,
// and a long value would exhaust the stack.
std::optional<std::string> jaas_quoted_option(std::string_view jaas, std::string_view option) {
    for (std::size_t at = jaas.find(option); at != std::string_view::npos; at = jaas.find(option, at + 1)) {
        if (at > 0 && !jaas_blank(jaas[at - 1])) continue;
        std::size_t pos = at + option.size();
        while (pos < jaas.size() && jaas_blank(jaas[pos])) ++pos;
        if (pos == jaas.size() || jaas[pos] != '=') continue;
        ++pos;
        while (pos < jaas.size() && jaas_blank(jaas[pos])) ++pos;
        if (pos == jaas.size() || jaas[pos] != '"') continue;
        if (auto value = jaas_unquoted(jaas.substr(pos + 1))) return value;
    }
    return std::nullopt;
}

}  // namespace

MappedProducerProperties map_producer_properties(const std::vector<Setting>& producer,
                                                 const std::function<std::optional<std::string>(const Setting&)>& resolve) {
    std::map<std::string, const Setting*> latest;
    std::vector<std::string> order;
    for (const auto& s : producer) {
        if (!latest.count(s.key)) order.push_back(s.key);
        latest[s.key] = &s;
    }
    const auto value_of = [&](const std::string& key) {
        const auto found = latest.find(key);
        return found == latest.end() ? std::string() : found->second->value;
    };
    MappedProducerProperties mapped;
    auto& kafka = mapped.kafka;
    const auto skip = [&](const Setting& s, const std::string& reason) {
        mapped.not_imported.push_back({s.origin, "producer " + s.key, masked_value(s.key, s.value), reason});
    };
    for (const auto& key : order) {
        const Setting& s = *latest.at(key);
        const auto resolved = resolve(s);
        if (!resolved) {
            skip(s, "a Kafka Connect config provider other than FileConfigProvider; write ${env:NAME} instead");
            continue;
        }
        if (same_name_properties().count(key)) {
            kafka.emplace_back(key, *resolved);
        } else if (const auto renamed = renamed_properties().find(key); renamed != renamed_properties().end()) {
            kafka.emplace_back(renamed->second, *resolved);
        } else if (key == "buffer.memory") {
            try {
                kafka.emplace_back("queue.buffering.max.kbytes", std::to_string(std::max(1LL, std::stoll(*resolved) / 1024)));
            } catch (const std::exception&) {
                skip(s, "not a number of bytes");
            }
        } else if (key == "sasl.jaas.config") {
            const bool known_module = resolved->find("PlainLoginModule") != std::string::npos ||
                                      resolved->find("ScramLoginModule") != std::string::npos;
            const auto user = jaas_quoted_option(*resolved, "username");
            const auto password = jaas_quoted_option(*resolved, "password");
            if (known_module && user && password) {
                kafka.emplace_back("sasl.username", *user);
                kafka.emplace_back("sasl.password", *password);
            } else {
                skip(s, "only PLAIN and SCRAM login modules with username and password carry over "
                        "(librdkafka: sasl.username, sasl.password; OAUTHBEARER and Kerberos take other keys)");
            }
        } else if (key == "ssl.truststore.location" && lower(value_of("ssl.truststore.type")) == "pem") {
            kafka.emplace_back("ssl.ca.location", *resolved);
        } else if ((key == "ssl.keystore.location" || key == "ssl.keystore.password") &&
                   lower(value_of("ssl.keystore.type")) == "pkcs12") {
            kafka.emplace_back(key, *resolved);
        } else if (key == "ssl.truststore.type" || key == "ssl.keystore.type") {
            if (lower(s.value) != "pem" && lower(s.value) != "pkcs12")
                skip(s, "librdkafka reads PEM certificates and PKCS#12 keystores, not Java keystores");
        } else if (key == "ssl.keystore.key" || key == "ssl.keystore.certificate.chain" ||
                   key == "ssl.truststore.certificates") {
            const std::string pem_key = key == "ssl.keystore.key"                 ? "ssl.key.pem"
                                        : key == "ssl.keystore.certificate.chain" ? "ssl.certificate.pem"
                                                                                  : "ssl.ca.pem";
            skip(s, "PEM inlined in the setting; librdkafka reads it as " + pem_key + " (give it as ${env:NAME}) or "
                    "from a file (" + pem_key.substr(0, pem_key.size() - 4) + ".location)");
        } else if (key.rfind("ssl.truststore.", 0) == 0 || key.rfind("ssl.keystore.", 0) == 0) {
            skip(s, "a Java keystore; convert it to PEM (ssl.ca.location, ssl.certificate.location, "
                    "ssl.key.location) or PKCS#12 (ssl.keystore.location)");
        } else if (key == "key.serializer" || key == "value.serializer") {
            skip(s, "the router writes the bytes itself (what Kafka Connect's converters would write)");
        } else if (key == "partitioner.class") {
            skip(s, "the router partitions as the Java client's default partitioner does for keyed records (murmur2)");
        } else {
            skip(s, "no librdkafka equivalent the import knows; librdkafka's names: "
                    "https://github.com/confluentinc/librdkafka/blob/master/CONFIGURATION.md");
        }
    }
    return mapped;
}

}  // namespace outbox::migration
