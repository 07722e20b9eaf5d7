#include "kafka_reader.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "outbox/kafka/handles.hpp"
#include "outbox/kafka/topic_reader.hpp"

namespace outbox::test {
namespace {

using Clock = std::chrono::steady_clock;

kafka::HandlePtr make_consumer(const std::string& bootstrap_servers,
                               Isolation isolation = Isolation::read_committed) {
    kafka::ConfPtr conf(rd_kafka_conf_new());
    char error[512];
    static int counter = 0;
    const std::pair<const char*, std::string> settings[] = {
        {"bootstrap.servers", bootstrap_servers},
        {"group.id", "outbox-test-reader-" + std::to_string(++counter)},
        {"enable.auto.commit", "false"},
        {"enable.partition.eof", "true"},
        // A partition's end is known only from a fetch answer with nothing past it, which the
        // broker holds this long for data: every read ends with one.
        {"fetch.wait.max.ms", "10"},
        {"isolation.level", isolation == Isolation::read_committed ? "read_committed" : "read_uncommitted"},
        {"log_level", "3"},
    };
    for (const auto& [name, value] : settings)
        if (rd_kafka_conf_set(conf.get(), name, value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK)
            throw std::runtime_error(error);
    kafka::HandlePtr consumer(rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), error, sizeof error));
    if (!consumer) throw std::runtime_error(error);
    conf.release();
    return consumer;
}

// Asks for the topic by its handle: the answer also tells the client each partition's leader, which
// an assignment made without it waits for (a fetch position is looked up on the leader, retried
// every 500 ms until there is one).
int partition_count(rd_kafka_t* rk, const std::string& topic, Clock::time_point deadline) {
    const kafka::TopicPtr handle(rd_kafka_topic_new(rk, topic.c_str(), nullptr));
    while (Clock::now() < deadline) {
        const rd_kafka_metadata_t* raw = nullptr;
        if (rd_kafka_metadata(rk, 0, handle.get(), &raw, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
            kafka::MetadataPtr metadata(raw);
            for (int i = 0; i < metadata->topic_cnt; ++i)
                if (topic == metadata->topics[i].topic && metadata->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
                    metadata->topics[i].partition_cnt > 0)
                    return metadata->topics[i].partition_cnt;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return 0;
}

}  // namespace

std::optional<std::string> ConsumedRecord::header(const std::string& name) const {
    for (const auto& [n, v] : headers)
        if (n == name) return v;
    return std::nullopt;
}

std::vector<std::string> list_topics(const std::string& bootstrap_servers) {
    auto consumer = make_consumer(bootstrap_servers);
    const rd_kafka_metadata_t* raw = nullptr;
    if (rd_kafka_metadata(consumer.get(), 1, nullptr, &raw, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR) return {};
    kafka::MetadataPtr metadata(raw);
    std::vector<std::string> topics;
    for (int i = 0; i < metadata->topic_cnt; ++i) topics.emplace_back(metadata->topics[i].topic);
    std::sort(topics.begin(), topics.end());
    return topics;
}

std::vector<std::int64_t> partition_end_offsets(const std::string& bootstrap_servers, const std::string& topic,
                                                std::chrono::milliseconds timeout) {
    auto consumer = make_consumer(bootstrap_servers);
    const int partitions = partition_count(consumer.get(), topic, Clock::now() + timeout);
    std::vector<std::int64_t> ends;
    for (int p = 0; p < partitions; ++p) {
        int64_t low = 0, high = 0;
        if (rd_kafka_query_watermark_offsets(consumer.get(), topic.c_str(), p, &low, &high, 10000) !=
            RD_KAFKA_RESP_ERR_NO_ERROR)
            throw std::runtime_error("no watermarks for " + topic + " [" + std::to_string(p) + "]");
        ends.push_back(high);
    }
    return ends;
}

long topic_record_count(const std::string& bootstrap_servers, const std::string& topic) {
    try {
        const auto ends = partition_end_offsets(bootstrap_servers, topic);
        if (ends.empty()) return -1;
        long total = 0;
        for (const auto end : ends) total += end;
        return total;
    } catch (const std::runtime_error&) {
        return -1;
    }
}

std::vector<ConsumedRecord> read_topic(const std::string& bootstrap_servers, const std::string& topic,
                                       std::size_t at_least, std::chrono::milliseconds timeout,
                                       Isolation isolation) {
    const auto deadline = Clock::now() + timeout;
    auto consumer = make_consumer(bootstrap_servers, isolation);
    const int partitions = partition_count(consumer.get(), topic, deadline);
    if (partitions == 0) return {};

    std::vector<std::vector<ConsumedRecord>> by_partition(partitions);
    std::size_t total = 0;
    // Consume errors (a broker failing over) are passed over: the read goes on until the deadline.
    kafka::read_topic_to_end(
        consumer.get(), topic, partitions, deadline,
        [&](const rd_kafka_message_t& message) {
            ConsumedRecord record;
            record.topic = topic;
            record.partition = message.partition;
            record.offset = message.offset;
            if (message.key) record.key.emplace(static_cast<const char*>(message.key), message.key_len);
            if (message.payload) record.value.emplace(static_cast<const char*>(message.payload), message.len);
            rd_kafka_timestamp_type_t type;
            record.timestamp_ms = rd_kafka_message_timestamp(&message, &type);
            rd_kafka_headers_t* headers = nullptr;
            if (rd_kafka_message_headers(&message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
                const char* name;
                const void* value;
                size_t size;
                for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i)
                    record.headers.emplace_back(name, value ? std::optional<std::string>(std::string(
                                                                  static_cast<const char*>(value), size))
                                                            : std::nullopt);
            }
            by_partition[message.partition].push_back(std::move(record));
            ++total;
        },
        [&] { return total >= at_least; });
    rd_kafka_consumer_close(consumer.get());
    std::vector<ConsumedRecord> records;
    for (auto& partition : by_partition)
        for (auto& record : partition) records.push_back(std::move(record));
    return records;
}

}  // namespace outbox::test
