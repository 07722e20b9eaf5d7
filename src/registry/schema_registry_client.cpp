#include "outbox/registry/schema_registry_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "outbox/avro/avro_canonical.hpp"

namespace outbox::registry {

namespace {

constexpr long kConnectTimeoutMs = 5000;

size_t append_body(char* data, size_t size, size_t count, void* out) {
    static_cast<std::string*>(out)->append(data, size * count);
    return size * count;
}

int stop_check(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return (*static_cast<std::function<bool()>*>(stop))() ? 1 : 0;
}

std::string escaped(CURL* curl, const std::string& text) {
    char* escaped = curl_easy_escape(curl, text.data(), static_cast<int>(text.size()));
    std::string result = escaped ? escaped : "";
    curl_free(escaped);
    return result;
}

bool transient_status(long status) { return status >= 500 || status == 429 || status == 408; }

}  // namespace

std::string redacted_url(std::string_view url) {
    const auto scheme = url.find("://");
    const auto start = scheme == std::string_view::npos ? 0 : scheme + 3;
    const auto end = url.find_first_of("/?#", start);
    const auto at = url.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start).rfind('@');
    if (at == std::string_view::npos) return std::string(url);
    return std::string(url.substr(0, start)) + std::string(url.substr(start + at + 1));
}

std::string registry_message(std::string_view body) {
    try {
        const auto json = nlohmann::json::parse(body);
        if (json.is_object() && json.contains("message") && json["message"].is_string())
            return json["message"].get<std::string>();
    } catch (const nlohmann::json::exception&) {
    }
    return std::string(body.substr(0, 200));
}

std::optional<std::int32_t> schema_id_of(std::string_view body) {
    try {
        const auto json = nlohmann::json::parse(body);
        if (!json.is_object()) return std::nullopt;
        const auto id = json.find("id");
        if (id == json.end() || !id->is_number_integer()) return std::nullopt;
        const auto value = id->get<std::int64_t>();
        if (value < 0 || value > INT32_MAX) return std::nullopt;
        return static_cast<std::int32_t>(value);
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

struct SchemaRegistryClient::Curl {
    CURL* handle = curl_easy_init();
    ~Curl() { curl_easy_cleanup(handle); }
};

SchemaRegistryClient::SchemaRegistryClient(const config::AvroConverterSettings& settings,
                                           std::function<bool()> stop_requested)
    : settings_(settings), stop_requested_(std::move(stop_requested)), curl_(std::make_unique<Curl>()) {
    if (!curl_->handle) throw DefiniteError("schema registry: libcurl could not make a handle");
}

SchemaRegistryClient::~SchemaRegistryClient() = default;

SchemaRegistryClient::Answer SchemaRegistryClient::request(const std::string& method, const std::string& path,
                                                            const std::string& body) {
    std::string failures;
    const std::size_t count = settings_.registry_urls.size();
    for (std::size_t attempt = 0; attempt < count; ++attempt) {
        const std::size_t index = (preferred_url_ + attempt) % count;
        std::string base = settings_.registry_urls[index];
        while (!base.empty() && base.back() == '/') base.pop_back();
        CURL* curl = curl_->handle;
        curl_easy_reset(curl);
        Answer answer;
        const std::string url = base + path;
        curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min<long>(kConnectTimeoutMs, settings_.request_timeout_ms));
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.request_timeout_ms));
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, stop_check);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &stop_requested_);
        curl_slist* headers = curl_slist_append(nullptr, "Accept: application/vnd.schemaregistry.v1+json, application/json");
        headers = curl_slist_append(headers, "Content-Type: application/vnd.schemaregistry.v1+json");
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
        if (method == "POST") {
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
            curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
        }
        if (!settings_.user_info.empty()) {
            curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
            curl_easy_setopt(curl, CURLOPT_USERPWD, settings_.user_info.c_str());
        } else if (!settings_.bearer_token.empty()) {
            curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
            curl_easy_setopt(curl, CURLOPT_XOAUTH2_BEARER, settings_.bearer_token.c_str());
        }
        if (!settings_.ca_location.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, settings_.ca_location.c_str());
        if (!settings_.certificate_location.empty()) {
            curl_easy_setopt(curl, CURLOPT_SSLCERT, settings_.certificate_location.c_str());
            curl_easy_setopt(curl, CURLOPT_SSLKEY, settings_.certificate_location.c_str());
            if (!settings_.key_password.empty()) curl_easy_setopt(curl, CURLOPT_KEYPASSWD, settings_.key_password.c_str());
        }
        ++requests_;
        const CURLcode result = curl_easy_perform(curl);
        curl_slist_free_all(headers);
        const std::string where = redacted_url(base);
        if (result == CURLE_ABORTED_BY_CALLBACK)
            throw TransientError("schema registry " + where + ": stopped while waiting for an answer");
        if (result != CURLE_OK) {
            failures += (failures.empty() ? "" : "; ") + where + ": " + curl_easy_strerror(result);
            continue;
        }
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
        if (transient_status(answer.status)) {
            failures += (failures.empty() ? "" : "; ") + where + ": HTTP " + std::to_string(answer.status) + " " +
                        registry_message(answer.body);
            continue;
        }
        if (answer.status == 401 || answer.status == 403)
            throw DefiniteError("schema registry " + where + ": HTTP " + std::to_string(answer.status) +
                                (answer.status == 401 ? " (unauthorized)" : " (forbidden)") + ": the registry refused " +
                                (!settings_.user_info.empty()
                                     ? (settings_.apicurio ? "the apicurio.registry.auth.username credentials"
                                                           : "the basic.auth.user.info credentials")
                                 : !settings_.bearer_token.empty() ? "the bearer.auth.token"
                                                                   : "a request without credentials") +
                                ": " + registry_message(answer.body));
        preferred_url_ = index;
        return answer;
    }
    throw RegistryUnavailableError("schema registry unreachable: " + failures);
}

std::string SchemaRegistryClient::latest_version(const std::string& subject) {
    try {
        const Answer answer = request("GET", "/subjects/" + escaped(curl_->handle, subject) + "/versions/latest", "");
        if (answer.status == 200) {
            const auto json = nlohmann::json::parse(answer.body);
            if (json.contains("version")) return "version " + json["version"].dump();
        }
    } catch (const std::exception&) {
    }
    return "no version known";
}

// use.latest.version: the subject's latest version, if it writes the record's values in the same
// bytes as the record's own schema (the same Parsing Canonical Form). Confluent's serializer
// checks with latest.compatibility.strict that the latest version can read the record's schema,
// then writes the record's fields by position in the latest one; only a latest version of the
// same form is written correctly that way, so the router takes no other, strict or not.
std::int32_t SchemaRegistryClient::latest_schema_id(const std::string& subject, const std::string& schema_json) {
    const Answer answer = request("GET", "/subjects/" + escaped(curl_->handle, subject) + "/versions/latest", "");
    if (answer.status == 404)
        throw SchemaRefusedError("use.latest.version: subject \"" + subject + "\" has no version, and " +
                                 "auto.register.schemas is false: " + registry_message(answer.body));
    if (answer.status != 200)
        throw SchemaRefusedError("use.latest.version: the latest version of subject \"" + subject + "\" (HTTP " +
                                 std::to_string(answer.status) + "): " + registry_message(answer.body));
    nlohmann::json latest;
    try {
        latest = nlohmann::json::parse(answer.body);
    } catch (const nlohmann::json::exception&) {
    }
    const auto id = schema_id_of(answer.body);
    if (!id || !latest.contains("schema") || !latest["schema"].is_string())
        throw TransientError("schema registry: an answer without a schema and its id: " + answer.body.substr(0, 200));
    const std::string version = latest.contains("version") ? latest["version"].dump() : "?";
    std::string latest_form;
    try {
        latest_form = avro::parsing_canonical_form(latest["schema"].get<std::string>());
    } catch (const avro::AvroSchemaTextError& e) {
        throw SchemaRefusedError("use.latest.version: version " + version + " of subject \"" + subject +
                                 "\" is not an Avro schema: " + e.what());
    }
    if (latest_form != avro::parsing_canonical_form(schema_json))
        throw SchemaRefusedError("use.latest.version: version " + version + " of subject \"" + subject + "\" (id " +
                                 std::to_string(*id) + ") does not write this record as its own schema does " +
                                 "(their Parsing Canonical Forms differ): register the record's schema, or let the "
                                 "router register it (auto.register.schemas)");
    return *id;
}

std::int32_t SchemaRegistryClient::schema_id(const std::string& subject, const std::string& schema_json) {
    std::string key = subject;
    key += '\0';
    key += schema_json;
    if (const auto found = ids_.find(key); found != ids_.end()) return found->second;
    if (!settings_.auto_register && settings_.use_latest_version) {
        const std::int32_t id = latest_schema_id(subject, schema_json);
        if (ids_.size() >= static_cast<std::size_t>(settings_.cache_capacity)) ids_.clear();
        ids_.emplace(std::move(key), id);
        return id;
    }
    const std::string path = "/subjects/" + escaped(curl_->handle, subject) + (settings_.auto_register ? "/versions" : "");
    const Answer answer = request("POST", path, nlohmann::json{{"schema", schema_json}}.dump());
    if (answer.status != 200) {
        const std::string reason = registry_message(answer.body);
        if (answer.status == 409)
            throw SchemaRefusedError("schema registry refused the schema under subject \"" + subject +
                                     "\" as incompatible with its latest " + latest_version(subject) + ": " + reason);
        if (answer.status == 404 && !settings_.auto_register)
            throw SchemaRefusedError("the schema is not registered under subject \"" + subject +
                                     "\" and auto.register.schemas is false: " + reason);
        throw SchemaRefusedError("schema registry refused the schema under subject \"" + subject + "\" (HTTP " +
                                 std::to_string(answer.status) + "): " + reason);
    }
    const auto id = schema_id_of(answer.body);
    if (!id) throw TransientError("schema registry: an answer without a schema id: " + answer.body.substr(0, 200));
    if (ids_.size() >= static_cast<std::size_t>(settings_.cache_capacity)) ids_.clear();
    ids_.emplace(std::move(key), *id);
    return *id;
}

void SchemaRegistryClient::check() {
    const Answer answer = request("GET", "/subjects", "");
    if (answer.status != 200)
        throw DefiniteError("schema registry: GET /subjects answered HTTP " + std::to_string(answer.status) + ": " +
                            registry_message(answer.body));
}

}  // namespace outbox::registry
