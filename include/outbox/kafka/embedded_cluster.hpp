#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string>

#include "outbox/kafka/handles.hpp"

namespace outbox::kafka {

// librdkafka's in-process mock cluster: real Kafka protocol on loopback TCP ports, no broker
// to install. For `kafka.embedded.brokers` (demos) and for tests, which also use it to inject
// broker faults.
class EmbeddedCluster {
public:
    explicit EmbeddedCluster(int broker_count);
    EmbeddedCluster(const EmbeddedCluster&) = delete;
    EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;
    ~EmbeddedCluster();

    std::string bootstrap_servers() const;
    rd_kafka_mock_cluster_t* mock() const { return cluster_; }

private:
    HandlePtr owner_;  // the mock cluster lives inside a librdkafka handle
    rd_kafka_mock_cluster_t* cluster_ = nullptr;
};

}  // namespace outbox::kafka
