#include "router_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "pg_server.hpp"

namespace outbox::test {
namespace {
int decode_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}
}  // namespace

RouterProcess::RouterProcess(const std::string& work_dir, const std::string& config_yaml,
                             const std::string& extra_argument) {
    static int counter = 0;
    const std::string stem = work_dir + "/router-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    config_path_ = stem + ".yaml";
    log_path_ = stem + ".log";
    write_file(config_path_, config_yaml);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(log, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        if (extra_argument.empty())
            execl(OUTBOX_ROUTER_BINARY, "outbox-router", "--config", config_path_.c_str(), static_cast<char*>(nullptr));
        else
            execl(OUTBOX_ROUTER_BINARY, "outbox-router", "--config", config_path_.c_str(), extra_argument.c_str(),
                  static_cast<char*>(nullptr));
        _exit(127);
    }
}

RouterProcess::~RouterProcess() {
    if (running()) kill_hard();
}

bool RouterProcess::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
        exit_code_ = decode_status(status);
        pid_ = -1;
        return false;
    }
    return true;
}

int RouterProcess::wait(std::chrono::milliseconds timeout) {
    if (!wait_until([&] { return !running(); }, timeout)) return -1;
    return exit_code_;
}

int RouterProcess::stop(int signal, std::chrono::milliseconds timeout) {
    if (!running()) return exit_code_;
    kill(pid_, signal);
    const int code = wait(timeout);
    if (code == -1) kill_hard();
    return code;
}

void RouterProcess::kill_hard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_code_ = decode_status(status);
    pid_ = -1;
}

std::string RouterProcess::output() const { return read_file(log_path_); }

int RouterProcess::times_streamed() const {
    constexpr std::string_view kStreaming = "streaming from slot";
    const std::string text = output();
    int seen = 0;
    for (auto at = text.find(kStreaming); at != std::string::npos; at = text.find(kStreaming, at + 1)) ++seen;
    return seen;
}

bool RouterProcess::wait_streaming(int times, std::chrono::milliseconds timeout) {
    wait_until([&] { return times_streamed() >= times || !running(); }, timeout);
    return times_streamed() >= times;
}

int run_router(const std::string& arguments, std::string& output) {
    const std::string command = std::string(OUTBOX_ROUTER_BINARY) + " " + arguments + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw std::runtime_error("popen failed");
    std::array<char, 4096> buffer;
    output.clear();
    while (const size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
    const int status = pclose(pipe);
    return decode_status(status);
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return condition();
}

}  // namespace outbox::test
