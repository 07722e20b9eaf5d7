#define BOOST_TEST_MODULE crash
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

struct Transaction {
    int first_seq = 0;
    int last_seq = 0;
    std::uint64_t end_bound = 0;  // WAL insert position right after its commit: >= its commit end_lsn
};

}  // namespace

BOOST_AUTO_TEST_CASE(kill_9_at_random_moments_loses_nothing_and_duplicates_only_unconfirmed_transactions) {
    const auto db = create_outbox_database("crash");
    const std::string topic = "crash.events";
    const auto config = router_config(db, "", "", "outbox:\n  route.topic.replacement: crash.events\n");
    constexpr int kTransactions = 1000, kRowsPerTransaction = 100, kKeys = 37, kKills = 12;
    {
        // The slot only sees WAL written after it exists.
        RouterProcess creator(work_dir(), config);
        BOOST_REQUIRE(creator.wait_streaming());
        BOOST_REQUIRE(creator.stop(SIGTERM) == 0);
    }

    std::vector<Transaction> transactions(kTransactions);
    std::atomic<int> committed{0};
    std::thread writer([&] {
        Sql sql(postgres().conninfo(db));
        for (int t = 0; t < kTransactions; ++t) {
            const int first = t * kRowsPerTransaction;
            sql.exec("BEGIN; " + outbox_rows_sql(first, kRowsPerTransaction, kKeys) + "; COMMIT;");
            transactions[t] = {first, first + kRowsPerTransaction - 1,
                               lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"))};
            committed = t + 1;
        }
    });

    std::mt19937 random(20261122);
    std::uniform_int_distribution<int> pause_ms(150, 900);
    std::vector<std::uint64_t> confirmed_at_kill;
    for (int kill = 0; kill < kKills; ++kill) {
        RouterProcess router(work_dir(), config);
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(random)));
        router.kill_hard();
        confirmed_at_kill.push_back(confirmed_flush_lsn(db, db));
    }
    writer.join();
    BOOST_REQUIRE(committed == kTransactions);

    RouterProcess survivor(work_dir(), config);
    const std::size_t total = kTransactions * kRowsPerTransaction;
    // Duplicates count towards a record total, so wait for every distinct row first.
    sequences_in(topic, total, 300s);
    const auto records = read_topic(kafka_servers(), topic, total, 60s);

    std::map<int, int> deliveries;  // seq -> times in Kafka
    std::map<std::string, int> last_first_delivery;  // key -> seq of its newest first delivery
    bool order_kept = true;
    for (const auto& r : records) {  // partition by partition, offset order; a key lives in one partition
        const int seq = seq_of(r);
        if (deliveries[seq]++ > 0) continue;
        auto [it, fresh] = last_first_delivery.emplace(r.key.value(), seq);
        if (!fresh) {
            if (seq <= it->second) order_kept = false;
            it->second = seq;
        }
    }
    BOOST_TEST(deliveries.size() == total);  // every committed row at least once
    BOOST_TEST(order_kept);                   // first deliveries per key in commit order

    // A duplicate can only come from a transaction that was past the confirmed position at
    // some kill: the server replays exactly those.
    std::size_t duplicates = 0;
    bool duplicates_explained = true;
    for (const auto& t : transactions) {
        bool duplicated = false;
        for (int seq = t.first_seq; seq <= t.last_seq; ++seq)
            if (deliveries[seq] > 1) {
                duplicated = true;
                duplicates += deliveries[seq] - 1;
            }
        if (!duplicated) continue;
        const bool replayable = std::any_of(confirmed_at_kill.begin(), confirmed_at_kill.end(),
                                            [&](std::uint64_t confirmed) { return confirmed < t.end_bound; });
        if (!replayable) duplicates_explained = false;
    }
    BOOST_TEST(duplicates_explained);
    BOOST_TEST_MESSAGE("kill -9 x" << kKills << ": " << total << " rows, " << records.size() << " records, "
                                   << duplicates << " duplicates");
    BOOST_TEST(survivor.stop(SIGTERM) == 0);
}
