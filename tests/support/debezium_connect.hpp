#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "java_process.hpp"

namespace outbox::test {

// A Kafka Connect standalone worker and the connectors it runs, as properties files.
struct DebeziumConnectSpec {
    std::string dir;                                // properties, offsets and logs
    std::map<std::string, std::string> worker;      // worker.properties, added to or replacing the defaults
    std::vector<std::map<std::string, std::string>> connectors;  // one properties file each, with "name"
};

// Debezium as Kafka Connect users run it: `ConnectStandalone worker.properties connector...`
// from the jars `make` copied into the build tree (tests/debezium-runtime/pom.xml). The worker's
// defaults: offsets in a file flushed every second, its REST listener on a free loopback port;
// converters, bootstrap servers and producer overrides are the caller's. The constructor starts
// the JVM and returns at once.
class DebeziumConnect {
public:
    explicit DebeziumConnect(DebeziumConnectSpec spec);
    DebeziumConnect(const DebeziumConnect&) = delete;
    DebeziumConnect& operator=(const DebeziumConnect&) = delete;

    // Polls until every connector streams from its slot and `ready` holds. Throws, with the log's tail, when the worker exits, logs an
    // ERROR (a connector or task that failed to start), or `timeout` passes first.
    void wait_until_ready(const std::function<bool()>& ready, const std::string& what,
                          std::chrono::milliseconds timeout = std::chrono::seconds(120));
    bool running() { return process_.running(); }
    // SIGTERM: Connect stops its tasks and writes their offsets; SIGKILL after `timeout`.
    void stop(std::chrono::milliseconds timeout = std::chrono::seconds(60)) { process_.stop(timeout); }
    void kill_hard() { process_.kill_hard(); }
    // The last `lines` lines of Connect's log and of the JVM's own output.
    std::string log_tail(int lines = 60) const;

private:
    void write_files();

    DebeziumConnectSpec spec_;
    std::vector<std::string> connector_files_;
    JavaProcess process_;
};

// The PostgreSQL connector's properties for `database` on the test server, named `name`, with
// topic.prefix `name` and a slot and a filtered publication named `slot`; no snapshot, and short
// waits so that a test does not wait on Debezium's defaults. Callers add tables and transforms.
std::map<std::string, std::string> postgres_connector(const std::string& name, const std::string& database,
                                                      const std::string& slot);

// The folder of Kafka Connect's and Debezium's runtime jars (the build tree's copy).
std::string debezium_runtime_libs();

}  // namespace outbox::test
