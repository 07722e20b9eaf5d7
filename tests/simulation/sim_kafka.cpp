#include "sim_kafka.hpp"

#include <algorithm>

#include "outbox/util/errors.hpp"

namespace outbox::simulation {
namespace {

using namespace std::chrono_literals;

std::uint32_t java_hash_partition(std::string_view key, int partitions) {
    std::uint32_t h = 2166136261u;
    for (const char c : key) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    return h % static_cast<std::uint32_t>(partitions);
}

}  // namespace

SimTopic& SimCluster::create_topic(const std::string& name, int partitions) {
    auto& topic = topics_[name];
    if (topic.partitions.empty()) topic.partitions.resize(static_cast<std::size_t>(std::max(1, partitions)));
    return topic;
}

void SimCluster::add_partitions(const std::string& name, int more) {
    auto found = topics_.find(name);
    if (found == topics_.end()) return;
    found->second.partitions.resize(found->second.partitions.size() + static_cast<std::size_t>(more));
    resized.insert(name);
    trace_.at(clock_.millis(), "kafka: topic " + name + " now has " + std::to_string(found->second.partitions.size()) + " partitions");
}

int SimCluster::init_transactions(const std::string& transactional_id) {
    const int epoch = ++epochs_[transactional_id];
    end_transaction(transactional_id, epoch - 1, false);
    return epoch;
}

int SimCluster::current_epoch(const std::string& transactional_id) const {
    const auto found = epochs_.find(transactional_id);
    return found == epochs_.end() ? 0 : found->second;
}

void SimCluster::end_transaction(const std::string& transactional_id, int, bool commit) {
    auto found = open_.find(transactional_id);
    if (found == open_.end()) return;
    for (const auto& ref : found->second) {
        auto& record = topics_[ref.topic].partitions[static_cast<std::size_t>(ref.partition)][ref.offset];
        if (record.state == StoredRecord::State::open)
            record.state = commit ? StoredRecord::State::committed : StoredRecord::State::aborted;
    }
    open_.erase(found);
}

void SimCluster::append(const std::string& topic, int partition, StoredRecord record) {
    if (trace_.echo) {
        std::string id = "?";
        for (const auto& [name, value] : record.headers)
            if (name == "id" && value) id = value->substr(value->size() - 4);
        trace_.at(clock_.millis(), "  kafka: " + topic + "[" + std::to_string(partition) + "] appends id ..." + id +
                                       " from producer #" + std::to_string(record.producer_instance));
    }
    auto& log = topics_[topic].partitions[static_cast<std::size_t>(partition)];
    record.sequence = ++appended_;
    if (record.state == StoredRecord::State::open) open_[record.transactional_id].push_back({topic, partition, log.size()});
    log.push_back(std::move(record));
}

SimProducer::SimProducer(SimCluster& cluster, SimConnector* owner, DeliveryHandler on_delivery, std::string transactional_id)
    : cluster_(cluster),
      on_delivery_(std::move(on_delivery)),
      transactional_id_(std::move(transactional_id)),
      instance_(cluster.next_instance()),
      owner_(owner) {}

SimProducer::~SimProducer() {
    if (owner_) owner_->forget(this);
    // Destroyed (replaced, or its process killed): what it sent may land.
    drop_in_flight();
    if (cluster_.on_retired) cluster_.on_retired(instance_);
}

// A transactional producer's records are written only while its epoch is the newest: the
// brokers refuse an older one.
bool SimProducer::epoch_current() const {
    return transactional_id_.empty() || cluster_.current_epoch(transactional_id_) == epoch_;
}

void SimProducer::drop_in_flight() {
    const bool reachable = cluster_.clock().now() >= cluster_.faults.stalled_until && epoch_current();
    for (auto& [where, queue] : in_flight_)
        for (const auto& f : queue) maybe_written(f, reachable);
    in_flight_.clear();
    in_flight_count_ = 0;
    cluster_.producers[instance_].in_flight = 0;
}

void SimProducer::make_fatal(const std::string& why) {
    if (!fatal_.empty()) return;
    fatal_ = "_FATAL: " + why;
    cluster_.trace().at(cluster_.clock().millis(), "kafka: producer #" + std::to_string(instance_) + " fatal: " + why);
}

// A newer instance with our transactional.id took over: our epoch is stale.
void SimProducer::check_fenced() {
    if (transactional_id_.empty() || fenced_ || epoch_ == 0) return;
    if (cluster_.current_epoch(transactional_id_) != epoch_) {
        fenced_ = true;
        fatal_ = "PRODUCER_FENCED: producer fenced by a newer instance";
    }
}

namespace {

// The workload marks a record Kafka refuses for a reason other than its size (workload.cpp); its
// dead letter, which carries the same value, goes to another topic and is taken.
bool marked(const kafka::Record& record, std::string_view reason) {
    if (!record.value || !std::string_view(record.topic).starts_with("outbox.event.")) return false;
    const std::string marker = "\"sim_refuse\":\"" + std::string(reason) + "\"";
    return std::string_view(*record.value).find(marker) != std::string_view::npos;
}

}  // namespace

rd_kafka_resp_err_t SimProducer::produce(const kafka::Record& record, std::uint64_t tag) {
    check_fenced();
    if (!fatal_.empty()) return RD_KAFKA_RESP_ERR__FATAL;
    if (!transactional_id_.empty() && !in_transaction_) return RD_KAFKA_RESP_ERR__STATE;
    const std::size_t size = kafka::record_size(record);
    if (size > cluster_.client_max_bytes) return RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE;
    if (in_flight_count_ >= queue_capacity) return RD_KAFKA_RESP_ERR__QUEUE_FULL;
    const std::string topic(record.topic);
    if (!cluster_.has_topic(topic)) {
        if (!cluster_.auto_create_topics) return RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC;
        cluster_.create_topic(topic, 1);
    }
    const int partitions = static_cast<int>(cluster_.topics()[topic].partitions.size());
    int partition = record.partition;
    if (partition >= partitions || marked(record, "partition")) return RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION;
    if (partition < 0) partition = record.key ? static_cast<int>(java_hash_partition(*record.key, partitions)) : 0;
    StoredRecord stored;
    if (record.key) stored.key = std::string(*record.key);
    if (record.value) stored.value = std::string(*record.value);
    for (const auto& h : record.headers)
        stored.headers.emplace_back(std::string(h.name), h.value ? std::optional<std::string>(std::string(*h.value)) : std::nullopt);
    stored.producer_instance = instance_;
    if (!transactional_id_.empty()) {
        stored.state = StoredRecord::State::open;
        stored.transactional_id = transactional_id_;
        stored.epoch = epoch_;
    }
    const auto now = cluster_.clock().now();
    std::uniform_int_distribution<int> latency(1, 8);
    auto due = now + std::chrono::milliseconds(latency(cluster_.random()));
    // Now and then a request is slow (a busy leader, a retry): only its partition waits for it.
    if (cluster_.random()() % 30 == 0) due += std::chrono::milliseconds(10 + cluster_.random()() % 150);
    auto& queue = in_flight_[{topic, partition}];
    if (!queue.empty()) due = std::max(due, queue.back().due);  // per partition, in order
    InFlight f{topic, partition, std::move(stored), tag, size, now, due};
    if (size > cluster_.max_message_bytes) f.outcome = RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE;
    if (marked(record, "timestamp")) f.outcome = RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP;
    if (cluster_.on_accepted) cluster_.on_accepted(instance_, f.record);
    queue.push_back(std::move(f));
    ++in_flight_count_;
    ++cluster_.producers[instance_].in_flight;
    return RD_KAFKA_RESP_ERR_NO_ERROR;
}

void SimProducer::report(const InFlight& f, rd_kafka_resp_err_t error) {
    kafka::DeliveryReport r;
    r.tag = f.tag;
    r.error = error;
    r.topic = f.topic;
    r.partition = f.partition;
    r.size = f.size;
    r.served_at_ms = cluster_.clock().unix_ms();
    std::vector<kafka::Header> headers;
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (f.record.key) r.key = *f.record.key;
        if (f.record.value) r.value = *f.record.value;
        for (const auto& [name, value] : f.record.headers)
            headers.push_back({name, value ? std::optional<std::string_view>(*value) : std::nullopt});
        r.headers = headers;
        r.timestamp_ms = cluster_.clock().unix_ms();
    }
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++cluster_.producers[instance_].failed_reports;
        if (cluster_.trace().echo)
            cluster_.trace().at(cluster_.clock().millis(), "  kafka: producer #" + std::to_string(instance_) + " reports " +
                                                               rd_kafka_err2name(error) + " for " + f.topic + "[" +
                                                               std::to_string(f.partition) + "]");
    }
    if (cluster_.on_report) cluster_.on_report(instance_, f.record, error);
    on_delivery_(r);
}

// A record that fails after it was sent may have been written all the same; per partition the
// idempotent producer's sequence numbers let only a prefix of what it sent through.
void SimProducer::maybe_written(const InFlight& f, bool reachable) {
    const auto where = std::make_pair(f.topic, f.partition);
    if (!reachable || f.outcome != RD_KAFKA_RESP_ERR_NO_ERROR || unwritten_.contains(where) || cluster_.random()() % 2 == 0) {
        unwritten_.insert(where);
        return;
    }
    cluster_.append(f.topic, f.partition, f.record);
}

std::chrono::steady_clock::time_point SimProducer::due_at(const InFlight& f) const {
    if (!fatal_.empty()) return f.produced;
    return std::min(std::max(f.due, cluster_.faults.stalled_until), f.produced + message_timeout);
}

// Hands over the reports that are due, each partition's in produce order and the partitions'
// interleaved by when each is due; true when any was.
bool SimProducer::deliver_due() {
    check_fenced();
    const auto now = cluster_.clock().now();
    bool any = false;
    for (;;) {
        std::deque<InFlight>* next = nullptr;
        for (auto& [where, queue] : in_flight_)
            if (!queue.empty() && due_at(queue.front()) <= now && (!next || due_at(queue.front()) < due_at(next->front())))
                next = &queue;
        if (!next) break;
        InFlight f = std::move(next->front());
        next->pop_front();
        --in_flight_count_;
        --cluster_.producers[instance_].in_flight;
        any = true;
        if (!fatal_.empty()) {
            // A producer in its fatal state fails what it holds; some of it may be written.
            maybe_written(f, transactional_id_.empty());
            report(f, RD_KAFKA_RESP_ERR__FATAL);
            continue;
        }
        if (now - f.produced >= message_timeout) {
            // Timed out in librdkafka: the broker may have written it anyway.
            maybe_written(f, now >= cluster_.faults.stalled_until);
            if (!transactional_id_.empty()) transaction_failed_ = true;
            report(f, RD_KAFKA_RESP_ERR__MSG_TIMED_OUT);
            continue;
        }
        if (f.outcome == RD_KAFKA_RESP_ERR_NO_ERROR) {
            if (cluster_.topics()[f.topic].partitions.size() <= static_cast<std::size_t>(f.partition)) f.outcome = RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION;
        }
        // Modelled gapless: behind a record of a partition that failed unwritten, nothing of
        // this producer reaches that partition.
        if (f.outcome == RD_KAFKA_RESP_ERR_NO_ERROR && unwritten_.contains({f.topic, f.partition}))
            f.outcome = RD_KAFKA_RESP_ERR__MSG_TIMED_OUT;
        if (f.outcome == RD_KAFKA_RESP_ERR_NO_ERROR) {
            cluster_.append(f.topic, f.partition, f.record);
        } else if (!transactional_id_.empty()) {
            transaction_failed_ = true;
        }
        report(f, f.outcome);
    }
    return any;
}

void SimProducer::serve(int timeout_ms) {
    if (deliver_due() || timeout_ms <= 0) return;
    auto until = cluster_.clock().now() + std::chrono::milliseconds(timeout_ms);
    for (const auto& [where, queue] : in_flight_)
        if (!queue.empty()) until = std::min(until, std::max(due_at(queue.front()), cluster_.clock().now()));
    cluster_.clock().advance_to(until);
    deliver_due();
}

bool SimProducer::flush(int timeout_ms) {
    const auto until = cluster_.clock().now() + std::chrono::milliseconds(timeout_ms);
    serve(0);
    while (in_flight_count_ > 0 && cluster_.clock().now() < until) serve(static_cast<int>(
        std::max<long>(1, std::chrono::duration_cast<std::chrono::milliseconds>(until - cluster_.clock().now()).count())));
    return in_flight_count_ == 0;
}

void SimProducer::purge() {
    // Their reports would come from a later serve(), and the router never serves a producer
    // again after purging it. Requests already sent may be written all the same
    // (RD_KAFKA_PURGE_F_INFLIGHT only stops waiting for their answers).
    drop_in_flight();
}

std::optional<int> SimProducer::partition_count(std::string_view topic, int at_least, int timeout_ms) {
    const auto known = known_partitions_.find(topic);
    if (known != known_partitions_.end() && at_least < known->second) return known->second;
    if (cluster_.clock().now() < cluster_.faults.metadata_down_until) {
        cluster_.clock().advance(std::chrono::milliseconds(std::min(timeout_ms, 1000)));
        return known != known_partitions_.end() ? std::optional<int>(known->second) : std::nullopt;
    }
    const auto found = cluster_.topics().find(std::string(topic));
    if (found == cluster_.topics().end()) return std::nullopt;
    const int count = static_cast<int>(found->second.partitions.size());
    known_partitions_[std::string(topic)] = count;
    return count;
}

void SimProducer::look_up_topic(std::string_view topic) {
    auto& c = cluster_;
    const auto now = c.clock().now();
    const std::string name(topic);
    if (now < c.faults.metadata_down_until) {
        admin_[name] = {now + 10s, [] { return AdminAnswer{RD_KAFKA_RESP_ERR__TIMED_OUT, "Local: Timed out", 0}; }};
        return;
    }
    admin_[name] = {now + std::chrono::milliseconds(1 + c.random()() % 20), [&c, name] {
                        const auto found = c.topics().find(name);
                        return AdminAnswer{RD_KAFKA_RESP_ERR_NO_ERROR, {},
                                           found == c.topics().end() ? 0 : static_cast<int>(found->second.partitions.size())};
                    }};
}

void SimProducer::create_topic(std::string_view topic, int partitions, int,
                               const std::vector<std::pair<std::string, std::string>>&) {
    auto& c = cluster_;
    auto& faults = c.faults;
    const auto now = c.clock().now();
    const std::string name(topic);
    const int count = partitions > 0 ? partitions : 2;
    if (faults.create_topics_timeouts > 0) {
        --faults.create_topics_timeouts;
        // The controller may have made it although the answer never came.
        if (c.random()() % 2 == 0) c.create_topic(name, count);
        c.trace().at(c.clock().millis(), "kafka: CreateTopics " + name + " will time out");
        admin_[name] = {now + 30s, [] { return AdminAnswer{RD_KAFKA_RESP_ERR__TIMED_OUT, "no answer to CreateTopics", 0}; }};
        return;
    }
    const auto latency = std::chrono::milliseconds(1 + c.random()() % 30);
    if (faults.create_topics_unauthorized) {
        c.trace().at(c.clock().millis(), "kafka: CreateTopics " + name + " not authorized");
        admin_[name] = {now + latency, [] { return AdminAnswer{RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, "Authorization failed.", 0}; }};
        return;
    }
    if (c.has_topic(name)) {
        admin_[name] = {now + latency, [] { return AdminAnswer{RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS, "Topic already exists.", 0}; }};
        return;
    }
    if (!faults.create_topics_refused_suffix.empty() && name.ends_with(faults.create_topics_refused_suffix)) {
        c.trace().at(c.clock().millis(), "kafka: CreateTopics " + name + " refused by policy");
        admin_[name] = {now + latency, [] { return AdminAnswer{RD_KAFKA_RESP_ERR_POLICY_VIOLATION, "refused by the create topic policy", 0}; }};
        return;
    }
    admin_[name] = {now + latency, [&c, name, count] {
                        c.create_topic(name, count);
                        c.trace().at(c.clock().millis(), "kafka: created topic " + name);
                        return AdminAnswer{};
                    }};
}

std::optional<kafka::KafkaProducer::AdminAnswer> SimProducer::admin_answer(std::string_view topic) {
    const auto found = admin_.find(topic);
    if (found == admin_.end() || found->second.due > cluster_.clock().now()) return std::nullopt;
    auto answer = found->second.answer();
    admin_.erase(found);
    return answer;
}

void SimProducer::init_transactions(int) {
    if (cluster_.faults.setup_step) cluster_.faults.setup_step("init_transactions", nullptr);
    epoch_ = cluster_.init_transactions(transactional_id_);
    cluster_.trace().at(cluster_.clock().millis(), "kafka: producer #" + std::to_string(instance_) + " init_transactions, epoch " +
                                                       std::to_string(epoch_));
}

void SimProducer::begin_transaction() {
    check_fenced();
    if (fenced_) throw kafka::TransactionError(kafka::TransactionError::Kind::fenced, "kafka: begin_transaction: fenced");
    if (!fatal_.empty()) throw kafka::TransactionError(kafka::TransactionError::Kind::fatal, "kafka: begin_transaction: " + fatal_);
    in_transaction_ = true;
    transaction_failed_ = false;
}

void SimProducer::commit_transaction(int timeout_ms) {
    using Kind = kafka::TransactionError::Kind;
    check_fenced();
    if (fenced_) throw kafka::TransactionError(Kind::fenced, "kafka: commit_transaction: fenced");
    if (!fatal_.empty()) throw kafka::TransactionError(Kind::fatal, "kafka: commit_transaction: " + fatal_);
    // Commit flushes first.
    flush(timeout_ms);
    auto& log = cluster_.producers[instance_];
    if (in_flight_count_ > 0) {
        log.transaction_failed = true;
        throw kafka::TransactionError(Kind::retriable, "kafka: commit_transaction: timed out flushing");
    }
    if (cluster_.faults.commit_timeouts > 0) {
        --cluster_.faults.commit_timeouts;
        cluster_.clock().advance(std::chrono::milliseconds(timeout_ms));
        log.transaction_failed = true;
        throw kafka::TransactionError(Kind::retriable, "kafka: commit_transaction: timed out");
    }
    if (transaction_failed_ || std::exchange(cluster_.faults.fail_next_commit_abortable, false)) {
        log.transaction_failed = true;
        throw kafka::TransactionError(Kind::abortable, "kafka: commit_transaction: a record failed; abort");
    }
    check_fenced();
    if (fenced_) throw kafka::TransactionError(Kind::fenced, "kafka: commit_transaction: fenced");
    cluster_.end_transaction(transactional_id_, epoch_, true);
    in_transaction_ = false;
}

void SimProducer::abort_transaction(int) {
    check_fenced();
    cluster_.producers[instance_].transaction_failed = true;
    if (fenced_) throw kafka::TransactionError(kafka::TransactionError::Kind::fenced, "kafka: abort_transaction: fenced");
    purge();
    cluster_.end_transaction(transactional_id_, epoch_, false);
    in_transaction_ = false;
    transaction_failed_ = false;
}

std::unique_ptr<kafka::KafkaProducer> SimConnector::producer(
    kafka::KafkaProducer::DeliveryHandler on_delivery, const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::string tid;
    for (const auto& [name, value] : overrides)
        if (name == "transactional.id") tid = value;
    auto made = std::make_unique<SimProducer>(cluster_, this, std::move(on_delivery), tid);
    // Shorter than the longest broker stall, so that stalls time records out.
    made->message_timeout = std::chrono::milliseconds(2000 + cluster_.random()() % 8000);
    // queue.buffering.max.messages set below the router's in-flight limit now and then.
    if (cluster_.random()() % 4 == 0) made->queue_capacity = 1 + cluster_.random()() % 40;
    latest_ = made.get();
    cluster_.trace().at(cluster_.clock().millis(), "kafka: new producer #" + std::to_string(made->instance()));
    return made;
}

namespace {

class SimOffsetsTopic final : public kafka::OffsetsTopic {
public:
    SimOffsetsTopic(SimCluster& cluster, std::string topic, std::string key)
        : cluster_(cluster), topic_(std::move(topic)), key_(std::move(key)) {}
    void ensure_topic(const kafka::StopRequested& stop) override {
        if (cluster_.faults.setup_step) cluster_.faults.setup_step("offsets topic look-up", &stop);
        if (!cluster_.has_topic(topic_)) cluster_.create_topic(topic_, 1);
    }
    Lsn read_committed_position(const kafka::StopRequested& stop) override {
        if (cluster_.faults.setup_step) cluster_.faults.setup_step("offsets topic read", &stop);
        Lsn position = 0;
        for (const auto& log : cluster_.topics()[topic_].partitions)
            for (const auto& r : log) {
                if (r.state == StoredRecord::State::open || r.state == StoredRecord::State::aborted) continue;
                if (!r.key || *r.key != key_ || !r.value) continue;
                if (const auto lsn = kafka::OffsetsRecord::position_of(*r.value)) position = std::max(position, *lsn);
            }
        return position;
    }

private:
    SimCluster& cluster_;
    std::string topic_;
    std::string key_;
};

}  // namespace

std::unique_ptr<kafka::OffsetsTopic> SimConnector::offsets_topic(const std::string& topic, const kafka::SourceIdentity& source) {
    return std::make_unique<SimOffsetsTopic>(cluster_, topic, source.key());
}

}  // namespace outbox::simulation
