#include "broker_node.hpp"

#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "pg_server.hpp"
#include "router_process.hpp"

namespace outbox::test {
namespace {

// Small heaps: a test machine runs up to three nodes beside PostgreSQL and the router. The
// cleaner's dedupe buffer is allocated on the heap at start, so it shrinks with it.
const std::map<std::string, std::string>& default_properties() {
    static const std::map<std::string, std::string> defaults = {
        {"process.roles", "broker,controller"},
        {"controller.listener.names", "CONTROLLER"},
        {"inter.broker.listener.name", "PLAINTEXT"},
        {"log.cleaner.dedupe.buffer.size", "2097152"},
        {"group.initial.rebalance.delay.ms", "0"},
        {"num.partitions", "3"},
        {"offsets.topic.num.partitions", "1"},
        {"transaction.state.log.num.partitions", "1"},
        {"num.network.threads", "2"},
        {"num.io.threads", "2"},
        {"log.segment.bytes", "33554432"},
        // Records may carry event timestamps years old; time-based retention would delete them
        // during a long test program.
        {"log.retention.ms", "-1"},
        // A node killed and started again registers anew only once the controllers have fenced
        // its old incarnation, and a killed node's partitions move only then: Kafka's 9 s session
        // would be waited out at each such step of a test.
        {"broker.heartbeat.interval.ms", "500"},
        {"broker.session.timeout.ms", "4000"},
    };
    return defaults;
}

// A test broker's JVM lives for seconds to minutes and shares two cores with PostgreSQL and the
// router: the client compiler alone starts it much sooner, and serves a test's load.
const std::vector<std::string>& quick_start_jvm_options() {
    static const std::vector<std::string> options = {"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto"};
    return options;
}

}  // namespace

std::string kafka_runtime_libs() { return OUTBOX_KAFKA_RUNTIME_LIBS; }
std::string kafka3_runtime_libs() { return OUTBOX_KAFKA3_RUNTIME_LIBS; }

BrokerNode::BrokerNode(BrokerNodeSpec spec) : spec_(std::move(spec)) {
    if (spec_.runtime_libs.empty()) spec_.runtime_libs = kafka_runtime_libs();
    std::filesystem::create_directories(spec_.dir + "/data");
    write_properties();
    format_storage();
}

void BrokerNode::write_properties() const {
    auto properties = default_properties();
    const std::string id = std::to_string(spec_.node_id);
    std::string listeners = "PLAINTEXT://127.0.0.1:" + std::to_string(spec_.port) +
                            ",CONTROLLER://127.0.0.1:" + std::to_string(spec_.controller_port);
    std::string advertised = "PLAINTEXT://127.0.0.1:" + std::to_string(spec_.port);
    std::string protocols = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT";
    std::string plain_users;
    for (const auto& [name, password] : spec_.sasl_users) plain_users += " user_" + name + "=\"" + password + "\"";
    auto add_sasl_logins = [&](const std::string& listener) {
        properties["sasl.enabled.mechanisms"] = "PLAIN,SCRAM-SHA-512";
        properties["listener.name." + listener + ".scram-sha-512.sasl.jaas.config"] =
            "org.apache.kafka.common.security.scram.ScramLoginModule required;";
        properties["listener.name." + listener + ".plain.sasl.jaas.config"] =
            "org.apache.kafka.common.security.plain.PlainLoginModule required" + plain_users + ";";
    };
    if (spec_.sasl_port != 0) {
        listeners += ",SASL://127.0.0.1:" + std::to_string(spec_.sasl_port);
        advertised += ",SASL://127.0.0.1:" + std::to_string(spec_.sasl_port);
        protocols += ",SASL:SASL_PLAINTEXT";
        add_sasl_logins("sasl");
    }
    for (const auto& tls : spec_.tls_listeners) {
        const std::string port = std::to_string(tls.port);
        std::string prefix = "listener.name.";
        for (const char c : tls.name) prefix += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        listeners += "," + tls.name + "://127.0.0.1:" + port;
        advertised += "," + tls.name + "://" + spec_.tls_host + ":" + port;
        protocols += "," + tls.name + (tls.sasl ? ":SASL_SSL" : ":SSL");
        // Kafka reads a PEM key store as one file holding the key and then the certificate.
        const std::string keystore = spec_.dir + "/" + tls.name + "-keystore.pem";
        write_file(keystore, read_file(tls.key) + read_file(tls.certificate));
        properties[prefix + ".ssl.keystore.type"] = "PEM";
        properties[prefix + ".ssl.keystore.location"] = keystore;
        if (tls.client_auth) {
            properties[prefix + ".ssl.client.auth"] = "required";
            properties[prefix + ".ssl.truststore.type"] = "PEM";
            properties[prefix + ".ssl.truststore.location"] = tls.client_ca;
        }
        if (tls.sasl) add_sasl_logins(prefix.substr(std::string("listener.name.").size()));
    }
    properties["node.id"] = id;
    properties["controller.quorum.voters"] = spec_.quorum_voters;
    properties["listeners"] = listeners;
    properties["advertised.listeners"] = advertised;
    properties["listener.security.protocol.map"] = protocols;
    properties["log.dirs"] = spec_.dir + "/data";
    for (const auto& [name, value] : spec_.properties) properties[name] = value;

    std::string text;
    for (const auto& [name, value] : properties) text += name + "=" + value + "\n";
    write_file(spec_.dir + "/server.properties", text);
    write_file(spec_.dir + "/log4j2.properties", log4j2_file_config(spec_.dir + "/server.log"));
}

void BrokerNode::format_storage() const {
    std::string command = shell_quote(java_binary()) + " -Xmx128m";
    for (const auto& option : quick_start_jvm_options()) command += " " + option;
    command += " -cp " + shell_quote(spec_.runtime_libs + "/*") +
                          " kafka.tools.StorageTool format --ignore-formatted -t " + shell_quote(spec_.cluster_id) +
                          " -c " + shell_quote(spec_.dir + "/server.properties");
    for (const auto& [name, password] : spec_.sasl_users)
        command += " --add-scram " + shell_quote("SCRAM-SHA-512=[name=" + name + ",password=" + password + "]");
    const std::string log = spec_.dir + "/format.log";
    if (std::system((command + " >" + shell_quote(log) + " 2>&1").c_str()) != 0)
        throw std::runtime_error("Kafka node " + std::to_string(spec_.node_id) +
                                 ": formatting the storage failed:\n" + tail_of_file(log, 20));
}

void BrokerNode::start() {
    if (process_.running()) throw std::logic_error("Kafka node " + std::to_string(spec_.node_id) + " is already running");
    std::vector<std::string> arguments = {"-Xms192m", "-Xmx384m"};
    arguments.insert(arguments.end(), quick_start_jvm_options().begin(), quick_start_jvm_options().end());
    arguments.insert(arguments.end(), {"-Djava.awt.headless=true", "-Dlog4j2.configurationFile=" + spec_.dir + "/log4j2.properties",
                                       "-Dkafka.logs.dir=" + spec_.dir, "-cp", spec_.runtime_libs + "/*", "kafka.Kafka",
                                       spec_.dir + "/server.properties"});
    process_.start(arguments, spec_.dir + "/jvm.out");
}

std::string BrokerNode::tls_address(const std::string& name) const {
    for (const auto& tls : spec_.tls_listeners)
        if (tls.name == name) return spec_.tls_host + ":" + std::to_string(tls.port);
    throw std::out_of_range("Kafka node " + std::to_string(spec_.node_id) + " has no TLS listener " + name);
}

std::string BrokerNode::log_tail(int lines) const {
    return "--- " + spec_.dir + "/server.log\n" + tail_of_file(spec_.dir + "/server.log", lines) + "--- " + spec_.dir +
           "/jvm.out\n" + tail_of_file(spec_.dir + "/jvm.out", lines / 2);
}

}  // namespace outbox::test
