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
struct MessageDeleter {
    void operator()(rd_kafka_message_t* message) const { rd_kafka_message_destroy(message); }
};
struct EventDeleter {
    void operator()(rd_kafka_event_t* event) const { rd_kafka_event_destroy(event); }
};
struct ErrorDeleter {
    void operator()(rd_kafka_error_t* error) const { rd_kafka_error_destroy(error); }
};
struct NewTopicDeleter {
    void operator()(rd_kafka_NewTopic_t* topic) const { rd_kafka_NewTopic_destroy(topic); }
};
struct PartitionListDeleter {
    void operator()(rd_kafka_topic_partition_list_t* list) const { rd_kafka_topic_partition_list_destroy(list); }
};

using ConfPtr = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;
using HandlePtr = std::unique_ptr<rd_kafka_t, HandleDeleter>;
using TopicPtr = std::unique_ptr<rd_kafka_topic_t, TopicDeleter>;
using QueuePtr = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using MetadataPtr = std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter>;
using MessagePtr = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;
using EventPtr = std::unique_ptr<rd_kafka_event_t, EventDeleter>;
using ErrorPtr = std::unique_ptr<rd_kafka_error_t, ErrorDeleter>;
using NewTopicPtr = std::unique_ptr<rd_kafka_NewTopic_t, NewTopicDeleter>;
using PartitionListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

}  // namespace outbox::kafka
