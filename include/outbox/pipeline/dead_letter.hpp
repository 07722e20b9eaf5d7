#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/kafka/record.hpp"
#include "outbox/util/lsn.hpp"

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

    // A dead letter as it was sent (its error headers included), to send again.
    DeadLetter(std::string topic, std::optional<std::string> key, std::optional<std::string> value, HeaderList headers,
               std::int64_t timestamp_ms);

    // Sends the letter without the original value, saying why and how large it was, so that a
    // record refused for its size still fits the dead-letter topic.
    void drop_value(const std::string& reason);
    bool has_value() const { return value_.has_value(); }

    // Views into this object; valid while it lives and is not moved.
    kafka::Record record() const;

private:
    void index_headers();

    std::string topic_;
    std::optional<std::string> key_;
    std::optional<std::string> value_;
    HeaderList headers_;
    std::vector<kafka::Header> header_views_;
    std::int64_t timestamp_ms_ = 0;
};

}  // namespace outbox::pipeline
