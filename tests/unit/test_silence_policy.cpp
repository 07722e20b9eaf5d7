#define BOOST_TEST_MODULE unit_silence_policy
#include <boost/test/unit_test.hpp>

#include "outbox/replication/connection_settings.hpp"
#include "outbox/replication/silence_policy.hpp"

using outbox::replication::SilencePolicy;
using Verdict = SilencePolicy::Verdict;
using namespace std::chrono_literals;

namespace {

const SilencePolicy::Clock::time_point t0{};

// The verdicts of a connection that hears nothing from `start` on, checked every 100 ms until
// it is lost; returns when it was lost.
std::chrono::milliseconds silent_until_lost(SilencePolicy& policy, SilencePolicy::Clock::time_point start,
                                            outbox::Lsn received = 1000) {
    for (auto now = start;; now += 100ms) {
        const auto verdict = policy.check(now, received);
        if (verdict == Verdict::ask_for_reply) policy.asked(now);
        if (verdict == Verdict::lost) return std::chrono::duration_cast<std::chrono::milliseconds>(now - start);
        BOOST_REQUIRE(now - start < 1000s);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(asks_for_a_reply_half_way_and_gives_up_at_the_limit) {
    SilencePolicy policy(30s);
    policy.connected(t0, 0ms);
    BOOST_TEST((policy.check(t0 + 14s, 1000) == Verdict::quiet));
    BOOST_TEST((policy.check(t0 + 15s, 1000) == Verdict::ask_for_reply));
    policy.asked(t0 + 15s);
    BOOST_TEST((policy.check(t0 + 29s, 1000) == Verdict::quiet));
    BOOST_TEST((policy.next_check() == t0 + 30s));
    BOOST_TEST((policy.check(t0 + 30s, 1000) == Verdict::lost));
}

BOOST_AUTO_TEST_CASE(a_reply_ends_the_silence) {
    SilencePolicy policy(30s);
    policy.connected(t0, 0ms);
    policy.asked(t0 + 15s);
    policy.heard(t0 + 16s);
    BOOST_TEST((policy.check(t0 + 30s, 1000) == Verdict::quiet));
    BOOST_TEST((policy.check(t0 + 31s, 1000) == Verdict::ask_for_reply));
}

// After the client itself was blocked for longer than the limit, the server has not been asked:
// it is asked first, and given half the limit to answer.
BOOST_AUTO_TEST_CASE(a_long_block_of_the_client_asks_before_giving_up) {
    SilencePolicy policy(30s);
    policy.connected(t0, 0ms);
    BOOST_TEST((policy.check(t0 + 120s, 1000) == Verdict::ask_for_reply));
    policy.asked(t0 + 120s);
    BOOST_TEST((policy.check(t0 + 134s, 1000) == Verdict::quiet));
    BOOST_TEST((policy.check(t0 + 135s, 1000) == Verdict::lost));
}

// A walsender decoding changes it does not publish sends a keepalive only every half
// wal_sender_timeout.
BOOST_AUTO_TEST_CASE(the_limit_is_never_below_wal_sender_timeout) {
    SilencePolicy policy(30s);
    policy.connected(t0, 60s);
    BOOST_TEST(policy.limit().count() == 60000);
    BOOST_TEST(silent_until_lost(policy, t0).count() == 60000);
    SilencePolicy shorter(30s);
    shorter.connected(t0, 10s);
    BOOST_TEST(shorter.limit().count() == 30000);
}

// The next connection decodes the same transaction and is silent at the same place: each loss
// doubles the limit until a silence longer than the limit ends in an answer.
BOOST_AUTO_TEST_CASE(each_connection_lost_to_silence_doubles_the_limit_until_the_server_gets_through) {
    SilencePolicy policy(1s);
    auto now = t0;
    std::vector<long> limits;
    for (int connection = 0; connection < 3; ++connection) {
        policy.connected(now, 0ms);
        limits.push_back(policy.limit().count());
        now += silent_until_lost(policy, now);
    }
    BOOST_TEST(limits == (std::vector<long>{1000, 2000, 4000}), boost::test_tools::per_element());
    BOOST_TEST(policy.describe_loss().find("for 4000 ms") != std::string::npos);
    BOOST_TEST(policy.describe_loss().find("silent for 8000 ms") != std::string::npos);

    // The fourth connection outlasts the replay: asked at half the configured limit, the server
    // answers 5 s later, and what follows is past where the first connection went silent. That
    // was the busy phase; the limit is the configured one again.
    policy.connected(now, 0ms);
    BOOST_TEST((policy.check(now + 500ms, 1000) == Verdict::ask_for_reply));
    policy.asked(now + 500ms);
    BOOST_TEST((policy.check(now + 5s, 1000) == Verdict::quiet));
    policy.heard(now + 5s);
    BOOST_TEST(policy.limit().count() == 8000);
    BOOST_TEST((policy.check(now + 5100ms, 2000) == Verdict::quiet));
    BOOST_TEST(policy.limit().count() == 1000);
}

// A slow first answer (a walsender starting to decode) or a little more read before the same
// silence is not getting through.
BOOST_AUTO_TEST_CASE(a_late_answer_alone_or_a_little_progress_alone_keeps_the_raised_limit) {
    SilencePolicy policy(1s);
    policy.connected(t0, 0ms);
    auto now = t0 + silent_until_lost(policy, t0, 1000);
    policy.connected(now, 0ms);
    policy.asked(now + 500ms);
    policy.heard(now + 3s);  // late, but no further than before
    BOOST_TEST((policy.check(now + 3100ms, 1000) == Verdict::quiet));
    BOOST_TEST(policy.limit().count() == 2000);
    now += 3100ms;
    now += silent_until_lost(policy, now, 1000);
    policy.connected(now, 0ms);
    BOOST_TEST((policy.check(now + 100ms, 1500) == Verdict::quiet));  // further, answered promptly
    BOOST_TEST(policy.limit().count() == 4000);
}

BOOST_AUTO_TEST_CASE(a_prompt_answer_keeps_the_raised_limit) {
    SilencePolicy policy(1s);
    policy.connected(t0, 0ms);
    const auto lost_at = t0 + silent_until_lost(policy, t0);
    policy.connected(lost_at, 0ms);
    policy.asked(lost_at + 500ms);
    policy.heard(lost_at + 510ms);  // an idle server answering on its way back to where it was busy
    BOOST_TEST(policy.limit().count() == 2000);
}

BOOST_AUTO_TEST_CASE(unread_on_purpose_is_not_silence) {
    SilencePolicy policy(1s);
    policy.connected(t0, 0ms);
    const auto lost_at = t0 + silent_until_lost(policy, t0);
    policy.connected(lost_at, 0ms);
    policy.not_listening(lost_at + 10s);
    BOOST_TEST(policy.limit().count() == 2000);  // not a silence the server got through
    BOOST_TEST((policy.check(lost_at + 10s + 499ms, 1000) == Verdict::quiet));
}

BOOST_AUTO_TEST_CASE(zero_turns_the_limit_off) {
    SilencePolicy policy(0ms);
    policy.connected(t0, 60s);
    BOOST_TEST(!policy.next_check().has_value());
    BOOST_TEST((policy.check(t0 + 1000s, 1000) == Verdict::quiet));
}

BOOST_AUTO_TEST_CASE(the_replication_connection_gets_keepalives_and_a_user_timeout_unless_it_sets_them) {
    using outbox::replication::replication_conninfo;
    BOOST_TEST(replication_conninfo("host=db dbname=app", 30s) ==
               "keepalives=1 keepalives_idle=15 keepalives_interval=5 keepalives_count=3 tcp_user_timeout=30000 "
               "host=db dbname=app");
    BOOST_TEST(replication_conninfo("postgresql://db/app?tcp_user_timeout=5000", 0ms) ==
               "postgresql://db/app?tcp_user_timeout=5000&keepalives=1&keepalives_idle=15&keepalives_interval=5"
               "&keepalives_count=3");
    BOOST_TEST(replication_conninfo("app", 1s) ==
               "keepalives=1 keepalives_idle=1 keepalives_interval=1 keepalives_count=3 tcp_user_timeout=1000 "
               "dbname='app'");
}

// A stall weeks after the last one is measured from the base again: a connection heard without a
// question for as long as the raised limit is healthy, however it began.
BOOST_AUTO_TEST_CASE(a_healthy_stretch_as_long_as_the_raised_limit_brings_the_limit_back_to_base) {
    SilencePolicy policy(1s);
    auto now = t0;
    for (int connection = 0; connection < 2; ++connection) {
        policy.connected(now, 0ms);
        now += silent_until_lost(policy, now);
    }
    policy.connected(now, 0ms);
    BOOST_TEST(policy.limit().count() == 4000);
    const auto healthy_from = now;
    for (; now <= healthy_from + 3900ms; now += 300ms) {
        policy.heard(now);
        BOOST_TEST((policy.check(now, 1000) == Verdict::quiet));
    }
    BOOST_TEST(policy.limit().count() == 4000);
    policy.heard(now);  // 4.2 s of hearing every 300 ms
    BOOST_TEST(policy.limit().count() == 1000);
    // The next stall is given up after the base limit.
    BOOST_TEST(silent_until_lost(policy, now).count() == 1000);
}

// A busy walsender that sends keepalives for a while, then is silent at the same place: the
// healthy stretch needed grows with the limit, so the limit still grows until it outlasts the
// silence.
BOOST_AUTO_TEST_CASE(keepalives_shorter_than_the_raised_limit_before_the_same_silence_keep_raising_it) {
    SilencePolicy policy(1s);
    auto now = t0;
    std::vector<long> limits;
    for (int connection = 0; connection < 4; ++connection) {
        policy.connected(now, 0ms);
        limits.push_back(policy.limit().count());
        for (const auto until = now + 1500ms; now < until; now += 250ms) policy.heard(now);
        now += silent_until_lost(policy, now);
    }
    BOOST_TEST(limits == (std::vector<long>{1000, 2000, 4000, 8000}), boost::test_tools::per_element());
}
