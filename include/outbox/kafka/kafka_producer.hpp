#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "outbox/kafka/record.hpp"

namespace outbox::kafka {

// What Kafka said about one produced record. Error codes are librdkafka's (the vocabulary the
// rules in delivery_error.cpp classify), whatever stands behind the port.
struct DeliveryReport {
    std::uint64_t tag = 0;  // what produce() was given
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
    std::string_view topic;
    std::int32_t partition = -1;
    std::int64_t offset = -1;
    std::size_t size = 0;  // key + value bytes
    std::int64_t served_at_ms = 0;  // Unix time the report was handed over
    // The record itself, for a dead-letter copy: set on failed reports only, valid in the
    // handler only.
    std::optional<std::string_view> key;
    std::optional<std::string_view> value;
    std::span<const Header> headers;
    std::int64_t timestamp_ms = 0;
};

// A Kafka transaction call that did not succeed, classified the way librdkafka does.
class TransactionError : public std::runtime_error {
public:
    enum class Kind {
        retriable,  // call again
        abortable,  // abort the transaction, then carry on with the same producer
        fatal,      // the producer instance is unusable
        fenced,     // a newer instance with the same transactional.id took over
    };
    TransactionError(Kind kind, const std::string& message) : std::runtime_error(message), kind(kind) {}
    Kind kind;
};

// The port through which the pipeline's decisions reach Kafka: one producer (idempotent, and
// transactional under exactly-once) with the admin calls the router makes. kafka/producer.cpp
// is librdkafka behind it; tests/simulation has a simulated cluster behind it.
class KafkaProducer {
public:
    using DeliveryHandler = std::function<void(const DeliveryReport&)>;

    virtual ~KafkaProducer() = default;

    // Hands one record over; its delivery report will carry `tag`. Returns the error when the
    // record is refused outright (e.g. larger than message.max.bytes), or
    // RD_KAFKA_RESP_ERR__QUEUE_FULL at once when there is no room for it yet; nothing is then in
    // flight.
    virtual rd_kafka_resp_err_t produce(const Record& record, std::uint64_t tag) = 0;
    // Serves waiting delivery reports, waiting up to `timeout_ms` for the first.
    virtual void serve(int timeout_ms) = 0;
    // Sends every queued record now and serves reports until all are acknowledged (true) or
    // `timeout_ms` passes.
    virtual bool flush(int timeout_ms) = 0;
    // A descriptor that becomes readable when reports are waiting, for a poll() loop; -1 when
    // there is none (serve() is then called on a timer).
    virtual int wakeup_fd() const = 0;
    // Gives up every record not yet acknowledged: none of them may reach a broker any more.
    virtual void purge() = 0;

    // Empty when healthy; otherwise the fatal error (e.g. idempotence broken).
    virtual std::string fatal_error() const = 0;
    // Whether the fatal error means another instance with our transactional.id fenced us.
    virtual bool fenced() const = 0;
    // Empty until a broker refused our credentials; then the cause.
    virtual const std::string& authentication_failure() const = 0;
    // Empty unless one broker refuses the connection while others serve it (see
    // ConnectionFailures): then the cause, which becomes definite once a delivery fails or
    // init_transactions gives up.
    virtual const std::string& refusal_blocking_delivery() const = 0;

    // How many partitions `topic` has (cached; asked again when `at_least` is not below the
    // cached count). Nothing when the cluster does not say within `timeout_ms`.
    virtual std::optional<int> partition_count(std::string_view topic, int at_least, int timeout_ms) = 0;
    // Fetches cluster metadata; returns an empty string on success, the reason otherwise.
    virtual std::string check_metadata(int timeout_ms) const = 0;

    // Admin requests, answered later so that nothing waits: one at a time per topic, started by
    // look_up_topic() or create_topic(), answered by admin_answer() once Kafka has (nothing until
    // then). A lookup answers with the topic's partitions (0: it does not exist) and never
    // creates it; CreateTopics takes -1 for the broker's default partitions or replication factor.
    struct AdminAnswer {
        rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
        std::string message;
        int partitions = 0;
    };
    virtual void look_up_topic(std::string_view topic) = 0;
    virtual void create_topic(std::string_view topic, int partitions, int replication_factor,
                              const std::vector<std::pair<std::string, std::string>>& configs) = 0;
    virtual std::optional<AdminAnswer> admin_answer(std::string_view topic) = 0;

    // Kafka transactions (transactional.id set). Each throws TransactionError.
    virtual void init_transactions(int timeout_ms) = 0;
    virtual void begin_transaction() = 0;
    virtual void commit_transaction(int timeout_ms) = 0;
    virtual void abort_transaction(int timeout_ms) = 0;
};

}  // namespace outbox::kafka
