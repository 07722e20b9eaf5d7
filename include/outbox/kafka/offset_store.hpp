#pragma once

#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_connector.hpp"
#include "outbox/kafka/offsets_record.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::kafka {

// The exactly-once position in Kafka: a compacted topic holding, per source, the commit end_lsn
// of the last PostgreSQL transaction inside a committed Kafka transaction. The record is
// written in the same Kafka transaction as the events, so it is visible exactly when they are.
class OffsetStore final : public OffsetsTopic {
public:
    OffsetStore(const config::KafkaSettings& settings, std::string bootstrap_servers, std::string topic,
                SourceIdentity source);

    // Creates the topic (cleanup.policy=compact) unless it exists. Each wait looks at
    // `stop_requested` every 100 ms and ends with a TransientError once it holds.
    void ensure_topic(const StopRequested& stop_requested) override;

    // The newest committed position for this source, read with isolation.level=read_committed;
    // 0 when there is none. Throws TransientError when Kafka cannot be read or a stop is requested.
    Lsn read_committed_position(const StopRequested& stop_requested) override;

    const std::string& topic() const { return topic_; }

private:
    // The topic's partitions (0: it does not exist), from the metadata of all topics: asking for
    // the one topic would let a broker with auto.create.topics.enable create it uncompacted.
    int partition_count(const StopRequested& stop_requested) const;

    const config::KafkaSettings& settings_;
    std::string bootstrap_servers_;
    std::string topic_;
    SourceIdentity source_;
    std::string key_;
};

}  // namespace outbox::kafka
