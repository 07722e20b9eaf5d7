// A Kafka-protocol endpoint for the benchmark: librdkafka's mock cluster in a process of its
// own, so the router's CPU and memory figures do not include the broker's work.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "outbox/kafka/embedded_cluster.hpp"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }
}  // namespace

int main(int argc, char** argv) {
    const int brokers = argc > 1 ? std::atoi(argv[1]) : 1;
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    outbox::kafka::EmbeddedCluster cluster(brokers);
    std::printf("%s\n", cluster.bootstrap_servers().c_str());
    std::fflush(stdout);
    while (!g_stop) pause();
    return 0;
}
