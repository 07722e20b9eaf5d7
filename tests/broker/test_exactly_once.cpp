#define BOOST_TEST_MODULE broker_exactly_once
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <random>
#include <thread>

#include "delivery_tally.hpp"
#include "harness.hpp"

// Exactly-once on a real broker: it aborts what a dead producer left open when its successor
// initialises the same transactional.id, hides aborted records from read_committed consumers,
// and fences an older producer epoch. Nothing here applies those rules for it.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

std::string eos_config(const std::string& db, const std::string& topic, const std::string& extra = "") {
    return router_config(db, "  reconnect.backoff.max.ms: 1000\n",
                         "delivery.guarantee: exactly-once\noffsets.topic: " + topic + ".offsets\n" + extra,
                         "outbox:\n  route.topic.replacement: " + topic + "\n");
}

void create_slot_first(const std::string& config) {
    RouterProcess creator(work_dir(), config);
    BOOST_REQUIRE(creator.wait_streaming());
    BOOST_REQUIRE(creator.stop(SIGTERM) == 0);
}

void write_transactions(const std::string& database, int first, int count, int rows_per_transaction,
                        std::chrono::milliseconds pause = 0ms) {
    Sql sql(postgres().conninfo(database));
    for (int t = first; t < first + count; ++t) {
        sql.exec("BEGIN; " + outbox_rows_sql(t * rows_per_transaction, rows_per_transaction, 37) + "; COMMIT;");
        std::this_thread::sleep_for(pause);
    }
}

// The router confirms a commit to PostgreSQL only after the Kafka transaction holding it has
// committed; once the slot is past the last write, every event is committed in Kafka.
void wait_until_confirmed_past_the_writes(const std::string& db, std::chrono::milliseconds timeout = 180s) {
    Sql sql(postgres().conninfo(db));
    const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_lsn()"));
    BOOST_REQUIRE_MESSAGE(wait_until([&] { return confirmed_flush_lsn(db, db) >= written; }, timeout),
                          "the slot did not move past the last write");
}

std::vector<ConsumedRecord> committed(const std::string& topic, std::size_t at_least) {
    return read_topic(kafka_servers(), topic, at_least, 60s, Isolation::read_committed);
}

std::vector<ConsumedRecord> everything_appended(const std::string& topic, std::size_t at_least) {
    return read_topic(kafka_servers(), topic, at_least, 60s, Isolation::read_uncommitted);
}

void check_exactly_once(const DeliveryTally& tally, int expected) {
    BOOST_TEST(tally.records == static_cast<std::size_t>(expected));
    BOOST_TEST(tally.duplicates == 0u);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.unexpected == 0u);
    BOOST_TEST(tally.order_kept);
}

}  // namespace

BOOST_AUTO_TEST_CASE(kill_9_at_random_moments_gives_each_event_exactly_once) {
    const auto db = create_outbox_database("eoscrash");
    const std::string topic = "eoscrash.events";
    const auto config = eos_config(db, topic);
    create_slot_first(config);
    constexpr int kTransactions = 1000, kRows = 100, kKills = 12;
    // Paced, so that rows are still streaming at every kill.
    std::thread writer([&] { write_transactions(db, 0, kTransactions, kRows, 20ms); });
    const auto seed = std::random_device{}();
    BOOST_TEST_MESSAGE("kill moments from seed " << seed);
    std::mt19937 random(seed);
    std::uniform_int_distribution<int> pause_ms(100, 1500);
    for (int kill = 0; kill < kKills; ++kill) {
        RouterProcess router(work_dir(), config);
        BOOST_REQUIRE(router.wait_streaming());
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(random)));
        router.kill_hard();
    }
    writer.join();

    RouterProcess survivor(work_dir(), config);
    wait_until_confirmed_past_the_writes(db);
    const auto tally = tally_deliveries(committed(topic, kTransactions * kRows), kTransactions * kRows);
    BOOST_TEST_MESSAGE("exactly-once, kill -9 x" << kKills << ", read_committed: " << tally);
    check_exactly_once(tally, kTransactions * kRows);
    // The kills left Kafka transactions open; the broker aborted them and keeps their records,
    // which only a read_uncommitted consumer sees.
    const auto appended = everything_appended(topic, kTransactions * kRows).size();
    BOOST_TEST_MESSAGE(appended << " records appended in all");
    BOOST_TEST(appended > static_cast<std::size_t>(kTransactions * kRows));
    BOOST_TEST(survivor.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_killed_routers_open_transaction_is_aborted_by_its_successor) {
    const auto db = create_outbox_database("eosopen");
    const std::string topic = "eosopen.events";
    constexpr int kTransactions = 10, kRows = 100;
    {
        // This instance keeps its Kafka transaction open: no limit is reached.
        RouterProcess holder(work_dir(), eos_config(db, topic, "transaction.max.ms: 600000\n"));
        BOOST_REQUIRE(holder.wait_streaming());
        write_transactions(db, 0, kTransactions, kRows);
        BOOST_REQUIRE(everything_appended(topic, kTransactions * kRows).size() == kTransactions * kRows);
        BOOST_TEST(committed(topic, 0).empty());
        holder.kill_hard();
    }
    RouterProcess successor(work_dir(), eos_config(db, topic));
    wait_until_confirmed_past_the_writes(db);
    const auto tally = tally_deliveries(committed(topic, kTransactions * kRows), kTransactions * kRows);
    BOOST_TEST_MESSAGE("after the holder's kill, read_committed: " << tally);
    check_exactly_once(tally, kTransactions * kRows);
    // The holder's records are still in the log, aborted: twice the events in all.
    BOOST_TEST(everything_appended(topic, 2 * kTransactions * kRows).size() == 2u * kTransactions * kRows);
    BOOST_TEST(successor.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_paused_instance_is_fenced_by_its_successor) {
    const auto db = create_outbox_database("eoszombie");
    const std::string topic = "eoszombie.events";
    // A short wal_sender_timeout lets the successor take the slot over from the paused walsender's client.
    const auto with_short_timeout = [](std::string config) {
        const std::string conninfo = "conninfo: \"";
        return config.insert(config.find(conninfo) + conninfo.size(), "options='-c wal_sender_timeout=2s' ");
    };
    constexpr int kRows = 100;
    // The first instance keeps its Kafka transaction open until it is paused.
    RouterProcess first(work_dir(), with_short_timeout(eos_config(db, topic, "transaction.max.ms: 600000\n")));
    BOOST_REQUIRE(first.wait_streaming());
    write_transactions(db, 0, 20, kRows);
    BOOST_REQUIRE(everything_appended(topic, 20 * kRows).size() == 20u * kRows);
    BOOST_REQUIRE(::kill(first.pid(), SIGSTOP) == 0);

    RouterProcess successor(work_dir(), with_short_timeout(eos_config(db, topic, "transaction.max.ms: 100\n")));
    BOOST_REQUIRE(successor.wait_streaming());
    write_transactions(db, 20, 10, kRows);
    wait_until_confirmed_past_the_writes(db);
    const auto appended_before_resume = everything_appended(topic, 0).size();

    const int first_exit = first.stop(SIGCONT);
    BOOST_TEST_MESSAGE("the paused instance exited " << first_exit << ": " << last_line(first.output()));
    BOOST_TEST(first_exit == 3);  // fenced: an exit status of its own
    BOOST_TEST(contains(last_line(first.output()), "fenced"));
    const auto tally = tally_deliveries(committed(topic, 30 * kRows), 30 * kRows);
    BOOST_TEST_MESSAGE("paused instance and successor, read_committed: " << tally);
    check_exactly_once(tally, 30 * kRows);
    // Resumed, the fenced instance appended nothing.
    BOOST_TEST(everything_appended(topic, 0).size() == appended_before_resume);
    BOOST_TEST(successor.running());
    BOOST_TEST(successor.stop(SIGTERM) == 0);
}

// A non-transactional logical message is refused (it has no transaction to ride in); dead-lettered,
// it opens a Kafka transaction of its own, which must commit so the slot can move past it while
// nothing else is written.
BOOST_AUTO_TEST_CASE(a_dead_lettered_non_transactional_message_does_not_hold_the_slot) {
    const auto db = create_outbox_database("eosnontx");
    const std::string topic = "eosnontx.events";
    RouterProcess router(work_dir(), router_config(db, "", "delivery.guarantee: exactly-once\noffsets.topic: " + topic +
                                                               ".offsets\nerrors.tolerance: all\n"
                                                               "errors.deadletterqueue.topic.name: eosnontx.dead\n",
                                                   "outbox:\n  route.topic.replacement: " + topic +
                                                       "\n  message.prefix.include.list: outbox\n"));
    BOOST_REQUIRE(router.wait_streaming());
    Sql sql(postgres().conninfo(db));
    const auto message_lsn = lsn_value(sql.scalar(
        "SELECT pg_logical_emit_message(false, 'outbox', "
        "'{\"id\": 1, \"aggregatetype\": \"A\", \"aggregateid\": \"k\", \"payload\": \"p\"}')"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= message_lsn; }, 30s),
               "slot confirmed " << confirmed_flush_lsn(db, db) << ", message at " << message_lsn);
    const auto dead = read_topic(kafka_servers(), "eosnontx.dead", 1, 10s);
    BOOST_TEST(dead.size() == 1u);
    BOOST_TEST(contains(router.output(), "it is not transactional"));
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// The refusal rests on the offsets topic, read before a slot is created, not on the memory of
// the process that created one: a start killed during the exactly-once start (here: Kafka out of
// reach, as a liveness probe might kill it) leaves no slot for the next one to take for old.
BOOST_AUTO_TEST_CASE(a_lost_slot_is_refused_before_a_new_one_is_created_at_every_start_unless_asked_for) {
    const auto db = create_outbox_database("eosgap");
    const std::string topic = "eosgap.events";
    Sql sql(postgres().conninfo(db));
    const std::string slots = "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db + "'";
    {
        RouterProcess router(work_dir(), eos_config(db, topic));
        BOOST_REQUIRE(router.wait_streaming());
        sql.exec(outbox_rows_sql(0, 10, 3));
        const auto written = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));
        BOOST_REQUIRE(wait_until([&] { return confirmed_flush_lsn(db, db) >= written; }, 60s));
        BOOST_REQUIRE(router.stop(SIGTERM) == 0);
    }
    // The slot is lost while the router is down; these rows are in the gap. The router's exit
    // ends its walsender, which releases the slot a moment later.
    const std::string slot_active = "SELECT active FROM pg_replication_slots WHERE slot_name = '" + db + "'";
    BOOST_REQUIRE(wait_until([&] { return sql.scalar(slot_active) == "f"; }, 30s));
    sql.exec("SELECT pg_drop_replication_slot('" + db + "')");
    sql.exec(outbox_rows_sql(10, 5, 3));
    {
        auto unreachable = eos_config(db, topic);
        unreachable.replace(unreachable.find(kafka_servers()), kafka_servers().size(), "127.0.0.1:9");
        RouterProcess router(work_dir(), unreachable);
        std::this_thread::sleep_for(5s);
        router.stop(SIGKILL);
        BOOST_TEST(sql.scalar(slots) == "0", router.output());
    }
    for (int start = 0; start < 2; ++start) {
        RouterProcess router(work_dir(), eos_config(db, topic));
        BOOST_TEST(router.wait(60s) == 1);
        BOOST_TEST(contains(last_line(router.output()), "does not exist, but the offsets topic"), router.output());
        BOOST_TEST(contains(last_line(router.output()), "may not be in Kafka"), router.output());
        BOOST_TEST(sql.scalar(slots) == "0");
    }
    {
        RouterProcess router(work_dir(), router_config(db, "  reconnect.backoff.max.ms: 1000\n  slot.recreate.when.lost: true\n",
                                                       "delivery.guarantee: exactly-once\noffsets.topic: " + topic + ".offsets\n",
                                                       "outbox:\n  route.topic.replacement: " + topic + "\n"));
        BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
        BOOST_TEST(contains(router.output(), "(slot.recreate.when.lost)"), router.output());
        BOOST_TEST(router.stop(SIGTERM) == 0);
    }
}
