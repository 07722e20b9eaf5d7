#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/router/outbox_router.hpp"

namespace outbox::pipeline {

// Kafka record headers owned by the router: (name, value or null).
using HeaderList = std::vector<std::pair<std::string, std::optional<std::string>>>;

// An event that could not be delivered, as the record sent to errors.deadletterqueue.topic.name:
// its original key, value and headers, plus headers saying what went wrong and where it came
// from (Kafka Connect's __connect.errors.* names, and ours for the PostgreSQL origin).
class DeadLetter {
public:
    struct Origin {
        std::string source;  // schema-qualified table, or "message prefix <p>"
        Lsn commit_lsn = 0;
        std::uint32_t xid = 0;
        std::int64_t timestamp_ms = 0;
    };

    DeadLetter(std::string topic, std::optional<std::string> key, std::optional<std::string> value,
               HeaderList original_headers,
               const std::string& original_topic, const std::string& stage, const std::string& cause,
               const Origin& origin);

    // Views into this object; valid while it lives and is not moved.
    router::OutboxRecord record() const;

private:
    std::string topic_;
    std::optional<std::string> key_;
    std::optional<std::string> value_;
    HeaderList headers_;
    std::vector<router::KafkaHeader> header_views_;
    std::int64_t timestamp_ms_ = 0;
};

}  // namespace outbox::pipeline
