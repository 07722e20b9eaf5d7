#include "outbox/pipeline/shutdown_signal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

namespace outbox::pipeline {
namespace {
std::atomic<bool> g_requested{false};
int g_pipe[2] = {-1, -1};

void on_signal(int) { ShutdownSignal::request(); }
}  // namespace

void ShutdownSignal::install() {
    if (g_pipe[0] < 0 && pipe2(g_pipe, O_NONBLOCK | O_CLOEXEC) != 0) g_pipe[0] = g_pipe[1] = -1;
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

bool ShutdownSignal::requested() { return g_requested.load(); }

int ShutdownSignal::fd() { return g_pipe[0]; }

void ShutdownSignal::request() {
    g_requested.store(true);
    if (g_pipe[1] >= 0) {
        const char byte = 1;
        [[maybe_unused]] const auto written = write(g_pipe[1], &byte, 1);
    }
}

}  // namespace outbox::pipeline
