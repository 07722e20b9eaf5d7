#pragma once

// Small helpers shared by the benchmark tools: clocks, /proc readings, argument parsing.
// Benchmark-only code: nothing here is linked into outbox-router.

#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace outbox::bench {

// Wall clock in microseconds since the Unix epoch: comparable with PostgreSQL commit times and
// Kafka record timestamps taken on the same machine.
inline std::int64_t unix_us() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

// Monotonic clock in microseconds: for durations.
inline std::int64_t mono_us() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

// user and sys CPU seconds of a live process (all its threads), from /proc/PID/stat; false if gone.
inline bool proc_cpu(pid_t pid, double& user, double& sys) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return false;
    // The command name (field 2) may contain spaces: parse after its closing parenthesis.
    const auto close = line.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream fields(line.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14) utime = std::stoull(field);
        if (i == 15) stime = std::stoull(field);
    }
    const auto ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    user = static_cast<double>(utime) / ticks;
    sys = static_cast<double>(stime) / ticks;
    return true;
}

// A getrusage() time in seconds.
inline double seconds_of(const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// user+sys CPU seconds of a live process; -1 if gone.
inline double proc_cpu_seconds(pid_t pid) {
    double user = 0, sys = 0;
    return proc_cpu(pid, user, sys) ? user + sys : -1;
}

// A "Name:  value kB" field of /proc/PID/status (VmHWM, VmRSS) in KiB; -1 if absent.
inline long proc_status_kib(pid_t pid, const std::string& name) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, name.size() + 1, name + ":") == 0) return std::atol(line.c_str() + name.size() + 1);
    }
    return -1;
}

// Busy CPU time of the whole machine in seconds (all cores; /proc/stat's first line minus idle
// and iowait): with the run's own processes subtracted, what the neighbours used.
// The event sequence number the latency benchmark writes as the payload's last 12 hex digits;
// -1 for any other payload.
inline std::int64_t seq_of(const void* value, std::size_t size) {
    if (size < 12) return -1;
    const char* text = static_cast<const char*>(value) + size - 12;
    std::int64_t seq = 0;
    for (int i = 0; i < 12; ++i) {
        const char c = text[i];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return -1;
        seq = seq * 16 + digit;
    }
    return seq;
}

// Starts `command` with its stdout and stderr on `output_fd`; returns the child's pid.
inline pid_t spawn_with_output(const std::vector<std::string>& command, int output_fd) {
    const pid_t child = fork();
    if (child != 0) return child;
    dup2(output_fd, STDOUT_FILENO);
    dup2(output_fd, STDERR_FILENO);
    std::vector<char*> argv;
    for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::perror("exec");
    _exit(127);
}

inline double machine_busy_seconds() {
    std::ifstream in("/proc/stat");
    std::string cpu;
    unsigned long long v[10] = {};
    in >> cpu;
    for (auto& x : v) in >> x;
    const unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];  // user nice system irq softirq steal
    return static_cast<double>(busy) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// "--name value" pairs after the positional arguments; "--" ends them (a command follows).
class Args {
public:
    Args(int argc, char** argv) {
        for (int i = 1; i < argc; ++i) {
            std::string arg = argv[i];
            if (arg == "--") {
                for (++i; i < argc; ++i) rest_.emplace_back(argv[i]);
                break;
            }
            if (arg.rfind("--", 0) == 0) {
                const auto eq = arg.find('=');
                if (eq != std::string::npos) {
                    values_[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
                } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
                    values_[arg.substr(2)] = argv[++i];
                } else {
                    values_[arg.substr(2)] = "1";
                }
            } else {
                positional_.push_back(arg);
            }
        }
    }
    bool has(const std::string& name) const { return values_.count(name) != 0; }
    std::string get(const std::string& name, const std::string& fallback = "") const {
        const auto found = values_.find(name);
        return found == values_.end() ? fallback : found->second;
    }
    std::string required(const std::string& name) const {
        if (!has(name)) throw std::runtime_error("missing --" + name);
        return get(name);
    }
    double number(const std::string& name, double fallback) const {
        return has(name) ? std::stod(get(name)) : fallback;
    }
    const std::vector<std::string>& rest() const { return rest_; }
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::map<std::string, std::string> values_;
    std::vector<std::string> positional_;
    std::vector<std::string> rest_;
};

// The q-quantile (0..1) of sorted values, nearest-rank.
template <typename T>
T quantile(const std::vector<T>& sorted, double q) {
    if (sorted.empty()) return T{};
    const double rank = std::ceil(q * static_cast<double>(sorted.size()));
    const auto index = rank < 1 ? std::size_t{0} : static_cast<std::size_t>(rank) - 1;
    return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace outbox::bench
