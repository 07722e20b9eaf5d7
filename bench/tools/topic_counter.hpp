#pragma once

#include <librdkafka/rdkafka.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace outbox::bench {

// How many records a set of topics holds: the sum of their partitions' high watermarks (every
// record of a non-transactional producer counts). One client, metadata read once.
class TopicCounter {
public:
    TopicCounter(const std::string& bootstrap, const std::vector<std::string>& topics) {
        rd_kafka_conf_t* conf = rd_kafka_conf_new();
        char error[512];
        if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK)
            throw std::runtime_error(error);
        handle_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
        if (!handle_) throw std::runtime_error(std::string("kafka: ") + error);
        for (const auto& topic : topics) {
            rd_kafka_topic_t* t = rd_kafka_topic_new(handle_, topic.c_str(), nullptr);
            const rd_kafka_metadata_t* metadata = nullptr;
            const auto err = rd_kafka_metadata(handle_, 0, t, &metadata, 10000);
            rd_kafka_topic_destroy(t);
            if (err != RD_KAFKA_RESP_ERR_NO_ERROR || metadata->topic_cnt != 1)
                throw std::runtime_error("kafka: no metadata for " + topic);
            for (int p = 0; p < metadata->topics[0].partition_cnt; ++p) partitions_.emplace_back(topic, p);
            rd_kafka_metadata_destroy(metadata);
        }
    }
    ~TopicCounter() { rd_kafka_destroy(handle_); }
    TopicCounter(const TopicCounter&) = delete;
    TopicCounter& operator=(const TopicCounter&) = delete;

    long long records() {
        long long total = 0;
        for (const auto& [topic, partition] : partitions_) {
            int64_t low = 0, high = 0;
            if (rd_kafka_query_watermark_offsets(handle_, topic.c_str(), partition, &low, &high, 5000) ==
                RD_KAFKA_RESP_ERR_NO_ERROR)
                total += high;
        }
        return total;
    }

private:
    rd_kafka_t* handle_ = nullptr;
    std::vector<std::pair<std::string, int>> partitions_;
};

}  // namespace outbox::bench
