#include "debezium_connect.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "pg_server.hpp"
#include "router_process.hpp"

namespace outbox::test {
namespace {

std::string read_if_exists(const std::string& path) {
    return std::filesystem::exists(path) ? read_file(path) : std::string();
}

std::string tail_of(const std::string& path, int lines) {
    std::istringstream in(read_if_exists(path));
    std::vector<std::string> all;
    for (std::string line; std::getline(in, line);) all.push_back(line);
    std::string text;
    for (std::size_t i = all.size() > static_cast<std::size_t>(lines) ? all.size() - lines : 0; i < all.size(); ++i)
        text += all[i] + "\n";
    return text;
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

}  // namespace

std::string debezium_runtime_libs() { return OUTBOX_DEBEZIUM_RUNTIME_LIBS; }

DebeziumConnect::DebeziumConnect(DebeziumConnectSpec spec) : spec_(std::move(spec)) {
    std::filesystem::create_directories(spec_.dir);
    write_files();
    const std::string out = spec_.dir + "/jvm.out";
    const std::string log_config = "-Dlog4j2.configurationFile=" + spec_.dir + "/log4j2.properties";
    const std::string class_path = debezium_runtime_libs() + "/*";
    const std::string worker = spec_.dir + "/worker.properties";
    const char* home = std::getenv("JAVA_HOME");
    const std::string java = home && *home ? std::string(home) + "/bin/java" : "java";

    std::vector<std::string> arguments = {"java", "-Xms128m", "-Xmx384m", "-XX:+UseSerialGC",
                                          "-Djava.awt.headless=true", log_config, "-cp", class_path,
                                          "org.apache.kafka.connect.cli.ConnectStandalone", worker};
    arguments.insert(arguments.end(), connector_files_.begin(), connector_files_.end());
    std::vector<char*> argv;
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test program that dies takes Connect along
        const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        execvp(java.c_str(), argv.data());
        _exit(127);
    }
}

DebeziumConnect::~DebeziumConnect() { kill_hard(); }

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
    write_file(spec_.dir + "/log4j2.properties",
               "appender.file.type = File\n"
               "appender.file.name = FILE\n"
               "appender.file.fileName = " + spec_.dir + "/connect.log\n"
               "appender.file.layout.type = PatternLayout\n"
               "appender.file.layout.pattern = [%d] %p %m (%c)%n\n"
               "rootLogger.level = INFO\n"
               "rootLogger.appenderRef.file.ref = FILE\n"
               "logger.kafka.name = org.apache.kafka\n"
               "logger.kafka.level = WARN\n");
}

void DebeziumConnect::wait_until_ready(const std::function<bool()>& ready, const std::string& what,
                                       std::chrono::milliseconds timeout) {
    std::string failure;
    const bool held = outbox::test::wait_until(
        [&] {
            if (!running()) failure = "Kafka Connect exited";
            else if (read_if_exists(spec_.dir + "/connect.log").find("] ERROR ") != std::string::npos)
                failure = "Kafka Connect logged an error";
            return !failure.empty() || ready();
        },
        timeout);
    if (held && failure.empty()) return;
    if (failure.empty()) failure = "timed out";
    throw std::runtime_error("Debezium (Kafka Connect) not ready: " + what + ": " + failure + "\n" + log_tail());
}

bool DebeziumConnect::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
    }
    return true;
}

void DebeziumConnect::kill_hard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
}

std::string DebeziumConnect::log_tail(int lines) const {
    return "--- " + spec_.dir + "/connect.log\n" + tail_of(spec_.dir + "/connect.log", lines) + "--- " + spec_.dir +
           "/jvm.out\n" + tail_of(spec_.dir + "/jvm.out", lines / 2);
}

}  // namespace outbox::test
