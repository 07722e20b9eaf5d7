// outbox-bench-startup: time from process start (fork) to a log line, over several runs.
//
//   outbox-bench-startup [--runs 10] [--line "streaming from slot"] [--log FILE] -- COMMAND ARGS...
//
// Each run forks COMMAND with stdout and stderr on a pipe, notes the monotonic clock just before
// fork() and when a line containing LINE arrives, then stops it with SIGTERM and waits for it
// (the stop is not timed). Prints every run and min / median / max in milliseconds; the last line
// is "summary: min_ms=... median_ms=... max_ms=... cpu_median_ms=...". The CPU figure is the
// command's user+sys over its whole life (wait4: microseconds, all threads), so start-up plus
// the stop after SIGTERM: what a run of the router costs besides streaming.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "bench_util.hpp"

using namespace outbox::bench;

int main(int argc, char** argv) try {
    const Args args(argc, argv);
    if (args.rest().empty()) throw std::runtime_error("no command after --");
    const int runs = static_cast<int>(args.number("runs", 10));
    const std::string wanted = args.get("line", "streaming from slot");
    FILE* log = std::fopen(args.get("log", "/dev/null").c_str(), "w");
    std::vector<std::int64_t> times;
    std::vector<std::int64_t> cpu_times;
    for (int run = 0; run < runs; ++run) {
        int out[2];
        if (pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
        const std::int64_t start = mono_us();
        const pid_t child = spawn_with_output(args.rest(), out[1]);
        close(out[1]);
        std::string seen;
        std::int64_t found = 0;
        char buffer[4096];
        while (found == 0) {
            pollfd fd{out[0], POLLIN, 0};
            if (poll(&fd, 1, 30000) <= 0) throw std::runtime_error("no \"" + wanted + "\" within 30 s");
            const ssize_t n = read(out[0], buffer, sizeof buffer);
            if (n <= 0) throw std::runtime_error("the command ended before \"" + wanted + "\":\n" + seen);
            seen.append(buffer, static_cast<std::size_t>(n));
            if (seen.find(wanted) != std::string::npos) found = mono_us();
        }
        kill(child, SIGTERM);
        ssize_t n;
        while ((n = read(out[0], buffer, sizeof buffer)) > 0) seen.append(buffer, static_cast<std::size_t>(n));
        int status = 0;
        rusage usage{};
        wait4(child, &status, 0, &usage);
        close(out[0]);
        std::fprintf(log, "--- run %d\n%s", run + 1, seen.c_str());
        times.push_back(found - start);
        const std::int64_t cpu_us = static_cast<std::int64_t>(1e6 * (seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime)));
        cpu_times.push_back(cpu_us);
        std::printf("run %d: %.1f ms (CPU of the whole run %.1f ms)\n", run + 1, static_cast<double>(found - start) / 1e3,
                    static_cast<double>(cpu_us) / 1e3);
    }
    std::fclose(log);
    std::sort(times.begin(), times.end());
    std::sort(cpu_times.begin(), cpu_times.end());
    std::printf("summary: runs=%d min_ms=%.1f median_ms=%.1f max_ms=%.1f cpu_median_ms=%.1f\n", runs, times.front() / 1e3,
                quantile(times, 0.5) / 1e3, times.back() / 1e3, quantile(cpu_times, 0.5) / 1e3);
    return 0;
} catch (const std::exception& e) {
    std::cerr << "outbox-bench-startup: " << e.what() << "\n";
    return 1;
}
