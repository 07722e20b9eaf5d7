// A Kafka-protocol endpoint for the benchmark: librdkafka's mock cluster in a process of its
// own, so the router's CPU and memory figures do not include the broker's work.
//
//   outbox-bench-kafka [BROKERS] [TOPIC[:PARTITIONS]]...
//   env KAFKA_RTT_MS: every broker delays each response by this many milliseconds (the mock
//   cluster's rd_kafka_mock_broker_set_rtt), to stand for a broker across a network, whose acks=all
//   round trip includes its replicas; default 0 (loopback only).
//
// Prints the bootstrap servers on the first line, then serves until SIGTERM/SIGINT. Topics named
// on the command line are created up front (default 4 partitions, the mock cluster's default for
// auto-created topics), so a consumer can be assigned to them before the first record exists.
//
// A real broker turns Nagle's algorithm off on every connection it accepts; the mock cluster does
// not, which makes a response wait up to the client's 40 ms delayed ACK whenever an earlier one
// is still unacknowledged. This process therefore sets TCP_NODELAY on its connections itself,
// within 10 ms of their accept.
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "outbox/kafka/embedded_cluster.hpp"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

void disable_nagle_on_connected_sockets() {
    DIR* fds = opendir("/proc/self/fd");
    if (!fds) return;
    while (const dirent* entry = readdir(fds)) {
        const int fd = std::atoi(entry->d_name);
        if (fd <= 2 || fd == dirfd(fds)) continue;
        int type = 0, listening = 0;
        socklen_t size = sizeof type;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_STREAM) continue;
        size = sizeof listening;
        if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || listening) continue;
        const int on = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    closedir(fds);
}
}  // namespace

int main(int argc, char** argv) {
    const int brokers = argc > 1 ? std::atoi(argv[1]) : 1;
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    outbox::kafka::EmbeddedCluster cluster(brokers);
    if (const char* rtt = std::getenv("KAFKA_RTT_MS"); rtt && std::atoi(rtt) > 0 &&
        rd_kafka_mock_broker_set_rtt(cluster.mock(), -1, std::atoi(rtt)) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        std::fprintf(stderr, "outbox-bench-kafka: cannot set the brokers' round trip to %s ms\n", rtt);
        return 1;
    }
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
    while (!g_stop) {
        disable_nagle_on_connected_sockets();
        usleep(10000);
    }
    return 0;
}
