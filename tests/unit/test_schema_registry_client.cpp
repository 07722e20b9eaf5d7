#define BOOST_TEST_MODULE schema_registry_client
#include <gnutls/gnutls.h>
#include <microhttpd.h>

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <sstream>
#include <nlohmann/json.hpp>
#include <thread>
#include <mutex>
#include <string>
#include <vector>

#include "test_ca.hpp"
#include "outbox/avro/avro_canonical.hpp"
#include "outbox/registry/schema_registry_client.hpp"

using namespace outbox;
using registry::SchemaRefusedError;
using registry::SchemaRegistryClient;

namespace {

// One request a scripted registry received.
struct Received {
    std::string method;
    std::string url;
    std::string body;
    std::string authorization;
    bool verified_client_certificate = false;  // over TLS: one the registry's CA signed
};

// A TLS registry's certificate, key and the CA it verifies clients with (PEM texts).
struct TlsIdentity {
    std::string certificate;
    std::string key;
    std::string client_ca;
};

struct Reply {
    unsigned status = 200;
    std::string body;
};

// A registry on a loopback port whose answers the test scripts (libmicrohttpd), recording what
// it was asked: the client's own behaviour (requests, failover, classification) is what is under
// test here; the real registry is in tests/integration/test_avro_registry.cpp.
class ScriptedRegistry {
public:
    explicit ScriptedRegistry(std::function<Reply(const Received&)> script) : script_(std::move(script)) {
        daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, nullptr, nullptr, &answer, this,
                                   MHD_OPTION_END);
        BOOST_REQUIRE(daemon_ != nullptr);
        port_ = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT)->port;
    }
    // HTTPS, asking every client for a certificate (not requiring one) and verifying it.
    ScriptedRegistry(std::function<Reply(const Received&)> script, const TlsIdentity& tls)
        : script_(std::move(script)), tls_(tls) {
        daemon_ = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_TLS, 0, nullptr, nullptr, &answer, this,
                                   MHD_OPTION_HTTPS_MEM_KEY, tls_.key.c_str(), MHD_OPTION_HTTPS_MEM_CERT,
                                   tls_.certificate.c_str(), MHD_OPTION_HTTPS_MEM_TRUST, tls_.client_ca.c_str(),
                                   MHD_OPTION_END);
        BOOST_REQUIRE(daemon_ != nullptr);
        port_ = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT)->port;
    }
    ~ScriptedRegistry() { MHD_stop_daemon(daemon_); }

    std::string url() const {
        return (tls_.certificate.empty() ? "http://" : "https://") + std::string("127.0.0.1:") + std::to_string(port_);
    }
    std::vector<Received> received() {
        std::lock_guard lock(mutex_);
        return received_;
    }

private:
    static MHD_Result answer(void* self_pointer, MHD_Connection* connection, const char* url, const char* method,
                             const char*, const char* upload, size_t* upload_size, void** state) {
        auto* self = static_cast<ScriptedRegistry*>(self_pointer);
        if (*state == nullptr) {
            *state = new std::string;
            return MHD_YES;
        }
        auto* body = static_cast<std::string*>(*state);
        if (*upload_size > 0) {
            body->append(upload, *upload_size);
            *upload_size = 0;
            return MHD_YES;
        }
        Received request{method, url, *body, ""};
        delete body;
        *state = nullptr;
        if (const char* auth = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Authorization"))
            request.authorization = auth;
        if (!self->tls_.certificate.empty()) {
            const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
            auto* session = static_cast<gnutls_session_t>(info->tls_session);
            unsigned int presented = 0;
            unsigned int status = 1;
            request.verified_client_certificate = gnutls_certificate_get_peers(session, &presented) != nullptr &&
                                                  presented > 0 &&
                                                  gnutls_certificate_verify_peers2(session, &status) == 0 && status == 0;
        }
        Reply reply;
        {
            std::lock_guard lock(self->mutex_);
            self->received_.push_back(request);
            reply = self->script_(request);
        }
        MHD_Response* response =
            MHD_create_response_from_buffer(reply.body.size(), reply.body.data(), MHD_RESPMEM_MUST_COPY);
        const MHD_Result queued = MHD_queue_response(connection, reply.status, response);
        MHD_destroy_response(response);
        return queued;
    }

    std::function<Reply(const Received&)> script_;
    TlsIdentity tls_;
    MHD_Daemon* daemon_ = nullptr;
    std::uint16_t port_ = 0;
    std::mutex mutex_;
    std::vector<Received> received_;
};

config::AvroConverterSettings settings_for(std::vector<std::string> urls) {
    config::AvroConverterSettings settings;
    settings.registry_urls = std::move(urls);
    settings.request_timeout_ms = 3000;
    return settings;
}

std::string message_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no error";
}

std::string file_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

const std::string kSchema = R"({"type":"record","name":"V","fields":[{"name":"a","type":"int"}]})";

}  // namespace

// A schema is registered once under its subject (POST /subjects/{s}/versions, the schema as
// a JSON string) and its id remembered: the registry is not asked again for it.
BOOST_AUTO_TEST_CASE(each_distinct_schema_is_registered_once) {
    ScriptedRegistry registry([](const Received&) { return Reply{200, R"({"id":42})"}; });
    const auto settings = settings_for({registry.url()});
    SchemaRegistryClient client(settings, [] { return false; });
    for (int i = 0; i < 5; ++i) BOOST_TEST(client.schema_id("orders-value", kSchema) == 42);
    BOOST_TEST(client.schema_id("orders value/2", kSchema) == 42);
    const auto received = registry.received();
    BOOST_REQUIRE(received.size() == 2u);
    BOOST_TEST(received[0].method == "POST");
    BOOST_TEST(received[0].url == "/subjects/orders-value/versions");
    BOOST_TEST(received[0].body == (nlohmann::json{{"schema", kSchema}}.dump()));
    // Percent-encoded on the wire (a raw space would break the request line); the server decodes it.
    BOOST_TEST(received[1].url == "/subjects/orders value/2/versions");
    BOOST_TEST(client.requests() == 2u);
}

// auto.register.schemas false looks the schema up (POST /subjects/{s}); one not registered is
// the row's fault, named.
BOOST_AUTO_TEST_CASE(without_auto_register_the_schema_is_looked_up) {
    ScriptedRegistry registry([](const Received& r) {
        if (r.url == "/subjects/known-value") return Reply{200, R"({"subject":"known-value","version":3,"id":7})"};
        return Reply{404, R"({"error_code":40401,"message":"Subject 'unknown-value' not found."})"};
    });
    auto settings = settings_for({registry.url()});
    settings.auto_register = false;
    SchemaRegistryClient client(settings, [] { return false; });
    BOOST_TEST(client.schema_id("known-value", kSchema) == 7);
    const std::string refused = message_of([&] { client.schema_id("unknown-value", kSchema); });
    BOOST_TEST(refused.find("not registered under subject \"unknown-value\"") != std::string::npos, refused);
    BOOST_TEST(refused.find("Subject 'unknown-value' not found.") != std::string::npos, refused);
    BOOST_CHECK_THROW(client.schema_id("unknown-value", kSchema), SchemaRefusedError);
}

// 409: the subject, its latest version and the registry's reason, as a refusal of the row.
BOOST_AUTO_TEST_CASE(an_incompatible_schema_names_subject_version_and_reason) {
    ScriptedRegistry registry([](const Received& r) {
        if (r.method == "GET") return Reply{200, R"({"subject":"orders-value","version":4,"id":9,"schema":"{}"})"};
        return Reply{409, R"({"error_code":409,"message":"Incompatible artifact: orders-value [AVRO]"})"};
    });
    const auto settings = settings_for({registry.url()});
    SchemaRegistryClient client(settings, [] { return false; });
    const std::string refused = message_of([&] { client.schema_id("orders-value", kSchema); });
    BOOST_TEST(refused ==
               "schema registry refused the schema under subject \"orders-value\" as incompatible with its latest "
               "version 4: Incompatible artifact: orders-value [AVRO]");
    BOOST_CHECK_THROW(client.schema_id("orders-value", kSchema), SchemaRefusedError);
}

// 401/403: a definite error naming the registry and the credentials refused, never their value.
BOOST_AUTO_TEST_CASE(refused_credentials_are_a_definite_error_without_the_secret) {
    ScriptedRegistry registry([](const Received&) { return Reply{401, R"({"error_code":401,"message":"Unauthorized"})"}; });
    auto settings = settings_for({"http://svc:url-secret-7@127.0.0.1:" + registry.url().substr(17)});
    settings.user_info = "router:very-secret-password";
    SchemaRegistryClient client(settings, [] { return false; });
    const std::string refused = message_of([&] { client.schema_id("orders-value", kSchema); });
    BOOST_TEST(refused.find("HTTP 401 (unauthorized): the registry refused the basic.auth.user.info credentials") !=
                   std::string::npos,
               refused);
    BOOST_TEST(refused.find("very-secret-password") == std::string::npos, refused);
    BOOST_TEST(refused.find("url-secret-7") == std::string::npos, refused);
    BOOST_CHECK_THROW(client.schema_id("orders-value", kSchema), DefiniteError);
    BOOST_CHECK_THROW(client.check(), DefiniteError);
    // The credentials went to the registry as HTTP basic authentication.
    BOOST_TEST(registry.received().front().authorization == "Basic cm91dGVyOnZlcnktc2VjcmV0LXBhc3N3b3Jk");

    auto bearer = settings_for({registry.url()});
    bearer.bearer_token = "token-123";
    SchemaRegistryClient with_token(bearer, [] { return false; });
    BOOST_TEST(message_of([&] { with_token.check(); }).find("the bearer.auth.token") != std::string::npos);
    BOOST_TEST(registry.received().back().authorization == "Bearer token-123");
}

// An unreachable registry or a 5xx: the next URL; when none answers, a transient error naming
// each failure, so the router waits and retries.
BOOST_AUTO_TEST_CASE(failover_across_urls_and_transient_failures) {
    ScriptedRegistry failing([](const Received&) { return Reply{503, R"({"message":"storage unavailable"})"}; });
    ScriptedRegistry healthy([](const Received&) { return Reply{200, R"({"id":5})"}; });
    const std::string nobody = "http://127.0.0.1:1";  // refused at once
    const auto settings = settings_for({nobody, failing.url(), healthy.url()});
    SchemaRegistryClient client(settings, [] { return false; });
    BOOST_TEST(client.schema_id("a-value", kSchema) == 5);
    BOOST_TEST(failing.received().size() == 1u);
    // The registry that answered is asked first from then on.
    BOOST_TEST(client.schema_id("b-value", kSchema) == 5);
    BOOST_TEST(failing.received().size() == 1u);
    BOOST_TEST(healthy.received().size() == 2u);

    const auto down = settings_for({nobody, failing.url()});
    SchemaRegistryClient unreachable(down, [] { return false; });
    const std::string why = message_of([&] { unreachable.schema_id("a-value", kSchema); });
    BOOST_TEST(why.find("schema registry unreachable: http://127.0.0.1:1: ") != std::string::npos, why);
    BOOST_TEST(why.find("HTTP 503 storage unavailable") != std::string::npos, why);
    BOOST_CHECK_THROW(unreachable.schema_id("a-value", kSchema), TransientError);
}

// A registry that takes the connection and never answers: a stop request ends the wait.
BOOST_AUTO_TEST_CASE(a_stop_ends_the_wait_for_a_silent_registry) {
    std::atomic<bool> stop = false;
    ScriptedRegistry silent([&](const Received&) {
        stop = true;  // asked to stop while the client waits for this answer
        std::this_thread::sleep_for(std::chrono::seconds(2));
        return Reply{200, R"({"id":1})"};
    });
    auto settings = settings_for({silent.url()});
    settings.request_timeout_ms = 60000;
    SchemaRegistryClient client(settings, [&] { return stop.load(); });
    const std::string why = message_of([&] { client.schema_id("a-value", kSchema); });
    BOOST_TEST(why.find("stopped while waiting for an answer") != std::string::npos, why);
    BOOST_CHECK_THROW(client.schema_id("a-value", kSchema), TransientError);
}

BOOST_AUTO_TEST_CASE(messages_leave_credentials_out) {
    BOOST_TEST(registry::redacted_url("https://user:pw@registry:8081/apis/ccompat/v7") ==
               "https://registry:8081/apis/ccompat/v7");
    BOOST_TEST(registry::redacted_url("http://registry:8081") == "http://registry:8081");
    BOOST_TEST(registry::registry_message(R"({"error_code":409,"message":"why"})") == "why");
}

// use.latest.version with auto.register.schemas false: the subject's latest version (GET
// /subjects/{s}/versions/latest) and its id, asked once per schema, when it writes the record as
// the record's own schema does (a doc, a default, another namespace spelling change nothing);
// a latest version of other fields, or none, is the row's refusal naming subject and version.
BOOST_AUTO_TEST_CASE(use_latest_version_takes_the_latest_id_of_the_same_canonical_form) {
    const std::string documented =
        R"({"type":"record","name":"V","doc":"ahead","fields":[{"name":"a","type":{"type":"int"},"default":0,"doc":"x"}]})";
    ScriptedRegistry registry([&](const Received& r) {
        if (r.url == "/subjects/same-value/versions/latest")
            return Reply{200, nlohmann::json{{"subject", "same-value"}, {"version", 4}, {"id", 17}, {"schema", documented}}.dump()};
        if (r.url == "/subjects/other-value/versions/latest")
            return Reply{200, nlohmann::json{{"subject", "other-value"}, {"version", 2}, {"id", 9},
                                             {"schema", R"({"type":"record","name":"V","fields":[{"name":"b","type":"int"}]})"}}
                                  .dump()};
        return Reply{404, R"({"error_code":40401,"message":"Subject 'none-value' not found."})"};
    });
    auto settings = settings_for({registry.url()});
    settings.auto_register = false;
    settings.use_latest_version = true;
    SchemaRegistryClient client(settings, [] { return false; });
    for (int i = 0; i < 3; ++i) BOOST_TEST(client.schema_id("same-value", kSchema) == 17);
    const std::string other = message_of([&] { client.schema_id("other-value", kSchema); });
    BOOST_TEST(other.find("use.latest.version: version 2 of subject \"other-value\" (id 9) does not write this record "
                          "as its own schema does") == 0,
               other);
    const std::string none = message_of([&] { client.schema_id("none-value", kSchema); });
    BOOST_TEST(none.find("subject \"none-value\" has no version") != std::string::npos, none);
    BOOST_TEST(none.find("Subject 'none-value' not found.") != std::string::npos, none);
    BOOST_CHECK_THROW(client.schema_id("none-value", kSchema), SchemaRefusedError);
    const auto received = registry.received();
    BOOST_TEST(received.front().method == "GET");
    BOOST_TEST(received.front().url == "/subjects/same-value/versions/latest");
    BOOST_TEST(std::count_if(received.begin(), received.end(),
                             [](const Received& r) { return r.url == "/subjects/same-value/versions/latest"; }) == 1);

    // auto.register.schemas true wins, as in Confluent's serializer: registered, latest not asked.
    settings.auto_register = true;
    ScriptedRegistry registering([](const Received&) { return Reply{200, R"({"id":5})"}; });
    settings.registry_urls = {registering.url()};
    SchemaRegistryClient auto_client(settings, [] { return false; });
    BOOST_TEST(auto_client.schema_id("same-value", kSchema) == 5);
    BOOST_TEST(registering.received().front().url == "/subjects/same-value/versions");
}

// The Avro specification's Parsing Canonical Form: primitives as their names, full names, only
// the attributes that shape the bytes, in its order, no whitespace.
BOOST_AUTO_TEST_CASE(parsing_canonical_form_keeps_what_shapes_the_bytes) {
    using outbox::avro::parsing_canonical_form;
    BOOST_TEST(parsing_canonical_form(R"({"type": "int", "logicalType": "date"})") == R"("int")");
    BOOST_TEST(parsing_canonical_form(R"(["null", {"type": "string", "connect.name": "x"}])") == R"(["null","string"])");
    BOOST_TEST(parsing_canonical_form(R"({"type": "record", "name": "V", "namespace": "a.b", "doc": "d",
        "connect.version": 1, "fields": [{"name": "f", "doc": "x", "default": null, "type": ["null",
        {"type": "record", "name": "Inner", "fields": [{"name": "g", "type": {"type": "array", "items": "long"}}]}]},
        {"name": "h", "type": "Inner"}, {"name": "m", "type": {"type": "map", "values": {"type": "fixed",
        "name": "c.F", "size": 2}}}, {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}}]})") ==
               R"({"name":"a.b.V","type":"record","fields":[{"name":"f","type":["null",{"name":"a.b.Inner","type":"record",)"
               R"("fields":[{"name":"g","type":{"type":"array","items":"long"}}]}]},{"name":"h","type":"a.b.Inner"},)"
               R"({"name":"m","type":{"type":"map","values":{"name":"c.F","type":"fixed","size":2}}},)"
               R"({"name":"e","type":{"name":"a.b.E","type":"enum","symbols":["A","B"]}}]})");
    BOOST_CHECK_THROW(parsing_canonical_form("{"), outbox::avro::AvroSchemaTextError);
    BOOST_CHECK_THROW(parsing_canonical_form(R"({"type": "record", "name": "V"})"), outbox::avro::AvroSchemaTextError);
    // Outside input: nesting beyond any converter's schema is refused, not recursed into.
    BOOST_CHECK_THROW(parsing_canonical_form(std::string(100000, '[') + std::string(100000, ']')),
                      outbox::avro::AvroSchemaTextError);
    BOOST_CHECK_THROW(parsing_canonical_form(R"({"type": "enum", "name": "E", "symbols": [1]})"),
                      outbox::avro::AvroSchemaTextError);
}

// TLS: the registry's CA from schema.registry.ssl.truststore.location, the client certificate and
// key from schema.registry.ssl.keystore.location (one PEM file), which the registry verifies;
// a registry whose certificate the truststore cannot verify does not answer (transient, named).
BOOST_AUTO_TEST_CASE(tls_with_the_ca_and_a_client_certificate) {
    outbox::test::TestCa ca("registry test CA");
    const auto server = ca.server("registry", {"127.0.0.1"});
    ScriptedRegistry registry([](const Received&) { return Reply{200, R"({"id":42})"}; },
                              TlsIdentity{file_text(server.certificate), file_text(server.key), file_text(ca.certificate())});
    auto settings = settings_for({registry.url()});
    settings.ca_location = ca.certificate();
    settings.certificate_location = ca.pem_keystore(ca.client("router", "router"));
    SchemaRegistryClient client(settings, [] { return false; });
    BOOST_TEST(client.schema_id("orders-value", kSchema) == 42);
    BOOST_REQUIRE(registry.received().size() == 1u);
    BOOST_TEST(registry.received()[0].verified_client_certificate);

    settings.certificate_location.clear();
    SchemaRegistryClient anonymous(settings, [] { return false; });
    BOOST_TEST(anonymous.schema_id("orders-value", kSchema) == 42);
    BOOST_TEST(!registry.received().back().verified_client_certificate);

    outbox::test::TestCa stranger("another CA");
    settings.ca_location = stranger.certificate();
    SchemaRegistryClient untrusting(settings, [] { return false; });
    const std::string refused = message_of([&] { untrusting.schema_id("orders-value", kSchema); });
    BOOST_TEST(refused.find("schema registry unreachable: " + registry.url() + ": ") == 0, refused);
    BOOST_TEST(refused.find("certificate") != std::string::npos, refused);
    BOOST_TEST(registry.received().size() == 2u);
}
