#include "outbox/kafka/admin_requests.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <condition_variable>
#include <system_error>
#include <thread>

namespace outbox::kafka {
namespace {

using Clock = std::chrono::steady_clock;
using Answer = KafkaProducer::AdminAnswer;

constexpr std::chrono::milliseconds kLookupTimeout{10000};
// A metadata request cannot be cancelled: a lookup asks in attempts of at most this long, and a
// cancelled one ends with its attempt. An answer slower than an attempt is asked for again.
constexpr std::chrono::milliseconds kLookupAttempt{2000};
// How often a CreateTopics wait looks at the cancel.
constexpr std::chrono::milliseconds kCancelCheck{100};

// The request threads still running, of every AdminRequests. Never destroyed: a thread may end
// after main() returned.
struct RunningThreads {
    std::mutex mutex;
    std::condition_variable none;
    int count = 0;  // guarded by mutex
};
RunningThreads& running_threads() {
    static RunningThreads* const threads = new RunningThreads;
    return *threads;
}

int to_ms(Clock::duration duration) {
    return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(duration).count());
}

Answer look_up_in(rd_kafka_t* client, const std::string& topic, const std::atomic<bool>& cancelled) {
    const auto deadline = Clock::now() + kLookupTimeout;
    rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR__TIMED_OUT;
    for (auto left = deadline - Clock::now(); !cancelled && left > Clock::duration::zero(); left = deadline - Clock::now()) {
        const rd_kafka_metadata_t* raw = nullptr;
        error = rd_kafka_metadata(client, 1, nullptr, &raw, to_ms(std::min<Clock::duration>(left, kLookupAttempt)));
        // _TRANSPORT: no broker was up during the attempt; _TIMED_OUT: no answer within it.
        if (error == RD_KAFKA_RESP_ERR__TIMED_OUT || error == RD_KAFKA_RESP_ERR__TRANSPORT) continue;
        if (error != RD_KAFKA_RESP_ERR_NO_ERROR) break;
        const MetadataPtr metadata(raw);
        for (int i = 0; i < metadata->topic_cnt; ++i) {
            const auto& t = metadata->topics[i];
            if (topic != t.topic) continue;
            if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR && t.err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
                return {t.err, rd_kafka_err2str(t.err), 0};
            return {RD_KAFKA_RESP_ERR_NO_ERROR, {}, t.partition_cnt};
        }
        return {RD_KAFKA_RESP_ERR_NO_ERROR, {}, 0};
    }
    return {error, rd_kafka_err2str(error), 0};
}

Answer create_in(rd_kafka_t* client, const std::string& topic, int partitions, int replication_factor,
                 const std::vector<std::pair<std::string, std::string>>& configs, std::chrono::milliseconds timeout,
                 const std::atomic<bool>& cancelled) {
    char error[512];
    NewTopicPtr new_topic(rd_kafka_NewTopic_new(topic.c_str(), partitions, replication_factor, error, sizeof error));
    if (!new_topic) return {RD_KAFKA_RESP_ERR__INVALID_ARG, error, 0};
    for (const auto& [name, value] : configs)
        if (const auto err = rd_kafka_NewTopic_set_config(new_topic.get(), name.c_str(), value.c_str()))
            return {err, "topic config " + name + ": " + rd_kafka_err2str(err), 0};
    const QueuePtr queue(rd_kafka_queue_new(client));
    rd_kafka_NewTopic_t* topics[] = {new_topic.get()};
    rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(client, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_request_timeout(options, to_ms(timeout), error, sizeof error);
    rd_kafka_CreateTopics(client, topics, 1, options, queue.get());
    rd_kafka_AdminOptions_destroy(options);
    // librdkafka answers by the request timeout; the second more is a backstop.
    const auto deadline = Clock::now() + timeout + std::chrono::seconds(1);
    EventPtr event;
    while (!event && !cancelled && Clock::now() < deadline)
        event.reset(rd_kafka_queue_poll(queue.get(), to_ms(kCancelCheck)));
    if (!event) return {RD_KAFKA_RESP_ERR__TIMED_OUT, "no answer to CreateTopics", 0};
    if (const auto err = rd_kafka_event_error(event.get())) return {err, rd_kafka_event_error_string(event.get()), 0};
    size_t count = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event.get()), &count);
    if (count != 1) return {RD_KAFKA_RESP_ERR__FAIL, "CreateTopics answered for " + std::to_string(count) + " topics", 0};
    const auto err = rd_kafka_topic_result_error(results[0]);
    const char* message = rd_kafka_topic_result_error_string(results[0]);
    return {err, message ? message : rd_kafka_err2str(err), 0};
}

}  // namespace

AdminRequests::~AdminRequests() {
    for (const auto& [topic, slot] : slots_) slot->cancelled = true;
}

// The thread owns its client and its slot's share; it outlives this object if need be, counted
// in running_threads() until its client is destroyed.
template <typename Request>
void AdminRequests::start(std::string_view topic, Request request) {
    auto slot = std::make_shared<Slot>();
    auto& current = slots_[std::string(topic)];
    if (current) current->cancelled = true;  // its answer would be dropped anyway
    current = slot;
    rd_kafka_conf_t* conf = rd_kafka_conf_dup(conf_.get());
    RunningThreads& threads = running_threads();
    {
        const std::lock_guard lock(threads.mutex);
        ++threads.count;
    }
    try {
        std::thread([conf, slot, request = std::move(request), &threads] {
            {
                char error[512];
                HandlePtr client(rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof error));
                Answer answer = client ? request(client.get(), slot->cancelled) : Answer{RD_KAFKA_RESP_ERR__FAIL, error, 0};
                if (!client) rd_kafka_conf_destroy(conf);
                client.reset();
                const std::lock_guard lock(slot->mutex);
                slot->answer = std::move(answer);
            }
            // rd_kafka_new made its TLS context on this thread: OpenSSL's state for it is freed
            // now, while counted, not at the thread's exit, which could overlap the process's
            // exit-time clean-up.
            OPENSSL_thread_stop();
            const std::lock_guard lock(threads.mutex);
            if (--threads.count == 0) threads.none.notify_all();
        }).detach();
    } catch (const std::system_error& e) {
        {
            const std::lock_guard lock(threads.mutex);
            --threads.count;
        }
        rd_kafka_conf_destroy(conf);
        const std::lock_guard lock(slot->mutex);
        slot->answer = Answer{RD_KAFKA_RESP_ERR__FAIL, std::string("cannot start a thread for it: ") + e.what(), 0};
    }
}

void AdminRequests::look_up(std::string_view topic) {
    start(topic, [name = std::string(topic)](rd_kafka_t* client, const std::atomic<bool>& cancelled) {
        return look_up_in(client, name, cancelled);
    });
}

void AdminRequests::create(std::string_view topic, int partitions, int replication_factor,
                           const std::vector<std::pair<std::string, std::string>>& configs) {
    start(topic, [name = std::string(topic), partitions, replication_factor, configs,
                  timeout = create_timeout_](rd_kafka_t* client, const std::atomic<bool>& cancelled) {
        return create_in(client, name, partitions, replication_factor, configs, timeout, cancelled);
    });
}

std::optional<KafkaProducer::AdminAnswer> AdminRequests::answer(std::string_view topic) {
    const auto found = slots_.find(topic);
    if (found == slots_.end()) return std::nullopt;
    std::optional<Answer> answer;
    {
        const std::lock_guard lock(found->second->mutex);
        answer = std::move(found->second->answer);
    }
    if (answer) slots_.erase(found);
    return answer;
}

bool AdminRequests::wait_for_all(std::chrono::milliseconds bound) {
    RunningThreads& threads = running_threads();
    std::unique_lock lock(threads.mutex);
    return threads.none.wait_for(lock, bound, [&] { return threads.count == 0; });
}

}  // namespace outbox::kafka
