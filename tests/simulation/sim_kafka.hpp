#pragma once

// A simulated Kafka cluster behind the router's Kafka port: per-partition logs, an idempotent
// producer (no duplicates and per-partition order within one producer instance), transactions
// with commit, abort and fencing by epoch, a read_committed view, metadata with partition counts,
// CreateTopics, and the faults the schedule injects. Single-threaded: reports are handed over
// from serve(), which advances the simulated clock when asked to wait.
//
// As librdkafka does: delivery reports keep produce order within a partition only (each
// partition's requests go their own way, some slow); produce() refuses with _QUEUE_FULL when the
// producer's queue (queue.buffering.max.messages, sometimes set low) is full; records a purged or
// destroyed producer had in flight may reach their partitions all the same (a prefix of each),
// unless their transaction's epoch was fenced.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "outbox/kafka/kafka_connector.hpp"
#include "outbox/kafka/kafka_producer.hpp"
#include "sim_clock.hpp"
#include "trace.hpp"

namespace outbox::simulation {

using OwnedHeaders = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct StoredRecord {
    std::optional<std::string> key;
    std::optional<std::string> value;
    OwnedHeaders headers;
    int producer_instance = 0;
    std::uint64_t sequence = 0;  // cluster-wide append order
    enum class State { plain, open, committed, aborted } state = State::plain;
    std::string transactional_id;
    int epoch = 0;
};

struct SimTopic {
    std::vector<std::vector<StoredRecord>> partitions;
};

// What the faults schedule can set on the cluster.
struct KafkaFaults {
    std::chrono::steady_clock::time_point stalled_until{};       // nothing acknowledged before
    std::chrono::steady_clock::time_point metadata_down_until{};  // metadata requests unanswered
    int create_topics_timeouts = 0;                            // next CreateTopics calls time out
    // POLICY_VIOLATION for topics whose name ends with it (a policy on names): the other
    // topics are created, so records are in flight when the refusal stops the router.
    std::string create_topics_refused_suffix;
    bool create_topics_unauthorized = false;                   // TOPIC_AUTHORIZATION_FAILED
    int commit_timeouts = 0;                                   // next commit_transaction calls: retriable
    bool fail_next_commit_abortable = false;
    // Called at each step of the exactly-once start (init_transactions, the offsets topic's
    // look-up and read) with the caller's stop request (none for init_transactions); the set-up
    // simulation (sim_setup.cpp) makes it slow, fail, stop or kill there.
    std::function<void(const std::string& step, const kafka::StopRequested* stop)> setup_step;
};

class SimCluster {
public:
    SimCluster(SimClock& clock, std::mt19937_64& random, Trace& trace) : clock_(clock), random_(random), trace_(trace) {}

    SimClock& clock() { return clock_; }
    std::mt19937_64& random() { return random_; }
    Trace& trace() { return trace_; }
    KafkaFaults faults;
    bool auto_create_topics = true;
    std::size_t max_message_bytes = 4000;   // the broker's: refused in the delivery report
    std::size_t client_max_bytes = 8000;    // librdkafka's message.max.bytes: refused at produce()

    std::map<std::string, SimTopic>& topics() { return topics_; }
    bool has_topic(const std::string& name) const { return topics_.contains(name); }
    SimTopic& create_topic(const std::string& name, int partitions);
    void add_partitions(const std::string& name, int more);
    // Topics that gained partitions: a key moves, and Kafka keeps no order across partitions.
    std::set<std::string> resized;

    // Transactions: the newest epoch of each transactional.id; init_transactions bumps it and
    // aborts what an older epoch left open.
    int init_transactions(const std::string& transactional_id);
    int current_epoch(const std::string& transactional_id) const;
    void end_transaction(const std::string& transactional_id, int epoch, bool commit);

    void append(const std::string& topic, int partition, StoredRecord record);
    int next_instance() { return ++instances_; }
    int newest_instance() const { return instances_; }

    // What each producer instance did, for the invariants.
    struct ProducerLog {
        std::size_t in_flight = 0;
        std::size_t failed_reports = 0;
        bool transaction_failed = false;  // a commit that threw, or an abort
    };
    std::map<int, ProducerLog> producers;
    // Every record a producer accepted, every delivery report it handed over, and its end
    // (destroyed: what it had in flight may still land).
    std::function<void(int instance, const StoredRecord& record)> on_accepted;
    std::function<void(int instance, const StoredRecord& record, rd_kafka_resp_err_t error)> on_report;
    std::function<void(int instance)> on_retired;

private:
    SimClock& clock_;
    std::mt19937_64& random_;
    Trace& trace_;
    std::map<std::string, SimTopic> topics_;
    std::map<std::string, int> epochs_;
    struct Ref {
        std::string topic;
        int partition;
        std::size_t offset;
    };
    std::map<std::string, std::vector<Ref>> open_;  // by transactional.id
    int instances_ = 0;
    std::uint64_t appended_ = 0;
};

class SimConnector;

class SimProducer final : public kafka::KafkaProducer {
public:
    SimProducer(SimCluster& cluster, SimConnector* owner, DeliveryHandler on_delivery, std::string transactional_id);
    ~SimProducer() override;

    rd_kafka_resp_err_t produce(const kafka::Record& record, std::uint64_t tag) override;
    void serve(int timeout_ms) override;
    bool flush(int timeout_ms) override;
    int wakeup_fd() const override { return -1; }
    void purge() override;
    std::string fatal_error() const override { return fatal_; }
    bool fenced() const override { return fenced_; }
    const std::string& authentication_failure() const override { return authentication_failure_; }
    const std::string& refusal_blocking_delivery() const override { return no_refusal_; }
    std::optional<int> partition_count(std::string_view topic, int at_least, int timeout_ms) override;
    std::string check_metadata(int) const override { return {}; }
    void look_up_topic(std::string_view topic) override;
    void create_topic(std::string_view topic, int partitions, int replication_factor,
                      const std::vector<std::pair<std::string, std::string>>& configs) override;
    std::optional<AdminAnswer> admin_answer(std::string_view topic) override;
    void init_transactions(int timeout_ms) override;
    void begin_transaction() override;
    void commit_transaction(int timeout_ms) override;
    void abort_transaction(int timeout_ms) override;

    int instance() const { return instance_; }
    // Faults.
    void make_fatal(const std::string& why);
    // Records waiting longer than this fail with _MSG_TIMED_OUT (some of them written anyway).
    std::chrono::milliseconds message_timeout{30000};
    // queue.buffering.max.messages: produce() refuses with _QUEUE_FULL beyond it.
    std::size_t queue_capacity = 100000;

private:
    struct InFlight {
        std::string topic;
        int partition;
        StoredRecord record;
        std::uint64_t tag;
        std::size_t size;
        std::chrono::steady_clock::time_point produced;
        std::chrono::steady_clock::time_point due;
        rd_kafka_resp_err_t outcome = RD_KAFKA_RESP_ERR_NO_ERROR;
    };
    using PartitionKey = std::pair<std::string, int>;
    bool deliver_due();
    // When the front record of a partition's queue is due: delivered, or timed out.
    std::chrono::steady_clock::time_point due_at(const InFlight& f) const;
    void maybe_written(const InFlight& f, bool reachable);
    bool epoch_current() const;
    // Nothing of what is in flight is reported; a prefix of each partition's may be written.
    void drop_in_flight();
    void report(const InFlight& f, rd_kafka_resp_err_t error);
    void check_fenced();

    SimCluster& cluster_;
    DeliveryHandler on_delivery_;
    std::string transactional_id_;
    int instance_;
    int epoch_ = 0;
    bool in_transaction_ = false;
    bool transaction_failed_ = false;
    std::map<PartitionKey, std::deque<InFlight>> in_flight_;  // per partition, in produce order
    std::size_t in_flight_count_ = 0;
    std::set<std::pair<std::string, int>> unwritten_;  // partitions where a failed record was not written
    std::string fatal_;
    bool fenced_ = false;
    std::string authentication_failure_;
    const std::string no_refusal_;  // the simulated brokers speak no TLS, so none refuses it
    std::map<std::string, int, std::less<>> known_partitions_;
    struct AdminRequest {
        std::chrono::steady_clock::time_point due;
        std::function<AdminAnswer()> answer;  // what Kafka says when it answers
    };
    std::map<std::string, AdminRequest, std::less<>> admin_;
    SimConnector* owner_;
};

class SimConnector final : public kafka::KafkaConnector {
public:
    explicit SimConnector(SimCluster& cluster) : cluster_(cluster) {}
    std::unique_ptr<kafka::KafkaProducer> producer(
        kafka::KafkaProducer::DeliveryHandler on_delivery,
        const std::vector<std::pair<std::string, std::string>>& overrides) override;
    std::unique_ptr<kafka::OffsetsTopic> offsets_topic(const std::string& topic, const kafka::SourceIdentity& source) override;

    // The newest producer made (for faults).
    SimProducer* latest() const { return latest_; }
    void forget(SimProducer* p) {
        if (latest_ == p) latest_ = nullptr;
    }
    std::string transactional_id;  // set when exactly-once (the derived id is passed as override)

private:
    SimCluster& cluster_;
    SimProducer* latest_ = nullptr;
    friend class SimProducer;
};

}  // namespace outbox::simulation
