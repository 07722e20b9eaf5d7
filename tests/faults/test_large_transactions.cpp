#define BOOST_TEST_MODULE large_transactions
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <set>
#include <thread>

#include "harness.hpp"

using namespace outbox::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(one_transaction_of_a_million_rows_with_bounded_memory) {
    postgres().set("wal_sender_timeout", "10s");  // the transaction takes longer than this to deliver
    const auto db = create_outbox_database("huge");
    Sql sql(postgres().conninfo(db));
    RouterProcess router(work_dir(), router_config(db, "", "max.inflight.messages: 20000\nmax.inflight.bytes: 8388608\n",
                                                   "outbox:\n  route.topic.replacement: huge.events\n"));
    BOOST_REQUIRE(router.wait_streaming());

    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) SELECT md5(i::text)::uuid, 'Order', "
             "'key-' || (i % 1000), 'Created', jsonb_build_object('seq', i, 'note', repeat('n', 60)) "
             "FROM generate_series(1, 1000000) i");
    const auto end = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
    // The router confirms the transaction only after Kafka acknowledged all of its events.
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= end; }, 600s));
    BOOST_TEST(topic_record_count(kafka_servers(), "huge.events") == 1'000'000);
    const long peak_kib = peak_rss_kib(router.pid());
    BOOST_TEST_MESSAGE("1,000,000-row transaction: router peak RSS " << peak_kib / 1024 << " MiB");
#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer's shadow memory and quarantine dwarf the router's own
    BOOST_TEST(peak_kib < 128 * 1024);
#endif
    BOOST_TEST(router.output().find("reconnecting") == std::string::npos);  // no replication timeout
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(sigterm_under_load_confirms_what_was_delivered_and_restart_has_no_gap) {
    const auto db = create_outbox_database("sigterm");
    const auto config = router_config(db, "", "shutdown.timeout.ms: 10000\n",
                                      "outbox:\n  route.topic.replacement: sigterm.events\n");
    constexpr int kTransactions = 400, kRows = 50;
    std::vector<std::uint64_t> before_commit(kTransactions);
    auto router = std::make_unique<RouterProcess>(work_dir(), config);
    BOOST_REQUIRE(router->wait_streaming());

    std::thread writer([&] {
        Sql w(postgres().conninfo(db));
        for (int t = 0; t < kTransactions; ++t) {
            w.exec("BEGIN; " + outbox_rows_sql(t * kRows, kRows, 17));
            before_commit[t] = lsn_value(w.scalar("SELECT pg_current_wal_insert_lsn()"));
            w.exec("COMMIT");
        }
    });
    std::this_thread::sleep_for(1500ms);
    // Exits 0 within shutdown.timeout.ms (stop() gives up and reports -1 after the timeout).
    BOOST_TEST(router->stop(SIGTERM, 12s) == 0);
    const auto confirmed = confirmed_flush_lsn(db, db);
    writer.join();

    // Every transaction that is wholly in Kafka is covered by the confirmed position.
    std::set<int> seen;
    for (const auto& r : read_topic(kafka_servers(), "sigterm.events", 1, 10s)) seen.insert(seq_of(r));
    int delivered_prefix = 0;
    while (delivered_prefix < kTransactions) {
        bool whole = true;
        for (int seq = delivered_prefix * kRows; seq < (delivered_prefix + 1) * kRows; ++seq) whole = whole && seen.count(seq);
        if (!whole) break;
        ++delivered_prefix;
    }
    BOOST_TEST_MESSAGE("SIGTERM after " << delivered_prefix << " whole transactions");
    BOOST_REQUIRE(delivered_prefix > 0);
    BOOST_TEST(confirmed > before_commit[delivered_prefix - 1]);

    router = std::make_unique<RouterProcess>(work_dir(), config);
    BOOST_TEST(sequences_in("sigterm.events", kTransactions * kRows).size() == static_cast<std::size_t>(kTransactions * kRows));
    BOOST_TEST(router->stop(SIGTERM) == 0);
}
