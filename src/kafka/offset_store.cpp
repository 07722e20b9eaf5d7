#include "outbox/kafka/offset_store.hpp"

#include <chrono>
#include <thread>

#include "outbox/kafka/admin_requests.hpp"
#include "outbox/kafka/client_conf.hpp"
#include "outbox/kafka/topic_reader.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::kafka {
namespace {

using Clock = std::chrono::steady_clock;
// AdminRequests answers a look-up within its own 10 s metadata timeout; this is only a backstop.
constexpr auto kLookupLimit = std::chrono::seconds(15);
// CreateTopics' own timeout, shorter than a topic.creation request's: some brokers (and librdkafka's
// mock cluster, which `make demo` runs) never answer it, and set-up goes on without the answer
// (the topic is auto-created on first use). The request ends with the wait, so no thread outlives it.
constexpr auto kCreateTimeout = std::chrono::seconds(5);
// A backstop: CreateTopics answers by its timeout.
constexpr auto kCreateLimit = kCreateTimeout + std::chrono::seconds(2);
constexpr auto kReadLimit = std::chrono::seconds(30);
// How often a wait looks at the stop request.
constexpr auto kSlice = std::chrono::milliseconds(100);

HandlePtr client(rd_kafka_type_t type, ConfPtr conf) {
    char error[512];
    HandlePtr handle(rd_kafka_new(type, conf.get(), error, sizeof error));
    if (!handle) throw ConfigError(std::string("kafka: cannot create a client for the offsets topic: ") + error);
    conf.release();  // rd_kafka_new took it
    return handle;
}

void throw_if_stopping(const StopRequested& stop_requested, const std::string& what) {
    if (stop_requested()) throw TransientError("kafka: stopped while " + what + " the offsets topic");
}

// The answer to the admin request started for `topic`; nothing when `limit` passed first.
std::optional<KafkaProducer::AdminAnswer> await(AdminRequests& admin, const std::string& topic,
                                                std::chrono::milliseconds limit, const StopRequested& stop_requested,
                                                const std::string& what) {
    const auto deadline = Clock::now() + limit;
    for (;;) {
        if (auto answer = admin.answer(topic)) return answer;
        if (Clock::now() >= deadline) return std::nullopt;
        throw_if_stopping(stop_requested, what);
        std::this_thread::sleep_for(kSlice);
    }
}

}  // namespace

OffsetStore::OffsetStore(const config::KafkaSettings& settings, std::string bootstrap_servers, std::string topic,
                         SourceIdentity source)
    : settings_(settings), bootstrap_servers_(std::move(bootstrap_servers)), topic_(std::move(topic)),
      source_(std::move(source)), key_(source_.key()) {}

// On a client of its own, in a thread of its own (AdminRequests): a broker that does not answer
// holds up nothing but this wait, which a stop request ends; leaving it cancels the request.
int OffsetStore::partition_count(const StopRequested& stop_requested) const {
    AdminRequests admin(client_conf(settings_, bootstrap_servers_, {}));
    admin.look_up(topic_);
    const auto answer = await(admin, topic_, kLookupLimit, stop_requested, "looking up");
    if (!answer) throw TransientError("kafka: no answer looking up the offsets topic " + topic_);
    if (answer->error != RD_KAFKA_RESP_ERR_NO_ERROR)
        throw TransientError("kafka: cannot read metadata of the offsets topic: " + answer->message);
    return answer->partitions;
}

void OffsetStore::ensure_topic(const StopRequested& stop_requested) {
    if (partition_count(stop_requested) > 0) return;
    AdminRequests admin(client_conf(settings_, bootstrap_servers_, {}), kCreateTimeout);
    // One partition: there are few sources, and compaction keeps one record per source.
    admin.create(topic_, 1, -1, {{"cleanup.policy", "compact"}});
    const auto answer = await(admin, topic_, kCreateLimit, stop_requested, "creating");
    if (!answer || answer->error == RD_KAFKA_RESP_ERR__TIMED_OUT) {
        // Some brokers (and librdkafka's mock cluster) do not answer CreateTopics; the topic is
        // then auto-created on first use, without compaction.
        log::warn("kafka: no answer creating the offsets topic \"" + topic_ +
                  "\"; if it is auto-created, set cleanup.policy=compact on it (see docs/operations.md)");
        return;
    }
    if (answer->error == RD_KAFKA_RESP_ERR_NO_ERROR)
        log::info("kafka: created the compacted offsets topic \"" + topic_ + "\"");
    else if (answer->error != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        log::warn("kafka: cannot create the offsets topic \"" + topic_ + "\" (" + answer->message +
                  "); if it is auto-created, set cleanup.policy=compact on it (see docs/operations.md)");
}

Lsn OffsetStore::read_committed_position(const StopRequested& stop_requested) {
    const int partitions = partition_count(stop_requested);
    if (partitions == 0) return 0;
    const HandlePtr consumer = client(
        RD_KAFKA_CONSUMER, client_conf(settings_, bootstrap_servers_,
                                       {{"group.id", "outbox-router-offsets-reader"},
                                        {"enable.auto.commit", "false"},
                                        {"enable.partition.eof", "true"},
                                        // An empty partition's end is known only from a fetch
                                        // answer, which the broker holds this long for data.
                                        {"fetch.wait.max.ms", "10"},
                                        {"isolation.level", "read_committed"}}));
    Lsn position = 0;
    const bool complete = read_topic_to_end(
        consumer.get(), topic_, partitions, Clock::now() + kReadLimit,
        [&](const rd_kafka_message_t& message) {
            if (!message.key || std::string_view(static_cast<const char*>(message.key), message.key_len) != key_ ||
                !message.payload)
                return;
            const auto lsn = OffsetsRecord::position_of(
                std::string_view(static_cast<const char*>(message.payload), message.len));
            if (!lsn)
                throw DefiniteError("kafka: offsets topic " + topic_ + " holds a record for " + key_ +
                                    " that is not an outbox-router position");
            position = std::max(position, *lsn);
        },
        {},
        [&](const rd_kafka_message_t& message) {
            const std::string cause = "kafka: reading the offsets topic " + topic_ + ": " + rd_kafka_message_errstr(&message);
            // Reading it again cannot help: the position it holds is what exactly-once rests on.
            if (message.err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)
                throw DefiniteError(cause + " (the router needs Read, Describe and Write on it: see Kafka ACLs in "
                                            "docs/operations.md)");
            throw TransientError(cause);
        },
        stop_requested);
    throw_if_stopping(stop_requested, "reading");
    if (!complete) throw TransientError("kafka: timed out reading the offsets topic " + topic_);
    rd_kafka_consumer_close(consumer.get());
    return position;
}

}  // namespace outbox::kafka
