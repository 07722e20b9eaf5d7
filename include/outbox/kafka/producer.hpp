#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/kafka/connection_failures.hpp"
#include "outbox/kafka/admin_requests.hpp"
#include "outbox/kafka/handles.hpp"
#include "outbox/util/file_descriptor.hpp"
#include "outbox/kafka/kafka_producer.hpp"
#include "outbox/kafka/record.hpp"

namespace outbox::kafka {

// The librdkafka producer. Delivery reports are handed to `on_delivery` from serve(), on the
// caller's thread; wakeup_fd() becomes readable when reports are waiting, so one poll() loop
// can wait on PostgreSQL and Kafka at once.
class Producer final : public KafkaProducer {
public:

    // `bootstrap_servers` overrides kafka.bootstrap.servers when non-empty (embedded cluster).
    // Bad librdkafka properties throw ConfigError with the property's file:line.
    // `overrides` are set after the configured properties (e.g. a derived transactional.id).
    Producer(const config::KafkaSettings& settings, const std::string& bootstrap_servers,
             DeliveryHandler on_delivery, const std::vector<std::pair<std::string, std::string>>& overrides = {});
    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;
    ~Producer();

    // Hands one record to librdkafka; its delivery report will carry `tag`. Never waits: returns
    // RD_KAFKA_RESP_ERR__QUEUE_FULL while librdkafka's queue is full, and librdkafka's error when
    // the record is refused outright (e.g. larger than message.max.bytes); nothing is then in flight.
    rd_kafka_resp_err_t produce(const Record& record, std::uint64_t tag) override;

    // Serves waiting delivery reports, waiting up to `timeout_ms` for the first.
    void serve(int timeout_ms) override;
    // Sends every queued record now, whatever linger.ms says, and serves reports until all are
    // acknowledged (returns true) or `timeout_ms` passes. A record whose topic's partitions are
    // still unknown (its first record) is not queued for a partition yet, so not sent either.
    bool flush(int timeout_ms) override;
    int wakeup_fd() const override { return wakeup_read_.get(); }

    // Messages not yet acknowledged or failed.
    int outstanding() const { return rd_kafka_outq_len(handle_.get()); }

    // Empty when healthy; otherwise librdkafka's fatal error (e.g. idempotence broken).
    std::string fatal_error() const override;

    // Whether the fatal error means another instance with our transactional.id fenced us.
    bool fenced() const override;

    // Empty until the brokers refused this client (seen while serving): our credentials, our
    // client certificate, or their certificate failed verification; then the cause, which
    // retrying cannot change.
    const std::string& authentication_failure() const override { return connection_failures_.definite(); }
    const std::string& refusal_blocking_delivery() const override { return connection_failures_.partial(); }
    // authentication_failure() once a running client-certificate probe has answered: for --check.
    const std::string& authentication_failure_after_probe() { return connection_failures_.definite_after_probe(); }
    const std::string& bootstrap_servers() const { return connection_failures_.bootstrap_servers(); }

    // How many partitions `topic` has, from cluster metadata (cached; asked again when
    // `at_least` is not below the cached count, as partitions may have been added). Nothing when
    // the cluster does not say within `timeout_ms` (the topic may not exist yet).
    std::optional<int> partition_count(std::string_view topic, int at_least, int timeout_ms) override;

    void look_up_topic(std::string_view topic) override { admin_.look_up(topic); }
    void create_topic(std::string_view topic, int partitions, int replication_factor,
                      const std::vector<std::pair<std::string, std::string>>& configs) override {
        admin_.create(topic, partitions, replication_factor, configs);
    }
    std::optional<AdminAnswer> admin_answer(std::string_view topic) override { return admin_.answer(topic); }
    void purge() override;

    // Fetches cluster metadata; returns an empty string on success, the reason otherwise.
    std::string check_metadata(int timeout_ms) const override;

    // Kafka transactions (transactional.id set). Each throws TransactionError.
    void init_transactions(int timeout_ms) override;
    void begin_transaction() override;
    void commit_transaction(int timeout_ms) override;
    void abort_transaction(int timeout_ms) override;

    rd_kafka_t* handle() const { return handle_.get(); }

private:
    rd_kafka_topic_t* topic_handle(std::string_view topic);
    std::int64_t report_time_ms();
    void drain_wakeup_pipe();
    // librdkafka's C callbacks: no exception may leave them. What the delivery handler throws is
    // kept, the rest of that batch of reports is not handed over, and the call into librdkafka
    // that served them rethrows it (rethrow_callback_failure()).
    static void on_delivery_report(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) noexcept;
    void hand_over_report(const rd_kafka_message_t* message);
    void rethrow_callback_failure();
    static void on_error(rd_kafka_t*, int error, const char* reason, void* opaque) noexcept;
    static void on_log(const rd_kafka_t*, int level, const char* facility, const char* message) noexcept;
    static int on_certificate(rd_kafka_t*, const char* broker, int32_t, int* x509_error, int, const char*, size_t,
                              char* errstr, size_t errstr_size, void* opaque) noexcept;
    static ConfPtr admin_conf(const config::KafkaSettings& settings, const std::string& bootstrap_servers);

    struct TransparentHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };

    using Topics = std::unordered_map<std::string, TopicPtr, TransparentHash, std::equal_to<>>;
    Topics::iterator create_topic_handle(std::string_view topic);

    DeliveryHandler on_delivery_;
    HandlePtr handle_;
    QueuePtr main_queue_;
    Topics topics_;
    struct PartitionCount {
        int count = 0;
        std::chrono::steady_clock::time_point asked{};
    };
    std::unordered_map<std::string, PartitionCount, TransparentHash, std::equal_to<>> partition_counts_;
    // Topic handles by the address of the caller's topic name. The router hands out the same few
    // route strings for every record, so finding the address and comparing the (short) name is
    // cheaper than hashing the name; the comparison keeps a reused address from misleading it.
    struct KnownTopic {
        std::string_view name;  // a key of topics_
        rd_kafka_topic_t* handle = nullptr;
    };
    std::unordered_map<const char*, KnownTopic> topics_by_address_;
    ConnectionFailures connection_failures_;
    std::exception_ptr callback_failure_;
    AdminRequests admin_;  // CreateTopics and lookups, on clients of their own
    bool serving_ = false;
    std::optional<std::int64_t> serve_time_ms_;  // read at the first report of a serve()
    FileDescriptor wakeup_read_;
    FileDescriptor wakeup_write_;
};

}  // namespace outbox::kafka
