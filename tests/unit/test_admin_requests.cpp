#define BOOST_TEST_MODULE admin_requests
#include <boost/test/unit_test.hpp>

#include <optional>
#include <thread>

#include "outbox/kafka/admin_requests.hpp"
#include "outbox/kafka/client_conf.hpp"

// Admin requests run on threads of their own. Left behind (a stop during exactly-once set-up, a
// replaced producer), they are cancelled and end soon after, so that the process can wait for
// them before its exit-time clean-up instead of racing it. Nothing listens on port 1 of the
// loopback: every request waits there until its timeout (10 s for a lookup, CreateTopics' own).

using namespace outbox::kafka;
using namespace std::chrono_literals;

namespace {

ConfPtr unreachable_cluster() {
    return client_conf({}, "127.0.0.1:1", {{"log_level", "0"}});
}

// The answer for `topic`, asked every 10 ms for at most `limit`.
std::optional<KafkaProducer::AdminAnswer> answer_within(AdminRequests& admin, const std::string& topic,
                                                        std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (auto answer = admin.answer(topic)) return answer;
        std::this_thread::sleep_for(10ms);
    }
    return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_unanswered_create_answers_at_its_own_timeout) {
    AdminRequests admin(unreachable_cluster(), 1s);
    admin.create("events", 1, 1, {});
    const auto answer = answer_within(admin, "events", 20s);
    BOOST_REQUIRE(answer);
    BOOST_TEST(answer->error != RD_KAFKA_RESP_ERR_NO_ERROR);
    BOOST_TEST(AdminRequests::wait_for_all(10s));
}

// Without the cancel, the threads would run on for CreateTopics' 30 s and the lookup's 10 s.
BOOST_AUTO_TEST_CASE(requests_left_behind_end_soon_after_their_owner) {
    {
        AdminRequests admin(unreachable_cluster());
        admin.create("events", 1, 1, {});
        admin.look_up("offsets");
        std::this_thread::sleep_for(200ms);  // both inside librdkafka
    }
    BOOST_TEST(AdminRequests::wait_for_all(6s));
}
