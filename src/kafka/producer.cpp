#include "outbox/kafka/producer.hpp"

#include "outbox/kafka/client_conf.hpp"

#include <fcntl.h>
#include <openssl/x509_vfy.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>

#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::kafka {
namespace {

constexpr std::size_t kMaxKnownTopicAddresses = 1024;

bool user_sets(const config::KafkaSettings& settings, std::string_view name) {
    return std::any_of(settings.properties.begin(), settings.properties.end(),
                       [&](const config::KafkaProperty& p) { return p.name == name; });
}

}  // namespace

Producer::Producer(const config::KafkaSettings& settings, const std::string& bootstrap_servers,
                   DeliveryHandler on_delivery, const std::vector<std::pair<std::string, std::string>>& overrides)
    : on_delivery_(std::move(on_delivery)),
      connection_failures_(settings, bootstrap_servers),
      admin_(admin_conf(settings, bootstrap_servers)) {
    // Idempotence gives acks=all and keeps per-partition order across retries; without it a
    // retried batch can land after a later one and break per-key order.
    std::vector<std::pair<std::string, std::string>> defaults;
    if (!user_sets(settings, "enable.idempotence")) defaults.emplace_back("enable.idempotence", "true");
    if (!user_sets(settings, "client.id")) defaults.emplace_back("client.id", "outbox-router");
    // The Java client's partitioner (murmur2 of the key bytes), not librdkafka's CRC32 default:
    // a key keeps the partition Debezium gave it, so per-key order holds across a migration.
    if (!user_sets(settings, "partitioner")) defaults.emplace_back("partitioner", "murmur2_random");
    // A caught-up router sends at once whatever linger.ms says (caught.up.lag.ms), so linger.ms
    // only shapes backlogs. There 10 ms used the least CPU per event (docs/benchmarks.md,
    // "linger.ms 10 for backlogs"): a quarter less than 2 ms, while 20 ms was no better.
    if (!user_sets(settings, "linger.ms") && !user_sets(settings, "queue.buffering.max.ms"))
        defaults.emplace_back("linger.ms", "10");
    defaults.insert(defaults.end(), overrides.begin(), overrides.end());
    ConfPtr conf = client_conf(settings, bootstrap_servers, defaults);
    if (!user_sets(settings, "bootstrap.servers") && bootstrap_servers.empty())
        throw ConfigError("kafka.bootstrap.servers is required");

    rd_kafka_conf_set_opaque(conf.get(), this);
    rd_kafka_conf_set_dr_msg_cb(conf.get(), &Producer::on_delivery_report);
    rd_kafka_conf_set_error_cb(conf.get(), &Producer::on_error);
    rd_kafka_conf_set_log_cb(conf.get(), &Producer::on_log);
    if (connection_failures_.verifies_certificates())
        rd_kafka_conf_set_ssl_cert_verify_cb(conf.get(), &Producer::on_certificate);

    char error[512];
    handle_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), error, sizeof error));
    if (!handle_) throw ConfigError(std::string("kafka: cannot create producer: ") + error);
    conf.release();  // rd_kafka_new took ownership

    int fds[2];
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
        throw DefiniteError(std::string("kafka: pipe: ") + std::strerror(errno));
    wakeup_read_ = FileDescriptor(fds[0]);
    wakeup_write_ = FileDescriptor(fds[1]);
    main_queue_.reset(rd_kafka_queue_get_main(handle_.get()));
    rd_kafka_queue_io_event_enable(main_queue_.get(), wakeup_write_.get(), "1", 1);
}

Producer::~Producer() {
    topics_.clear();
    main_queue_.reset();
    // Before the pipe librdkafka writes to.
    handle_.reset();
}

rd_kafka_topic_t* Producer::topic_handle(std::string_view topic) {
    if (const auto known = topics_by_address_.find(topic.data());
        known != topics_by_address_.end() && known->second.name == topic)
        return known->second.handle;
    auto found = topics_.find(topic);
    if (found == topics_.end()) found = create_topic_handle(topic);
    // Addresses of short-lived names (dead letters, a router's evicted routes) would pile up.
    if (topics_by_address_.size() >= kMaxKnownTopicAddresses) topics_by_address_.clear();
    topics_by_address_[topic.data()] = {found->first, found->second.get()};
    return found->second.get();
}

Producer::Topics::iterator Producer::create_topic_handle(std::string_view topic) {
    TopicPtr created(rd_kafka_topic_new(handle_.get(), std::string(topic).c_str(), nullptr));
    if (!created)
        throw DefiniteError("kafka: cannot create topic handle for \"" + std::string(topic) +
                            "\": " + rd_kafka_err2str(rd_kafka_last_error()));
    return topics_.emplace(std::string(topic), std::move(created)).first;
}

rd_kafka_resp_err_t Producer::produce(const Record& record, std::uint64_t tag) {
    rd_kafka_topic_t* topic = topic_handle(record.topic);
    // librdkafka's argument macros cast without parentheses: pass plain variables.
    void* value = record.value ? const_cast<char*>(record.value->data()) : nullptr;
    const std::size_t value_size = record.value ? record.value->size() : 0;
    const void* key = record.key ? record.key->data() : nullptr;
    const std::size_t key_size = record.key ? record.key->size() : 0;
    void* tag_opaque = reinterpret_cast<void*>(static_cast<std::uintptr_t>(tag));
    const std::int32_t partition = record.partition >= 0 ? record.partition : RD_KAFKA_PARTITION_UA;
    rd_kafka_headers_t* headers = rd_kafka_headers_new(record.headers.size());
    for (const auto& header : record.headers)
        rd_kafka_header_add(headers, header.name.data(), static_cast<ssize_t>(header.name.size()),
                            header.value ? header.value->data() : nullptr,
                            header.value ? static_cast<ssize_t>(header.value->size()) : 0);
    const rd_kafka_resp_err_t error = rd_kafka_producev(
        handle_.get(), RD_KAFKA_V_RKT(topic), RD_KAFKA_V_PARTITION(partition), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_VALUE(value, value_size), RD_KAFKA_V_KEY(key, key_size), RD_KAFKA_V_HEADERS(headers),
        RD_KAFKA_V_TIMESTAMP(record.timestamp_ms), RD_KAFKA_V_OPAQUE(tag_opaque), RD_KAFKA_V_END);
    // On success librdkafka owns the headers.
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) rd_kafka_headers_destroy(headers);
    return error;
}

void Producer::drain_wakeup_pipe() {
    // A pipe read returns what is there up to the buffer's size: a short read found it empty, and
    // a second read() would only return EAGAIN.
    char drained[64];
    while (read(wakeup_read_.get(), drained, sizeof drained) == static_cast<ssize_t>(sizeof drained)) {
    }
}

void Producer::serve(int timeout_ms) {
    drain_wakeup_pipe();
    serve_time_ms_.reset();
    serving_ = true;
    rd_kafka_poll(handle_.get(), timeout_ms);
    serving_ = false;
    rethrow_callback_failure();
}

bool Producer::flush(int timeout_ms) {
    drain_wakeup_pipe();
    serve_time_ms_.reset();
    serving_ = true;
    // rd_kafka_flush() overrides linger.ms only while it runs: a timeout of 0 would often return
    // before a broker thread has woken to look, and the records would wait after all.
    const rd_kafka_resp_err_t result = rd_kafka_flush(handle_.get(), timeout_ms);
    serving_ = false;
    rethrow_callback_failure();
    return result == RD_KAFKA_RESP_ERR_NO_ERROR;
}

void Producer::rethrow_callback_failure() {
    if (callback_failure_) std::rethrow_exception(std::exchange(callback_failure_, nullptr));
}

// One clock read covers a serve()'s whole batch of reports (handed over within microseconds of
// each other); reports librdkafka hands over elsewhere (its flush inside a transaction commit)
// read the clock each.
std::int64_t Producer::report_time_ms() {
    if (serving_ && serve_time_ms_) return *serve_time_ms_;
    const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch()).count();
    if (serving_) serve_time_ms_ = now;
    return now;
}

std::string Producer::fatal_error() const {
    char reason[512];
    const rd_kafka_resp_err_t error = rd_kafka_fatal_error(handle_.get(), reason, sizeof reason);
    if (error == RD_KAFKA_RESP_ERR_NO_ERROR) return {};
    return std::string(rd_kafka_err2name(error)) + ": " + reason;
}

bool Producer::fenced() const {
    char reason[512];
    const rd_kafka_resp_err_t error = rd_kafka_fatal_error(handle_.get(), reason, sizeof reason);
    return error == RD_KAFKA_RESP_ERR__FENCED || error == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
           error == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

namespace {

// librdkafka's rd_kafka_error_t, owned and turned into a TransactionError.
void throw_if_failed(const ErrorPtr& error, const Producer& producer, const char* what) {
    if (!error) return;
    const std::string message = std::string("kafka: ") + what + ": " + rd_kafka_error_string(error.get());
    using Kind = TransactionError::Kind;
    if (rd_kafka_error_is_fatal(error.get()))
        throw TransactionError(producer.fenced() ? Kind::fenced : Kind::fatal, message);
    if (rd_kafka_error_txn_requires_abort(error.get())) throw TransactionError(Kind::abortable, message);
    if (rd_kafka_error_is_retriable(error.get())) throw TransactionError(Kind::retriable, message);
    throw TransactionError(Kind::fatal, message);
}

}  // namespace

void Producer::init_transactions(int timeout_ms) {
    const ErrorPtr error(rd_kafka_init_transactions(handle_.get(), timeout_ms));
    rethrow_callback_failure();
    throw_if_failed(error, *this, "init_transactions");
}

void Producer::begin_transaction() {
    throw_if_failed(ErrorPtr(rd_kafka_begin_transaction(handle_.get())), *this, "begin_transaction");
}

void Producer::commit_transaction(int timeout_ms) {
    const ErrorPtr error(rd_kafka_commit_transaction(handle_.get(), timeout_ms));
    rethrow_callback_failure();
    throw_if_failed(error, *this, "commit_transaction");
}

void Producer::abort_transaction(int timeout_ms) {
    const ErrorPtr error(rd_kafka_abort_transaction(handle_.get(), timeout_ms));
    rethrow_callback_failure();
    throw_if_failed(error, *this, "abort_transaction");
}

std::optional<int> Producer::partition_count(std::string_view topic, int at_least, int timeout_ms) {
    // A partition past the cached count is asked about once a second at most: a row placing
    // every event there must not cost a metadata round trip each.
    constexpr auto kRecheck = std::chrono::seconds(1);
    const auto now = std::chrono::steady_clock::now();
    auto cached = partition_counts_.find(topic);
    if (cached != partition_counts_.end() && (at_least < cached->second.count || now - cached->second.asked < kRecheck))
        return cached->second.count;
    const rd_kafka_metadata_t* raw = nullptr;
    if (rd_kafka_metadata(handle_.get(), 0, topic_handle(topic), &raw, timeout_ms) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return std::nullopt;
    MetadataPtr metadata(raw);
    if (metadata->topic_cnt != 1 || metadata->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR ||
        metadata->topics[0].partition_cnt <= 0)
        return std::nullopt;
    if (cached == partition_counts_.end()) cached = partition_counts_.emplace(std::string(topic), PartitionCount{}).first;
    cached->second = {metadata->topics[0].partition_cnt, now};
    return cached->second.count;
}

ConfPtr Producer::admin_conf(const config::KafkaSettings& settings, const std::string& bootstrap_servers) {
    ConfPtr conf = client_conf(settings, bootstrap_servers, {});
    rd_kafka_conf_set_log_cb(conf.get(), &Producer::on_log);
    return conf;
}

std::string Producer::check_metadata(int timeout_ms) const {
    const rd_kafka_metadata_t* raw = nullptr;
    const rd_kafka_resp_err_t error = rd_kafka_metadata(handle_.get(), 0, nullptr, &raw, timeout_ms);
    if (error != RD_KAFKA_RESP_ERR_NO_ERROR) return rd_kafka_err2str(error);
    MetadataPtr metadata(raw);
    if (metadata->broker_cnt == 0) return "the cluster reported no brokers";
    return {};
}

void Producer::on_delivery_report(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) noexcept {
    auto* self = static_cast<Producer*>(opaque);
    if (self->callback_failure_) return;
    try {
        self->hand_over_report(message);
    } catch (...) {
        self->callback_failure_ = std::current_exception();
    }
}

void Producer::hand_over_report(const rd_kafka_message_t* message) {
    DeliveryReport report;
    report.tag = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(message->_private));
    report.error = message->err;
    report.topic = rd_kafka_topic_name(message->rkt);
    report.partition = message->partition;
    report.offset = message->offset;
    report.size = message->len + message->key_len;
    report.served_at_ms = report_time_ms();
    if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) return on_delivery_(report);
    // A failed record may be dead-lettered: hand over what it held.
    if (message->key) report.key = std::string_view(static_cast<const char*>(message->key), message->key_len);
    if (message->payload) report.value = std::string_view(static_cast<const char*>(message->payload), message->len);
    report.timestamp_ms = rd_kafka_message_timestamp(message, nullptr);
    std::vector<Header> headers;
    rd_kafka_headers_t* raw = nullptr;
    if (rd_kafka_message_headers(message, &raw) == RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* name;
        const void* value;
        std::size_t size;
        for (std::size_t i = 0; rd_kafka_header_get_all(raw, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i)
            headers.push_back({name, value ? std::optional<std::string_view>(std::string_view(static_cast<const char*>(value), size))
                                           : std::nullopt});
    }
    report.headers = headers;
    on_delivery_(report);
}

void Producer::purge() { rd_kafka_purge(handle_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT); }

void Producer::on_error(rd_kafka_t*, int error, const char* reason, void* opaque) noexcept {
    // Transient broker errors are retried by librdkafka itself; fatal ones surface through
    // fatal_error() and failed delivery reports. Refused credentials and certificates stay refused.
    const auto code = static_cast<rd_kafka_resp_err_t>(error);
    try {
        log::warn(std::string("kafka: ") + rd_kafka_err2name(code) + ": " + reason);
        static_cast<Producer*>(opaque)->connection_failures_.error_reported(code, reason);
    } catch (const std::exception& e) {
        log::error(std::string("kafka: cannot judge librdkafka's error ") + rd_kafka_err2name(code) + ": " + e.what());
    }
}

int Producer::on_certificate(rd_kafka_t*, const char* broker, int32_t, int* x509_error, int depth, const char*, size_t,
                             char* errstr, size_t errstr_size, void* opaque) noexcept {
    try {
        return static_cast<Producer*>(opaque)->connection_failures_.certificate_checked(broker, *x509_error, depth, errstr,
                                                                                       errstr_size) ? 1 : 0;
    } catch (const std::exception&) {
        return *x509_error == X509_V_OK ? 1 : 0;  // OpenSSL's verdict, unremembered
    }
}

void Producer::on_log(const rd_kafka_t*, int level, const char* facility, const char* message) noexcept {
    try {
        const std::string line = std::string("kafka: ") + facility + ": " + message;
        if (level <= 3) log::error(line);
        else if (level <= 4) log::warn(line);
        else if (level <= 6) log::info(line);
        else log::debug(line);
    } catch (const std::exception&) {
        // Nothing to say it with: the line is lost, librdkafka goes on.
    }
}

}  // namespace outbox::kafka
