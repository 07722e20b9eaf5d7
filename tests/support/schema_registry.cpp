#include "schema_registry.hpp"

#include <curl/curl.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "pg_server.hpp"
#include "test_ca.hpp"

namespace outbox::test {
namespace {

size_t append_body(char* data, size_t size, size_t count, void* out) {
    static_cast<std::string*>(out)->append(data, size * count);
    return size * count;
}

}  // namespace

SchemaRegistry::SchemaRegistry() : dir_(make_temp_dir("outbox-registry-")), port_(free_loopback_port()) {
    const int management_port = free_loopback_port();
    const CertifiedKey server = test_ca().server("registry", {"127.0.0.1", "localhost"});
    process_.start({"-Xmx512m", "-Dquarkus.http.host=127.0.0.1",
                    "-Dquarkus.http.port=" + std::to_string(free_loopback_port()),
                    "-Dquarkus.http.ssl-port=" + std::to_string(port_), "-Dquarkus.http.insecure-requests=disabled",
                    "-Dquarkus.http.ssl.certificate.files=" + server.certificate,
                    "-Dquarkus.http.ssl.certificate.key-files=" + server.key,
                    // Apicurio reads quarkus.http.auth.basic at run time for its mechanism chain
                    // (Quarkus warns that the property is fixed at build time).
                    "-Dquarkus.http.auth.basic=true", "-Dquarkus.security.users.embedded.enabled=true",
                    "-Dquarkus.security.users.embedded.plain-text=true",
                    "-Dquarkus.security.users.embedded.users." + user_info().substr(0, user_info().find(':')) + "=" +
                        user_info().substr(user_info().find(':') + 1),
                    "-Dquarkus.http.auth.permission.registry.paths=/apis/*",
                    "-Dquarkus.http.auth.permission.registry.policy=authenticated", "-Dquarkus.management.host=127.0.0.1",
                    "-Dquarkus.management.port=" + std::to_string(management_port),
                    "-Djava.io.tmpdir=" + dir_, "-jar", std::string(OUTBOX_APICURIO_DIR) + "/quarkus-run.jar"},
                   dir_ + "/registry.log", OUTBOX_APICURIO_JAVA);
    // Quarkus takes 25 to 40 s to start on two busy cores.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
    while (request("GET", "/subjects").status != 200) {
        if (!process_.running() || std::chrono::steady_clock::now() > deadline)
            throw std::runtime_error("the schema registry did not start:\n" + tail_of_file(dir_ + "/registry.log", 30));
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
}

SchemaRegistry::~SchemaRegistry() {
    process_.resume();
    process_.kill_hard();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

std::string SchemaRegistry::url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/apis/ccompat/v7"; }

std::string SchemaRegistry::core_url() const {
    return "https://127.0.0.1:" + std::to_string(port_) + "/apis/registry/v3";
}

std::string SchemaRegistry::ca_file() const { return test_ca().certificate(); }

RegistryReply SchemaRegistry::request(const std::string& method, const std::string& path, const std::string& body) {
    RegistryReply reply;
    CURL* curl = curl_easy_init();
    const std::string target = path.starts_with("/apis/") ? url().substr(0, url().find("/apis/")) + path : url() + path;
    curl_easy_setopt(curl, CURLOPT_URL, target.c_str());
    const std::string ca = ca_file();
    curl_easy_setopt(curl, CURLOPT_CAINFO, ca.c_str());
    const std::string credentials = user_info();
    curl_easy_setopt(curl, CURLOPT_USERPWD, credentials.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/vnd.schemaregistry.v1+json");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (!body.empty()) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    if (curl_easy_perform(curl) == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return reply;
}

SchemaRegistry& schema_registry() {
    static SchemaRegistry registry;
    return registry;
}

std::string confluent_python() { return std::string(OUTBOX_PYTHON_VENV) + "/bin/python"; }

std::string avro_readers_environment() {
    return "AVRO_JAVA=" + java_binary() + " AVRO_JAVA_LIBS=" + std::string(OUTBOX_AVRO_RUNTIME_LIBS) +
           " REGISTRY_CA=" + test_ca().certificate() + " REGISTRY_USER_INFO=" + SchemaRegistry::user_info() + " ";
}

}  // namespace outbox::test
