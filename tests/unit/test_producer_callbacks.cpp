#define BOOST_TEST_MODULE producer_callbacks
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <stdexcept>
#include <string>

#include "outbox/kafka/embedded_cluster.hpp"
#include "outbox/kafka/producer.hpp"

// librdkafka calls the delivery handler from C: what the handler throws must not unwind through
// librdkafka, and must still reach the caller of the call that served the report.

using namespace outbox;
using namespace outbox::kafka;
using namespace std::chrono_literals;

namespace {

config::KafkaSettings settings_for(const EmbeddedCluster& cluster) {
    config::KafkaSettings settings;
    settings.properties.push_back({"bootstrap.servers", cluster.bootstrap_servers(), {}});
    settings.properties.push_back({"linger.ms", "0", {}});
    return settings;
}

void produce_three(Producer& producer) {
    for (std::uint64_t tag = 1; tag <= 3; ++tag) {
        Record record;
        record.topic = "events";
        record.value = "v";
        BOOST_REQUIRE_EQUAL(producer.produce(record, tag), RD_KAFKA_RESP_ERR_NO_ERROR);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(what_the_delivery_handler_throws_reaches_the_caller_of_serve_once) {
    const EmbeddedCluster cluster(1);
    int handed_over = 0;
    Producer producer(settings_for(cluster), cluster.bootstrap_servers(), [&](const DeliveryReport&) {
        ++handed_over;
        throw std::runtime_error("handler refused report " + std::to_string(handed_over));
    });
    produce_three(producer);
    int thrown = 0;
    std::string what;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (producer.outstanding() > 0 && std::chrono::steady_clock::now() < deadline) {
        try {
            producer.serve(100);
        } catch (const std::runtime_error& e) {
            if (++thrown == 1) what = e.what();
        }
    }
    BOOST_TEST(producer.outstanding() == 0);
    BOOST_TEST(what == "handler refused report 1");
    // The rest of the batch that failed is not handed over; a later batch is, and throws again.
    BOOST_TEST(thrown >= 1);
    BOOST_TEST(handed_over == thrown);
    producer.serve(0);  // nothing kept from before
}

BOOST_AUTO_TEST_CASE(what_the_delivery_handler_throws_during_a_flush_reaches_the_caller_of_flush) {
    const EmbeddedCluster cluster(1);
    Producer producer(settings_for(cluster), cluster.bootstrap_servers(),
                      [&](const DeliveryReport& report) {
                          if (report.tag == 2) throw std::logic_error("report 2 refused");
                      });
    produce_three(producer);
    BOOST_CHECK_EXCEPTION(producer.flush(20000), std::logic_error,
                          [](const std::logic_error& e) { return std::string(e.what()) == "report 2 refused"; });
}
