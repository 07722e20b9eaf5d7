#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace outbox::kafka {

struct Header {
    std::string_view name;
    std::optional<std::string_view> value;  // nullopt: a header with a null value
};

// One record to produce. Views into storage the caller keeps until produce() returns
// (librdkafka copies what it sends).
struct Record {
    std::string_view topic;
    std::int32_t partition = -1;            // -1: the producer's partitioner decides
    std::optional<std::string_view> key;    // nullopt: no key
    std::optional<std::string_view> value;  // nullopt: null value (a tombstone)
    std::span<const Header> headers;
    std::int64_t timestamp_ms = 0;
};

// Key and value bytes: what the in-flight limits count.
inline std::size_t record_size(const Record& record) {
    return (record.key ? record.key->size() : 0) + (record.value ? record.value->size() : 0);
}

}  // namespace outbox::kafka
