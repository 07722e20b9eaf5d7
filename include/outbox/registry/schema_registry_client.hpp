#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "outbox/config/config.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::registry {

// The registry refused this record's schema: incompatible with the subject's versions (409),
// not valid (422), or not registered where auto.register.schemas is false. The row's fault: a
// definite error, or a dead letter under errors.tolerance all.
class SchemaRefusedError : public DefiniteError {
public:
    using DefiniteError::DefiniteError;
};

// No registry URL answered (no connection, a timeout, 5xx or 429 from every one): the router
// reconnects and routes the same rows again, as for any transient error, and counts it.
class RegistryUnavailableError : public TransientError {
public:
    using TransientError::TransientError;
};

// A Confluent-compatible schema registry (Confluent Schema Registry, Apicurio's /apis/ccompat/v7,
// Karapace) over libcurl, for one converter's settings. Each distinct (subject, schema) costs one
// request (POST /subjects/{s}/versions, or POST /subjects/{s} to look it up without registering,
// or GET /subjects/{s}/versions/latest with use.latest.version and auto.register.schemas false);
// the answer is cached, up to schemas.cache.config entries (beyond that the cache starts over).
// Requests run on the caller's thread with bounded waits (connect at most 5 s, the whole request
// schema.registry.request.timeout.ms) and end at once when `stop_requested` says so.
//  - no answer, 5xx or 429 from every URL (tried in order): RegistryUnavailableError;
//  - 401/403: DefiniteError naming the registry and which credentials it refused;
//  - 409, 422, 404 on a look-up: SchemaRefusedError with the subject, the latest version and
//    the registry's own message; with use.latest.version, a subject without versions or whose
//    latest version writes the record otherwise than its own schema: SchemaRefusedError.
// No message carries a credential (a URL's user info is left out).
class SchemaRegistryClient {
public:
    SchemaRegistryClient(const config::AvroConverterSettings& settings, std::function<bool()> stop_requested);
    ~SchemaRegistryClient();
    SchemaRegistryClient(const SchemaRegistryClient&) = delete;
    SchemaRegistryClient& operator=(const SchemaRegistryClient&) = delete;

    std::int32_t schema_id(const std::string& subject, const std::string& schema_json);

    // --check: some registry answers GET /subjects and lets these credentials in. Throws as above.
    void check();

    std::uint64_t requests() const { return requests_; }

private:
    struct Answer {
        long status = 0;
        std::string body;
    };
    Answer request(const std::string& method, const std::string& path, const std::string& body);
    std::string latest_version(const std::string& subject);
    std::int32_t latest_schema_id(const std::string& subject, const std::string& schema_json);

    const config::AvroConverterSettings& settings_;
    std::function<bool()> stop_requested_;
    struct Curl;
    std::unique_ptr<Curl> curl_;
    std::size_t preferred_url_ = 0;  // the URL that answered last
    std::unordered_map<std::string, std::int32_t> ids_;
    std::uint64_t requests_ = 0;
};

// The "id" of a registry's answer to a registration or look-up, if it has one.
std::optional<std::int32_t> schema_id_of(std::string_view body);

// A URL without its user info, for messages.
std::string redacted_url(std::string_view url);

// The registry's error message from its JSON answer ({"error_code":..,"message":".."}), or the
// answer's start.
std::string registry_message(std::string_view body);

}  // namespace outbox::registry
