#include "java_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <stdexcept>

#include "router_process.hpp"

namespace outbox::test {

std::string java_binary() {
    if (const char* home = std::getenv("JAVA_HOME"); home && *home) return std::string(home) + "/bin/java";
    return "java";
}

std::string tail_of_file(const std::string& path, int lines) {
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

std::string log4j2_file_config(const std::string& log_file) {
    return "appender.file.type = File\n"
           "appender.file.name = FILE\n"
           "appender.file.fileName = " + log_file + "\n"
           "appender.file.layout.type = PatternLayout\n"
           "appender.file.layout.pattern = [%d] %p %m (%c)%n\n"
           "rootLogger.level = INFO\n"
           "rootLogger.appenderRef.file.ref = FILE\n"
           "logger.kafka.name = org.apache.kafka\n"
           "logger.kafka.level = WARN\n";
}

JavaProcess::~JavaProcess() {
    resume();
    kill_hard();
}

void JavaProcess::start(const std::vector<std::string>& arguments, const std::string& output_file,
                        const std::string& java_override) {
    if (running()) throw std::logic_error("a JVM is already running for this process");
    std::vector<std::string> command = {"java"};
    command.insert(command.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (auto& argument : command) argv.push_back(argument.data());
    argv.push_back(nullptr);
    const std::string java = java_override.empty() ? java_binary() : java_override;

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test program that dies takes its JVMs along
        const int fd = open(output_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        execvp(java.c_str(), argv.data());
        _exit(127);
    }
}

bool JavaProcess::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
    }
    return true;
}

void JavaProcess::stop(std::chrono::milliseconds timeout) {
    if (!running()) return;
    kill(pid_, SIGCONT);
    kill(pid_, SIGTERM);
    if (!wait_until([&] { return !running(); }, timeout)) kill_hard();
}

void JavaProcess::kill_hard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
}

void JavaProcess::pause() {
    if (pid_ > 0) kill(pid_, SIGSTOP);
}

void JavaProcess::resume() {
    if (pid_ > 0) kill(pid_, SIGCONT);
}

}  // namespace outbox::test
