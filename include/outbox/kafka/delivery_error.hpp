#pragma once

#include <librdkafka/rdkafka.h>

namespace outbox::kafka {

// What a refused record means for the router, whether librdkafka refused it at produce() or in
// its delivery report.
enum class DeliveryErrorClass {
    // About this record alone: sending it again can never succeed, and the records after it are
    // fine (too large, a timestamp or policy the topic refuses, a partition it does not have).
    // errors.tolerance decides: stop, dead-letter or skip.
    record,
    // About the producer or the cluster's state, not the record (timed out, fenced, leader
    // moved): a new producer replays it from the slot.
    producer,
    // Retrying cannot fix it and no record would do better (authentication, authorization of the
    // cluster, an answer with no rule here): stop, confirming nothing past it.
    definite,
};

DeliveryErrorClass classify_delivery_error(rd_kafka_resp_err_t error);

}  // namespace outbox::kafka
