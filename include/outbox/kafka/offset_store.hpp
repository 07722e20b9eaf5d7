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

    // Creates the topic (cleanup.policy=compact) unless it exists.
    void ensure_topic() override;

    // The newest committed position for this source, read with isolation.level=read_committed;
    // 0 when there is none. Throws TransientError when Kafka cannot be read.
    Lsn read_committed_position() override;

    const std::string& topic() const { return topic_; }

private:
    const config::KafkaSettings& settings_;
    std::string bootstrap_servers_;
    std::string topic_;
    SourceIdentity source_;
    std::string key_;
};

}  // namespace outbox::kafka
