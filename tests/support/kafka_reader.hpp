#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace outbox::test {

struct ConsumedRecord {
    std::string topic;
    std::int32_t partition = -1;
    std::int64_t offset = -1;
    std::optional<std::string> key;
    std::optional<std::string> value;
    std::vector<std::pair<std::string, std::optional<std::string>>> headers;
    std::int64_t timestamp_ms = 0;

    std::optional<std::string> header(const std::string& name) const;  // first header with that name
};

// What a consumer is shown of transactional records: only committed ones, or also those of
// open and aborted transactions.
enum class Isolation { read_committed, read_uncommitted };

// Reads every record of `topic` from the beginning over the Kafka protocol, waiting until at
// least `at_least` records are there (or `timeout` passes), then to the end of every partition.
// Records come back partition by partition, in offset order.
std::vector<ConsumedRecord> read_topic(const std::string& bootstrap_servers, const std::string& topic,
                                       std::size_t at_least,
                                       std::chrono::milliseconds timeout = std::chrono::seconds(60),
                                       Isolation isolation = Isolation::read_committed);

// Each partition's end offset (high watermark), by partition number; empty when the topic does
// not exist within `timeout`.
std::vector<std::int64_t> partition_end_offsets(const std::string& bootstrap_servers, const std::string& topic,
                                                std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Records ever appended to `topic`: the sum of its partitions' high watermarks (the mock
// cluster keeps only the newest few MB per partition, so low watermarks move); -1 if unreadable.
long topic_record_count(const std::string& bootstrap_servers, const std::string& topic);

// Topic names the cluster knows.
std::vector<std::string> list_topics(const std::string& bootstrap_servers);

}  // namespace outbox::test
