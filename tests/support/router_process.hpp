#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>

namespace outbox::test {

// The outbox-router binary run as a child process with a config file, its output in a log
// file, so tests can stop it with a signal, kill -9 it, and read what it printed.
class RouterProcess {
public:
    RouterProcess(const std::string& work_dir, const std::string& config_yaml,
                  const std::string& extra_argument = "");
    ~RouterProcess();
    RouterProcess(const RouterProcess&) = delete;
    RouterProcess& operator=(const RouterProcess&) = delete;

    // Sends `signal` and waits for the exit code (-1 on timeout, after which it is killed).
    int stop(int signal, std::chrono::milliseconds timeout = std::chrono::seconds(60));
    // Waits for the process to exit by itself; -1 on timeout.
    int wait(std::chrono::milliseconds timeout);
    void kill_hard();
    bool running();
    std::string output() const;
    // Waits until the router streams from its slot for the `times`-th time (it says so once per
    // connection); false if it exits or `timeout` passes first.
    bool wait_streaming(int times = 1, std::chrono::milliseconds timeout = std::chrono::seconds(60));
    int times_streamed() const;
    std::string config_path() const { return config_path_; }
    int pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    int exit_code_ = -1;
    std::string config_path_;
    std::string log_path_;
};

// Runs the router binary to completion (for --check, --help, bad configs); returns exit code
// and puts stdout+stderr into `output`.
int run_router(const std::string& arguments, std::string& output);

// Polls `condition` every 50 ms until it holds or `timeout` passes; returns whether it held.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

}  // namespace outbox::test
