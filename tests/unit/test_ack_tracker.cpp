#define BOOST_TEST_MODULE ack_tracker
#include <boost/test/unit_test.hpp>

#include "outbox/ack/ack_tracker.hpp"

using outbox::ack::AckTracker;

namespace {
// A committed transaction with `events` events sent, returning its id.
AckTracker::TxnId committed(AckTracker& tracker, int events, outbox::Lsn end_lsn) {
    const auto txn = tracker.begin_transaction();
    for (int i = 0; i < events; ++i) tracker.event_sent(txn);
    tracker.commit_transaction(txn, end_lsn);
    return txn;
}
}  // namespace

BOOST_AUTO_TEST_CASE(nothing_confirmed_before_delivery) {
    AckTracker tracker;
    committed(tracker, 2, 100);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);
    BOOST_TEST(tracker.events_in_flight() == 2u);
}

BOOST_AUTO_TEST_CASE(transaction_confirmed_as_soon_as_its_last_event_is_acknowledged) {
    AckTracker tracker;
    const auto t = committed(tracker, 2, 100);
    tracker.event_delivered(t);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);
    tracker.event_delivered(t);
    BOOST_TEST(tracker.confirmed_lsn() == 100u);
    BOOST_TEST(tracker.transactions_pending() == 0u);
}

BOOST_AUTO_TEST_CASE(later_transaction_acknowledged_first_does_not_pass_an_earlier_one) {
    // Two transactions on different partitions: the second's ack arrives first.
    AckTracker tracker;
    const auto t1 = committed(tracker, 1, 100);
    const auto t2 = committed(tracker, 1, 200);
    tracker.event_delivered(t2);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);  // never "last callback wins"
    tracker.event_delivered(t1);
    BOOST_TEST(tracker.confirmed_lsn() == 200u);
}

BOOST_AUTO_TEST_CASE(out_of_order_reports_across_many_transactions) {
    AckTracker tracker;
    const auto t1 = committed(tracker, 3, 100);
    const auto t2 = committed(tracker, 2, 200);
    const auto t3 = committed(tracker, 1, 300);
    tracker.event_delivered(t3);
    tracker.event_delivered(t1);
    tracker.event_delivered(t2);
    tracker.event_delivered(t1);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);
    tracker.event_delivered(t1);  // t1 done: confirm 100, t2 still waits
    BOOST_TEST(tracker.confirmed_lsn() == 100u);
    tracker.event_delivered(t2);  // t2 done, and t3 already was
    BOOST_TEST(tracker.confirmed_lsn() == 300u);
    BOOST_TEST(tracker.events_in_flight() == 0u);
}

BOOST_AUTO_TEST_CASE(transaction_without_events_is_confirmed_at_commit_when_nothing_precedes_it) {
    AckTracker tracker;
    committed(tracker, 0, 150);
    BOOST_TEST(tracker.confirmed_lsn() == 150u);
}

BOOST_AUTO_TEST_CASE(empty_transaction_waits_behind_an_undelivered_one) {
    AckTracker tracker;
    const auto t1 = committed(tracker, 1, 100);
    committed(tracker, 0, 200);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);
    tracker.event_delivered(t1);
    BOOST_TEST(tracker.confirmed_lsn() == 200u);
}

BOOST_AUTO_TEST_CASE(open_transaction_is_not_confirmed_even_when_all_its_events_are_delivered) {
    AckTracker tracker;
    const auto t = tracker.begin_transaction();
    tracker.event_sent(t);
    tracker.event_delivered(t);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);
    BOOST_TEST(tracker.has_open_transaction());
    tracker.commit_transaction(t, 500);
    BOOST_TEST(tracker.confirmed_lsn() == 500u);
}

BOOST_AUTO_TEST_CASE(keepalive_advances_only_when_nothing_is_pending) {
    AckTracker tracker;
    tracker.keepalive(1000);
    BOOST_TEST(tracker.confirmed_lsn() == 1000u);  // idle outbox, busy database: WAL is released

    const auto t = committed(tracker, 1, 1100);
    tracker.keepalive(5000);
    BOOST_TEST(tracker.confirmed_lsn() == 1000u);  // an event is in flight: keepalive must not pass it
    tracker.event_delivered(t);
    BOOST_TEST(tracker.confirmed_lsn() == 1100u);
    tracker.keepalive(5000);
    BOOST_TEST(tracker.confirmed_lsn() == 5000u);
}

BOOST_AUTO_TEST_CASE(keepalive_ignored_while_a_transaction_is_being_received) {
    AckTracker tracker;
    const auto t = tracker.begin_transaction();
    tracker.keepalive(9000);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);
    tracker.commit_transaction(t, 9100);
    BOOST_TEST(tracker.confirmed_lsn() == 9100u);
}

BOOST_AUTO_TEST_CASE(confirmed_position_never_moves_backwards) {
    AckTracker tracker;
    tracker.reset_confirmed(700);
    tracker.keepalive(600);
    BOOST_TEST(tracker.confirmed_lsn() == 700u);
    committed(tracker, 0, 650);  // a replayed transaction below the slot position
    BOOST_TEST(tracker.confirmed_lsn() == 700u);
}

BOOST_AUTO_TEST_CASE(abandoned_transaction_never_advances_the_watermark) {
    // The connection dropped mid-transaction; the server will send it again after reconnecting.
    AckTracker tracker;
    const auto t1 = committed(tracker, 1, 100);
    const auto t2 = tracker.begin_transaction();
    tracker.event_sent(t2);
    tracker.abandon_open_transaction();
    BOOST_TEST(!tracker.has_open_transaction());
    tracker.event_delivered(t2);
    BOOST_TEST(tracker.confirmed_lsn() == 0u);
    tracker.event_delivered(t1);
    BOOST_TEST(tracker.confirmed_lsn() == 100u);
    BOOST_TEST(tracker.transactions_pending() == 0u);

    const auto replay = committed(tracker, 1, 200);  // the re-sent copy
    tracker.event_delivered(replay);
    BOOST_TEST(tracker.confirmed_lsn() == 200u);
}

BOOST_AUTO_TEST_CASE(misuse_is_detected) {
    AckTracker tracker;
    const auto t = committed(tracker, 1, 100);
    BOOST_CHECK_THROW(tracker.event_sent(t), std::logic_error);  // after COMMIT
    tracker.event_delivered(t);
    BOOST_CHECK_THROW(tracker.event_delivered(t), std::logic_error);  // more reports than events
    const auto open = tracker.begin_transaction();
    BOOST_CHECK_THROW(tracker.begin_transaction(), std::logic_error);
    tracker.commit_transaction(open, 200);
}

BOOST_AUTO_TEST_CASE(randomised_reports_confirm_exactly_the_contiguous_delivered_prefix) {
    std::srand(7);
    for (int round = 0; round < 200; ++round) {
        AckTracker tracker;
        std::vector<std::pair<AckTracker::TxnId, int>> outstanding;  // (txn, its index)
        std::vector<int> remaining;
        const int transactions = 1 + std::rand() % 12;
        for (int i = 0; i < transactions; ++i) {
            const int events = std::rand() % 4;
            const auto id = committed(tracker, events, static_cast<outbox::Lsn>(100 * (i + 1)));
            remaining.push_back(events);
            for (int e = 0; e < events; ++e) outstanding.emplace_back(id, i);
        }
        while (true) {
            // Expected: end_lsn of the longest fully delivered prefix.
            int prefix = 0;
            while (prefix < transactions && remaining[prefix] == 0) ++prefix;
            BOOST_TEST(tracker.confirmed_lsn() == static_cast<outbox::Lsn>(100 * prefix));
            if (outstanding.empty()) break;
            const auto pick = outstanding.begin() + std::rand() % outstanding.size();
            tracker.event_delivered(pick->first);
            --remaining[pick->second];
            outstanding.erase(pick);
        }
    }
}

BOOST_AUTO_TEST_CASE(discarded_transactions_are_forgotten_and_recognisable) {
    AckTracker tracker;
    const auto t1 = committed(tracker, 1, 100);
    tracker.event_delivered(t1);
    const auto t2 = committed(tracker, 2, 200);
    tracker.discard_pending();  // the producer was replaced; the stream replays from 100
    BOOST_TEST(tracker.discarded(t2));
    BOOST_TEST(tracker.events_in_flight() == 0u);
    BOOST_TEST(tracker.confirmed_lsn() == 100u);
    const auto replay = tracker.begin_transaction({150, 7, 1234});
    BOOST_TEST(!tracker.discarded(replay));
    BOOST_TEST(replay > t2);
    BOOST_TEST(tracker.info(replay).xid == 7u);
    BOOST_TEST(tracker.info(replay).commit_time_ms == 1234);
    tracker.event_sent(replay);
    tracker.commit_transaction(replay, 200);
    tracker.event_delivered(replay);
    BOOST_TEST(tracker.confirmed_lsn() == 200u);
}

BOOST_AUTO_TEST_CASE(delivery_returns_what_was_remembered_of_the_transaction) {
    AckTracker tracker;
    const auto t = tracker.begin_transaction({100, 7, 1234});
    tracker.event_sent(t);
    tracker.commit_transaction(t, 150);
    const auto info = tracker.event_delivered(t);  // confirms t: the tracker forgets it
    BOOST_TEST(tracker.transactions_pending() == 0u);
    BOOST_TEST(info.commit_lsn == 100u);
    BOOST_TEST(info.xid == 7u);
    BOOST_TEST(info.commit_time_ms == 1234);
}

BOOST_AUTO_TEST_CASE(many_pending_transactions_wrapping_around_while_reports_arrive_out_of_order) {
    // Thousands pending at once, finished in random order while new ones keep arriving: the
    // oldest leave from one end while the newest join at the other, and storage grows mid-way.
    std::srand(11);
    AckTracker tracker;
    std::vector<std::pair<AckTracker::TxnId, std::size_t>> outstanding;  // (txn, its index)
    std::vector<int> remaining;
    std::size_t confirmed_prefix = 0;
    const auto check = [&] {
        while (confirmed_prefix < remaining.size() && remaining[confirmed_prefix] == 0) ++confirmed_prefix;
        BOOST_REQUIRE(tracker.confirmed_lsn() == static_cast<outbox::Lsn>(100 * confirmed_prefix));
        BOOST_REQUIRE(tracker.transactions_pending() == remaining.size() - confirmed_prefix);
    };
    for (std::size_t i = 0; i < 20000; ++i) {
        const int events = std::rand() % 3;
        const auto id = committed(tracker, events, static_cast<outbox::Lsn>(100 * (i + 1)));
        remaining.push_back(events);
        for (int e = 0; e < events; ++e) outstanding.emplace_back(id, i);
        // Deliver fewer than arrive for a while (the ring grows), then more (it drains).
        const int deliveries = std::rand() % (i < 10000 ? 2 : 4);
        for (int d = 0; d < deliveries && !outstanding.empty(); ++d) {
            const auto pick = outstanding.begin() + std::rand() % outstanding.size();
            tracker.event_delivered(pick->first);
            --remaining[pick->second];
            *pick = outstanding.back();
            outstanding.pop_back();
        }
        check();
    }
    while (!outstanding.empty()) {
        const auto pick = outstanding.begin() + std::rand() % outstanding.size();
        tracker.event_delivered(pick->first);
        --remaining[pick->second];
        *pick = outstanding.back();
        outstanding.pop_back();
        check();
    }
    BOOST_TEST(tracker.events_in_flight() == 0u);
    BOOST_TEST(tracker.transactions_pending() == 0u);
}

// Delivery tags keep only the low 40 bits of a transaction id; after 2^40 transactions the full
// id must still be recovered, or every report would look like one for a discarded transaction.
BOOST_AUTO_TEST_CASE(ids_recovered_from_their_low_bits_past_the_wrap) {
    constexpr unsigned kBits = 40;
    constexpr std::uint64_t kMask = (std::uint64_t{1} << kBits) - 1;
    AckTracker tracker((std::uint64_t{1} << kBits) - 2);
    const auto before_wrap = committed(tracker, 1, 100);
    const auto at_wrap = committed(tracker, 1, 200);
    const auto after_wrap = committed(tracker, 1, 300);
    BOOST_TEST((after_wrap & kMask) < (before_wrap & kMask));  // the low bits did wrap

    BOOST_TEST(tracker.issued_id(after_wrap & kMask, kBits) == after_wrap);
    BOOST_TEST(tracker.issued_id(at_wrap & kMask, kBits) == at_wrap);
    BOOST_TEST(tracker.issued_id(before_wrap & kMask, kBits) == before_wrap);
    tracker.event_delivered(tracker.issued_id(after_wrap & kMask, kBits));
    tracker.event_delivered(tracker.issued_id(before_wrap & kMask, kBits));
    tracker.event_delivered(tracker.issued_id(at_wrap & kMask, kBits));
    BOOST_TEST(tracker.confirmed_lsn() == 300u);

    // A report for a transaction discarded before the wrap is still recognised as discarded.
    const auto old = committed(tracker, 1, 400);
    tracker.discard_pending();
    for (int i = 0; i < 3; ++i) committed(tracker, 0, 500 + i);
    BOOST_TEST(tracker.discarded(tracker.issued_id(old & kMask, kBits)));
}
