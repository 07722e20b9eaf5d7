// A Kafka-protocol endpoint for the benchmark: librdkafka's mock cluster in a process of its
// own, so the router's CPU and memory figures do not include the broker's work.
//
//   outbox-bench-kafka [BROKERS] [TOPIC[:PARTITIONS]]...
//
// Prints the bootstrap servers on the first line, then serves until SIGTERM/SIGINT. Topics named
// on the command line are created up front (default 4 partitions, the mock cluster's default for
// auto-created topics), so a consumer can be assigned to them before the first record exists.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
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
    for (int i = 2; i < argc; ++i) {
        std::string topic = argv[i];
        int partitions = 4;
        if (const auto colon = topic.rfind(':'); colon != std::string::npos) {
            partitions = std::atoi(topic.c_str() + colon + 1);
            topic.resize(colon);
        }
        if (rd_kafka_mock_topic_create(cluster.mock(), topic.c_str(), partitions, brokers < 3 ? brokers : 3) !=
            RD_KAFKA_RESP_ERR_NO_ERROR) {
            std::fprintf(stderr, "outbox-bench-kafka: cannot create topic %s\n", topic.c_str());
            return 1;
        }
    }
    std::printf("%s\n", cluster.bootstrap_servers().c_str());
    std::fflush(stdout);
    while (!g_stop) pause();
    return 0;
}
