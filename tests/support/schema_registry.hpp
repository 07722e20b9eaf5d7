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
class SchemaRegistry {
public:
    SchemaRegistry();
    ~SchemaRegistry();
    SchemaRegistry(const SchemaRegistry&) = delete;
    SchemaRegistry& operator=(const SchemaRegistry&) = delete;

    // The Confluent-compatible API: http://127.0.0.1:<port>/apis/ccompat/v7
    std::string url() const;
    // A request to the Confluent-compatible API, e.g. ("PUT", "/config/orders-value",
    // R"({"compatibility":"BACKWARD"})").
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

}  // namespace outbox::test
