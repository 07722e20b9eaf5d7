#define BOOST_TEST_MODULE cut_over
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <map>
#include <thread>

#include "debezium_connect.hpp"
#include "delivery_tally.hpp"
#include "harness.hpp"
#include "topic_admin.hpp"

// docs/migration.md's cut-over, run for real: Debezium (Kafka Connect, the PostgreSQL connector
// and the EventRouter) streams a stream of outbox rows; it is stopped mid-stream; the router is
// started with the configuration `outbox-router import` wrote from Debezium's own connector and
// worker files, on Debezium's slot and publication. A consumer must see every event at least
// once, in per-key order, and the events both delivered must be the same bytes.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

constexpr int kRowsPerTransaction = 10;
const std::string kTopic = "outbox.event.Order";

std::map<std::string, std::string> debezium_connector(const std::string& database) {
    auto properties = postgres_connector("cutover", database, "dbz_cutover");
    properties["table.include.list"] = "public\\.outbox";
    properties["transforms"] = "outbox";
    properties["transforms.outbox.type"] = "io.debezium.transforms.outbox.EventRouter";
    return properties;
}

// A record's bytes, with the value of Debezium's runId context header (random per run, on both
// sides) replaced by its shape once checked.
std::string shown(const ConsumedRecord& r) {
    std::string text = "key=" + r.key.value_or("<null>") + " value=" + r.value.value_or("<null>") + " headers=";
    for (const auto& [name, value] : r.headers) {
        const bool run_id = name == "__debezium.context.runId" && value && value->size() == 36;
        text += name + ":" + (run_id ? "<run id>" : value.value_or("<null>")) + ",";
    }
    return text;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_router_takes_over_debeziums_slot_mid_stream_without_a_gap) {
    const auto db = create_outbox_database("cutover");
    create_topic(kafka_servers(), kTopic, 3, 1);
    const std::string dir = work_dir() + "/debezium";
    DebeziumConnect debezium(DebeziumConnectSpec{
        dir,
        {{"bootstrap.servers", kafka_servers()},
         {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
         {"value.converter", "org.apache.kafka.connect.storage.StringConverter"}},
        {debezium_connector(db)}});
    Sql sql(postgres().conninfo(db));
    debezium.wait_until_ready(
        [&] { return sql.scalar("SELECT count(*) FROM pg_replication_slots WHERE active AND slot_name = 'dbz_cutover'") == "1"; },
        "the connector streaming from its slot");

    const auto slot_start = confirmed_flush_lsn(db, "dbz_cutover");
    // Transactions of 10 rows, written until the router has taken over and streamed some.
    std::atomic<int> committed{0};
    std::atomic<bool> finish{false};
    std::thread writer([&] {
        Sql writes(postgres().conninfo(db));
        for (int t = 0; !finish; ++t) {
            writes.exec("BEGIN; " + outbox_rows_sql(t * kRowsPerTransaction, kRowsPerTransaction, 17) + "; COMMIT;");
            committed = t + 1;
            std::this_thread::sleep_for(15ms);
        }
    });

    // Mid-stream: Debezium has published events and confirmed some on its slot (after Kafka
    // acknowledged them, at its offset flush), and more are being written.
    BOOST_REQUIRE(wait_until(
        [&] { return committed >= 100 && confirmed_flush_lsn(db, "dbz_cutover") > slot_start; }, 120s));
    BOOST_TEST_MESSAGE("stopping Debezium after " << committed << " transactions");
    debezium.stop();
    BOOST_TEST(!debezium.running());
    const int committed_at_stop = committed;
    BOOST_TEST_MESSAGE("Debezium stopped after " << committed_at_stop << " transactions");
    const auto handed_over_at = confirmed_flush_lsn(db, "dbz_cutover");

    // The configuration from Debezium's own files.
    const std::string yaml_path = work_dir() + "/imported.yaml";
    const std::string notes_path = work_dir() + "/import-notes.txt";
    const std::string command = std::string(OUTBOX_ROUTER_BINARY) + " import " + dir + "/cutover.properties " + dir +
                                "/worker.properties >" + yaml_path + " 2>" + notes_path;
    BOOST_REQUIRE(std::system(command.c_str()) == 0);
    BOOST_TEST_MESSAGE("not imported:\n" << read_file(notes_path));
    const std::string imported = read_file(yaml_path);
    BOOST_TEST(contains(imported, "slot.name: dbz_cutover"));
    BOOST_TEST(contains(imported, "publication.name: dbz_cutover"));
    // Debezium's default context headers, which the router writes too once imported.
    BOOST_TEST(contains(imported, "extended.headers.enabled: true"));
    BOOST_TEST(contains(imported, "topic.prefix: cutover"));

    RouterProcess router(work_dir(), imported);
    BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
    // It resumed where Debezium's confirmed position left the slot.
    BOOST_TEST(confirmed_flush_lsn(db, "dbz_cutover") >= handed_over_at);
    const int committed_at_start = committed;
    BOOST_REQUIRE(wait_until([&] { return committed >= committed_at_start + 50; }, 60s));
    finish = true;
    writer.join();
    const int rows = committed * kRowsPerTransaction;
    BOOST_TEST_MESSAGE(committed << " transactions in all");
    const auto last_write = lsn_value(sql.scalar("SELECT pg_current_wal_insert_lsn()"));

    // The router confirms a position only after Kafka acknowledged every event before it: once it
    // confirms the last write, every event is in the topic (duplicates would let a count of
    // records be reached before the last event arrived).
    BOOST_REQUIRE(wait_until([&] { return confirmed_flush_lsn(db, "dbz_cutover") >= last_write; }, 60s));
    const auto records = read_topic(kafka_servers(), kTopic, rows, 120s);
    const auto tally = tally_deliveries(records, rows);
    BOOST_TEST_MESSAGE("cut-over: " << tally);
    BOOST_TEST(tally.missing == 0u);
    BOOST_TEST(tally.unexpected == 0u);
    BOOST_TEST(tally.order_kept);
    // Duplicates only from Debezium's published-but-unconfirmed tail, never more than it published.
    BOOST_TEST(tally.duplicates < static_cast<std::size_t>(committed_at_stop * kRowsPerTransaction));

    // An event both published (Debezium before the stop, the router after) is the same record,
    // its context headers included.
    std::map<int, const ConsumedRecord*> first;
    std::size_t compared = 0;
    for (const auto& record : records) {
        const int seq = seq_of(record);
        const auto [at, inserted] = first.emplace(seq, &record);
        if (inserted) continue;
        ++compared;
        BOOST_TEST(shown(record) == shown(*at->second));
        BOOST_TEST(record.partition == at->second->partition);
    }
    BOOST_TEST_MESSAGE(compared << " events delivered by both compared byte for byte");

    BOOST_TEST(router.stop(SIGTERM) == 0);
}
