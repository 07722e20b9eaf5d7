#include "broker_node.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "pg_server.hpp"
#include "router_process.hpp"

namespace outbox::test {
namespace {

std::string java_binary() {
    if (const char* home = std::getenv("JAVA_HOME"); home && *home) return std::string(home) + "/bin/java";
    return "java";
}

std::string tail_of(const std::string& path, int lines) {
    std::ifstream in(path);
    std::deque<std::string> kept;
    for (std::string line; std::getline(in, line);) {
        kept.push_back(line);
        if (static_cast<int>(kept.size()) > lines) kept.pop_front();
    }
    std::string text;
    for (const auto& line : kept) text += line + "\n";
    return text;
}

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
    };
    return defaults;
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

BrokerNode::~BrokerNode() {
    if (pid_ > 0) {
        kill(pid_, SIGCONT);
        kill_hard();
    }
}

void BrokerNode::write_properties() const {
    auto properties = default_properties();
    const std::string id = std::to_string(spec_.node_id);
    std::string listeners = "PLAINTEXT://127.0.0.1:" + std::to_string(spec_.port) +
                            ",CONTROLLER://127.0.0.1:" + std::to_string(spec_.controller_port);
    std::string advertised = "PLAINTEXT://127.0.0.1:" + std::to_string(spec_.port);
    std::string protocols = "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT";
    if (spec_.sasl_port != 0) {
        listeners += ",SASL://127.0.0.1:" + std::to_string(spec_.sasl_port);
        advertised += ",SASL://127.0.0.1:" + std::to_string(spec_.sasl_port);
        protocols += ",SASL:SASL_PLAINTEXT";
        properties["sasl.enabled.mechanisms"] = "PLAIN,SCRAM-SHA-512";
        properties["listener.name.sasl.scram-sha-512.sasl.jaas.config"] =
            "org.apache.kafka.common.security.scram.ScramLoginModule required;";
        std::string plain_users;
        for (const auto& [name, password] : spec_.sasl_users) plain_users += " user_" + name + "=\"" + password + "\"";
        properties["listener.name.sasl.plain.sasl.jaas.config"] =
            "org.apache.kafka.common.security.plain.PlainLoginModule required" + plain_users + ";";
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
    write_file(spec_.dir + "/log4j2.properties",
               "appender.file.type = File\n"
               "appender.file.name = FILE\n"
               "appender.file.fileName = " + spec_.dir + "/server.log\n"
               "appender.file.layout.type = PatternLayout\n"
               "appender.file.layout.pattern = [%d] %p %m (%c)%n\n"
               "rootLogger.level = INFO\n"
               "rootLogger.appenderRef.file.ref = FILE\n"
               "logger.kafka.name = org.apache.kafka\n"
               "logger.kafka.level = WARN\n");
}

void BrokerNode::format_storage() const {
    std::string command = shell_quote(java_binary()) + " -Xmx128m -cp " + shell_quote(spec_.runtime_libs + "/*") +
                          " kafka.tools.StorageTool format --ignore-formatted -t " + shell_quote(spec_.cluster_id) +
                          " -c " + shell_quote(spec_.dir + "/server.properties");
    for (const auto& [name, password] : spec_.sasl_users)
        command += " --add-scram " + shell_quote("SCRAM-SHA-512=[name=" + name + ",password=" + password + "]");
    const std::string log = spec_.dir + "/format.log";
    if (std::system((command + " >" + shell_quote(log) + " 2>&1").c_str()) != 0)
        throw std::runtime_error("Kafka node " + std::to_string(spec_.node_id) +
                                 ": formatting the storage failed:\n" + tail_of(log, 20));
}

void BrokerNode::start() {
    if (running()) throw std::logic_error("Kafka node " + std::to_string(spec_.node_id) + " is already running");
    const std::string out = spec_.dir + "/jvm.out";
    const std::string log_config = "-Dlog4j2.configurationFile=" + spec_.dir + "/log4j2.properties";
    const std::string logs_dir = "-Dkafka.logs.dir=" + spec_.dir;
    const std::string class_path = spec_.runtime_libs + "/*";
    const std::string properties = spec_.dir + "/server.properties";
    const std::string java = java_binary();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test program that dies takes its brokers along
        const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        execlp(java.c_str(), "java", "-Xms192m", "-Xmx384m", "-XX:+UseSerialGC", "-Djava.awt.headless=true",
               log_config.c_str(), logs_dir.c_str(), "-cp", class_path.c_str(), "kafka.Kafka", properties.c_str(),
               static_cast<char*>(nullptr));
        _exit(127);
    }
}

bool BrokerNode::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
    }
    return true;
}

void BrokerNode::stop(std::chrono::milliseconds timeout) {
    if (!running()) return;
    kill(pid_, SIGCONT);
    kill(pid_, SIGTERM);
    if (!wait_until([&] { return !running(); }, timeout)) kill_hard();
}

void BrokerNode::kill_hard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
}

void BrokerNode::pause() {
    if (pid_ > 0) kill(pid_, SIGSTOP);
}

void BrokerNode::resume() {
    if (pid_ > 0) kill(pid_, SIGCONT);
}

std::string BrokerNode::log_tail(int lines) const {
    return "--- " + spec_.dir + "/server.log\n" + tail_of(spec_.dir + "/server.log", lines) + "--- " + spec_.dir +
           "/jvm.out\n" + tail_of(spec_.dir + "/jvm.out", lines / 2);
}

}  // namespace outbox::test
