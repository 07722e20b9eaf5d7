#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "outbox/kafka/kafka_producer.hpp"
#include "outbox/kafka/offsets_record.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::kafka {

// Whether the caller was asked to stop: its waits end then, with a TransientError.
using StopRequested = std::function<bool()>;

// Exactly-once: the compacted offsets topic as the router reads it at start.
class OffsetsTopic {
public:
    virtual ~OffsetsTopic() = default;
    // Creates the topic (cleanup.policy=compact) unless it exists.
    virtual void ensure_topic(const StopRequested& stop_requested) = 0;
    // The newest committed position for the source, read with isolation.level=read_committed;
    // 0 when there is none. Throws TransientError when Kafka cannot be read.
    virtual Lsn read_committed_position(const StopRequested& stop_requested) = 0;
};

// The port that makes the pipeline's Kafka clients: librdkafka in production
// (kafka/librdkafka_connector.cpp), a simulated cluster under tests/simulation.
class KafkaConnector {
public:
    virtual ~KafkaConnector() = default;
    // `overrides` are set after the configured properties (e.g. a derived transactional.id).
    virtual std::unique_ptr<KafkaProducer> producer(KafkaProducer::DeliveryHandler on_delivery,
                                                    const std::vector<std::pair<std::string, std::string>>& overrides) = 0;
    virtual std::unique_ptr<OffsetsTopic> offsets_topic(const std::string& topic, const SourceIdentity& source) = 0;
};

}  // namespace outbox::kafka
