#define BOOST_TEST_MODULE kafka_transactions
#include <boost/test/unit_test.hpp>

#include <memory>
#include <stdexcept>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/kafka/kafka_connector.hpp"
#include "outbox/pipeline/kafka_transactions.hpp"
#include "outbox/util/clock.hpp"
#include "outbox/util/errors.hpp"

// Exactly-once set-up against a cluster whose init_transactions never succeeds: the cause the
// producer knows (a broker refusing TLS while others serve) is named, as for a failed delivery.

using namespace outbox;
using Kind = kafka::TransactionError::Kind;

namespace {

// Each reading of the clock is a second later: the 30 s limit passes within the test.
class SteppingClock final : public Clock {
public:
    time_point now() const override { return start_ + std::chrono::seconds(++reads_); }
    std::int64_t unix_ms() const override { return 0; }

private:
    time_point start_{};
    mutable int reads_ = 0;
};

// A producer whose init_transactions always times out, retriably, as librdkafka's does while the
// transaction coordinator cannot be reached.
class CoordinatorUnreachable final : public kafka::KafkaProducer {
public:
    std::string refusal;
    int init_calls = 0;

    void init_transactions(int) override {
        ++init_calls;
        throw kafka::TransactionError(Kind::retriable, "kafka: init_transactions: Local: Timed out");
    }
    const std::string& refusal_blocking_delivery() const override { return refusal; }
    const std::string& authentication_failure() const override { return none_; }
    void serve(int) override {}

    rd_kafka_resp_err_t produce(const kafka::Record&, std::uint64_t) override { return unused<rd_kafka_resp_err_t>(); }
    bool flush(int) override { return unused<bool>(); }
    int wakeup_fd() const override { return -1; }
    void purge() override { unused<void>(); }
    std::string fatal_error() const override { return {}; }
    bool fenced() const override { return false; }
    std::optional<int> partition_count(std::string_view, int, int) override { return unused<std::optional<int>>(); }
    std::string check_metadata(int) const override { return unused<std::string>(); }
    void look_up_topic(std::string_view) override { unused<void>(); }
    void create_topic(std::string_view, int, int, const std::vector<std::pair<std::string, std::string>>&) override {
        unused<void>();
    }
    std::optional<AdminAnswer> admin_answer(std::string_view) override { return unused<std::optional<AdminAnswer>>(); }
    void begin_transaction() override { unused<void>(); }
    void commit_transaction(int) override { unused<void>(); }
    void abort_transaction(int) override { unused<void>(); }

private:
    template <typename T>
    static T unused() {
        throw std::logic_error("not called by KafkaTransactions::start() before init_transactions succeeds");
    }
    const std::string none_;
};

class NoConnector final : public kafka::KafkaConnector {
public:
    std::unique_ptr<kafka::KafkaProducer> producer(kafka::KafkaProducer::DeliveryHandler,
                                                   const std::vector<std::pair<std::string, std::string>>&) override {
        throw std::logic_error("not called");
    }
    std::unique_ptr<kafka::OffsetsTopic> offsets_topic(const std::string&, const kafka::SourceIdentity&) override {
        throw std::logic_error("not called: init_transactions never succeeds");
    }
};

const config::Config& exactly_once() {
    static const config::Config config = config::parse_config(
        "postgres:\n  conninfo: host=db\nkafka:\n  bootstrap.servers: k:9093\ndelivery.guarantee: exactly-once\n",
        "router.yaml");
    return config;
}
const kafka::SourceIdentity kSource{"7300000000000000001", "app", "outbox_router"};

}  // namespace

BOOST_AUTO_TEST_CASE(a_broker_refusing_tls_is_named_when_init_transactions_gives_up) {
    SteppingClock clock;
    NoConnector connector;
    pipeline::KafkaTransactions transactions(exactly_once(), connector, clock, [] { return false; });
    CoordinatorUnreachable producer;
    producer.refusal =
        "kafka: TLS: the certificate of broker ssl://broker-3:9093/3 failed verification: it is signed by an unknown CA";
    try {
        transactions.start(producer, kSource);
        BOOST_FAIL("start() returned");
    } catch (const DefiniteError& e) {
        const std::string what = e.what();
        BOOST_TEST(what.starts_with(producer.refusal), what);
        BOOST_TEST(what.find("init_transactions: Local: Timed out") != std::string::npos, what);
    }
    BOOST_TEST(producer.init_calls > 1);  // retried until the limit, as without a refusal
}

BOOST_AUTO_TEST_CASE(without_a_refusal_a_timed_out_init_transactions_is_transient) {
    SteppingClock clock;
    NoConnector connector;
    pipeline::KafkaTransactions transactions(exactly_once(), connector, clock, [] { return false; });
    CoordinatorUnreachable producer;
    BOOST_CHECK_THROW(transactions.start(producer, kSource), TransientError);
}
