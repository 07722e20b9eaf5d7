#pragma once

#include <librdkafka/rdkafka.h>

#include <memory>

namespace outbox::kafka {

// Owning handles for librdkafka objects; each releases with the matching destroy function.
struct ConfDeleter {
    void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
struct HandleDeleter {
    void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
struct TopicDeleter {
    void operator()(rd_kafka_topic_t* rkt) const { rd_kafka_topic_destroy(rkt); }
};
struct QueueDeleter {
    void operator()(rd_kafka_queue_t* rkqu) const { rd_kafka_queue_destroy(rkqu); }
};
struct MetadataDeleter {
    void operator()(const rd_kafka_metadata_t* md) const { rd_kafka_metadata_destroy(md); }
};

using ConfPtr = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;
using HandlePtr = std::unique_ptr<rd_kafka_t, HandleDeleter>;
using TopicPtr = std::unique_ptr<rd_kafka_topic_t, TopicDeleter>;
using QueuePtr = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using MetadataPtr = std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter>;

}  // namespace outbox::kafka
