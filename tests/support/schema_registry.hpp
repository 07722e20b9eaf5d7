#pragma once

#include <cstdint>
#include <string>

#include "java_process.hpp"

namespace outbox::test {

struct RegistryReply {
    long status = 0;  // 0: no answer
    std::string body;
};

// Apicurio Registry 3.3.3 (fetched from Maven Central at build time, run on a Java 21+ JDK) on
// a free loopback port, in-memory storage, its management port on loopback too; started by the
// constructor and waited for until its Confluent-compatible API answers, killed by the destructor.
// HTTPS only (plain HTTP refused), its certificate from test_ca(). It cannot require client
// certificates: the build fixes quarkus.http.ssl.client-auth to NONE. Every API asks for HTTP
// basic authentication (Quarkus's embedded users and an `authenticated` path policy): user_info().
class SchemaRegistry {
public:
    SchemaRegistry();
    ~SchemaRegistry();
    SchemaRegistry(const SchemaRegistry&) = delete;
    SchemaRegistry& operator=(const SchemaRegistry&) = delete;

    // The Confluent-compatible API: https://127.0.0.1:<port>/apis/ccompat/v7
    std::string url() const;
    // Apicurio's own (core) API, as Apicurio's serializers name it: https://127.0.0.1:<port>/apis/registry/v3
    std::string core_url() const;
    // The CA (PEM) that signed its certificate.
    std::string ca_file() const;
    // The credentials it takes, "user:password".
    static std::string user_info() { return "router:registry-s3cret"; }
    // A request to the Confluent-compatible API, e.g. ("PUT", "/config/orders-value",
    // R"({"compatibility":"BACKWARD"})"), or to any API by its path from /apis/.
    RegistryReply request(const std::string& method, const std::string& path, const std::string& body = "");

    void pause() { process_.pause(); }    // SIGSTOP: holds its socket, answers nothing
    void resume() { process_.resume(); }  // SIGCONT

private:
    std::string dir_;
    int port_ = 0;
    JavaProcess process_;
};

// One registry per test program, started on first use.
SchemaRegistry& schema_registry();

// The Python interpreter of the virtual environment the build makes with Confluent's client
// (confluent-kafka with its avro and schemaregistry extras).
std::string confluent_python();

// The environment tests/integration/avro_records.py reads, as a shell prefix: Apache Avro for
// Java (the java binary and Avro's jars), the registry's CA and credentials.
std::string avro_readers_environment();

}  // namespace outbox::test
