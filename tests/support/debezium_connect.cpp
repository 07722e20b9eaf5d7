#include "debezium_connect.hpp"

#include <filesystem>
#include <stdexcept>

#include "harness.hpp"
#include "pg_server.hpp"
#include "router_process.hpp"

namespace outbox::test {
namespace {

std::string read_if_exists(const std::string& path) {
    return std::filesystem::exists(path) ? read_file(path) : std::string();
}

// A .properties file reads `\` as an escape: regexes such as `dbz\.s\.outbox` need it doubled.
std::string properties_text(const std::map<std::string, std::string>& properties) {
    std::string text;
    for (const auto& [name, value] : properties) {
        text += name + "=";
        for (const char c : value) {
            if (c == '\\') text += '\\';
            text += c;
        }
        text += "\n";
    }
    return text;
}

// Each connector's streaming source logs this once it reads its slot. A slot can be active before:
// while CREATE_REPLICATION_SLOT waits for the transactions already running, which it will not
// decode.
constexpr std::string_view kStreaming = "Processing messages (io.debezium.connector.postgresql.";

std::size_t occurrences(const std::string& text, std::string_view needle) {
    std::size_t count = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
    return count;
}

}  // namespace

std::string debezium_runtime_libs() { return OUTBOX_DEBEZIUM_RUNTIME_LIBS; }

std::map<std::string, std::string> postgres_connector(const std::string& name, const std::string& database,
                                                      const std::string& slot) {
    return {
        {"name", name},
        {"connector.class", "io.debezium.connector.postgresql.PostgresConnector"},
        {"tasks.max", "1"},
        {"plugin.name", "pgoutput"},
        {"database.hostname", "127.0.0.1"},
        {"database.port", std::to_string(postgres().port())},
        {"database.user", "postgres"},
        {"database.dbname", database},
        {"topic.prefix", name},
        {"slot.name", slot},
        {"publication.name", slot},
        {"publication.autocreate.mode", "filtered"},
        {"snapshot.mode", "no_data"},
        {"status.update.interval.ms", "200"},
        {"poll.interval.ms", "50"},
    };
}

DebeziumConnect::DebeziumConnect(DebeziumConnectSpec spec) : spec_(std::move(spec)) {
    std::filesystem::create_directories(spec_.dir);
    write_files();
    // The client compiler alone: the worker starts much sooner and serves a test's few records.
    std::vector<std::string> arguments = {"-Xms128m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                                          "-Djava.awt.headless=true",
                                          "-Dlog4j2.configurationFile=" + spec_.dir + "/log4j2.properties", "-cp",
                                          debezium_runtime_libs() + "/*",
                                          "org.apache.kafka.connect.cli.ConnectStandalone", spec_.dir + "/worker.properties"};
    arguments.insert(arguments.end(), connector_files_.begin(), connector_files_.end());
    process_.start(arguments, spec_.dir + "/jvm.out");
}

void DebeziumConnect::write_files() {
    std::map<std::string, std::string> worker = {
        {"offset.storage.file.filename", spec_.dir + "/offsets"},
        {"offset.flush.interval.ms", "1000"},
        {"listeners", "http://127.0.0.1:" + std::to_string(free_loopback_port())},
    };
    for (const auto& [name, value] : spec_.worker) worker[name] = value;
    write_file(spec_.dir + "/worker.properties", properties_text(worker));

    for (const auto& connector : spec_.connectors) {
        const auto name = connector.find("name");
        if (name == connector.end()) throw std::logic_error("a connector's properties need a name");
        connector_files_.push_back(spec_.dir + "/" + name->second + ".properties");
        write_file(connector_files_.back(), properties_text(connector));
    }
    write_file(spec_.dir + "/log4j2.properties", log4j2_file_config(spec_.dir + "/connect.log"));
}

void DebeziumConnect::wait_until_ready(const std::function<bool()>& ready, const std::string& what,
                                       std::chrono::milliseconds timeout) {
    std::string failure;
    const bool held = outbox::test::wait_until(
        [&] {
            const std::string log = read_if_exists(spec_.dir + "/connect.log");
            if (!running()) failure = "Kafka Connect exited";
            else if (log.find("] ERROR ") != std::string::npos) failure = "Kafka Connect logged an error";
            return !failure.empty() || (occurrences(log, kStreaming) >= spec_.connectors.size() && ready());
        },
        timeout);
    if (held && failure.empty()) return;
    if (failure.empty()) failure = "timed out";
    throw std::runtime_error("Debezium (Kafka Connect) not ready: " + what + ": " + failure + "\n" + log_tail());
}

std::string DebeziumConnect::log_tail(int lines) const {
    return "--- " + spec_.dir + "/connect.log\n" + tail_of_file(spec_.dir + "/connect.log", lines) + "--- " + spec_.dir +
           "/jvm.out\n" + tail_of_file(spec_.dir + "/jvm.out", lines / 2);
}

}  // namespace outbox::test
