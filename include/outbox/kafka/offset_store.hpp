#pragma once

#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/record.hpp"
#include "outbox/util/lsn.hpp"

namespace outbox::kafka {

// Which PostgreSQL stream an offsets record belongs to.
struct SourceIdentity {
    std::string system_id;
    std::string database;
    std::string slot;

    std::string key() const;                      // "<system id>/<database>/<slot>"
    std::string default_transactional_id() const;  // "outbox-router-<system id>-<database>-<slot>"
};

// The exactly-once position in Kafka: a compacted topic holding, per source, the commit end_lsn
// of the last PostgreSQL transaction inside a committed Kafka transaction. The record is
// written in the same Kafka transaction as the events, so it is visible exactly when they are.
class OffsetStore {
public:
    OffsetStore(const config::KafkaSettings& settings, std::string bootstrap_servers, std::string topic,
                SourceIdentity source);

    // Creates the topic (cleanup.policy=compact) unless it exists.
    void ensure_topic() const;

    // The newest committed position for this source, read with isolation.level=read_committed;
    // 0 when there is none. Throws TransientError when Kafka cannot be read.
    Lsn read_committed_position() const;

    // The record to write in a Kafka transaction whose last PostgreSQL commit ends at `end_lsn`.
    // Views into this object: valid until the next call.
    Record record_for(Lsn end_lsn);

    const std::string& topic() const { return topic_; }

private:
    const config::KafkaSettings& settings_;
    std::string bootstrap_servers_;
    std::string topic_;
    SourceIdentity source_;
    std::string key_;
    std::string value_;
};

}  // namespace outbox::kafka
