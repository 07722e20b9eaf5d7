#pragma once

#include <cstdint>
#include <string>

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

// Exactly-once: the record that stores, in the offsets topic, the commit end_lsn of the last
// PostgreSQL transaction of a Kafka transaction. Pure.
class OffsetsRecord {
public:
    OffsetsRecord(std::string topic, SourceIdentity source);

    // The record for a Kafka transaction whose last PostgreSQL commit ends at `end_lsn`. Views
    // into this object: valid until the next call.
    Record record_for(Lsn end_lsn, std::int64_t timestamp_ms);

    // The position a record's value holds; nothing when it is not an outbox-router position.
    static std::optional<Lsn> position_of(std::string_view value);

private:
    std::string topic_;
    SourceIdentity source_;
    std::string key_;
    std::string value_;
};

}  // namespace outbox::kafka
