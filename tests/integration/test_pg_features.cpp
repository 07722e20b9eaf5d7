#define BOOST_TEST_MODULE pg_features
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <thread>

#include "harness.hpp"
#include "pg_pair.hpp"

// What only some PostgreSQL majors have: stored generated columns in publications and
// idle_replication_slot_timeout (18), logical decoding on a hot standby (16 and later).

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

PgServer& postgres18() {
    static PgServer server(fetched_pg(18));
    return server;
}

std::string config_on(PgServer& server, const std::string& db, const std::string& topic,
                      const std::string& postgres_extra = "") {
    return router_config_for(server.conninfo(db), db, "  reconnect.backoff.max.ms: 500\n" + postgres_extra, "",
                             "outbox:\n  route.topic.replacement: " + topic + "\n");
}

// aggregatetype derived from the event type ("Invoice.Created" -> "Invoice") by the database.
std::string generated_outbox_database(PgServer& server, const std::string& prefix) {
    const auto db = server.create_database(prefix);
    Sql(server.conninfo(db))
        .exec("CREATE TABLE outbox (id uuid PRIMARY KEY, aggregateid text NOT NULL, type text NOT NULL, "
              "aggregatetype text GENERATED ALWAYS AS (split_part(type, '.', 1)) STORED, payload jsonb)");
    return db;
}

std::string generated_rows_sql(int first, int count) {
    std::string sql = "INSERT INTO outbox (id, aggregateid, type, payload) VALUES ";
    for (int i = first; i < first + count; ++i)
        sql += std::string(i == first ? "" : ", ") + "(md5('" + std::to_string(i) + "')::uuid, 'key-" +
               std::to_string(i % 5) + "', 'Invoice.Created', '{\"seq\": " + std::to_string(i) + "}')";
    return sql;
}

}  // namespace

BOOST_AUTO_TEST_CASE(pg18_a_stored_generated_route_column_is_published_and_routed) {
    const auto db = generated_outbox_database(postgres18(), "gen");
    RouterProcess router(work_dir(), config_on(postgres18(), db, "gen.${routedByValue}"));
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_TEST(Sql(postgres18().conninfo(db)).scalar("SELECT pubgencols FROM pg_publication WHERE pubname = '" + db + "'") ==
               "s");
    Sql(postgres18().conninfo(db)).exec(generated_rows_sql(0, 200));
    BOOST_TEST(sequences_in("gen.Invoice", 200).size() == 200u);
    BOOST_TEST(router.running(), router.output());
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(pg18_an_outbox_column_left_out_of_the_publication_is_named_as_such) {
    const auto db = generated_outbox_database(postgres18(), "pubcols");
    Sql sql(postgres18().conninfo(db));
    sql.exec("CREATE PUBLICATION " + db + " FOR TABLE outbox");  // without publish_generated_columns
    std::string output;
    RouterProcess generated(work_dir(), config_on(postgres18(), db, "pubcols.events"), "--check");
    BOOST_TEST(generated.wait(60s) == 1, generated.output());
    output = generated.output();
    BOOST_TEST(contains(output, "does not publish column \"aggregatetype\""), output);
    BOOST_TEST(contains(output, "publish_generated_columns = stored"), output);
    BOOST_TEST(!contains(output, "has no column"), output);

    // A column list without the key column.
    sql.exec("ALTER PUBLICATION " + db + " SET (publish_generated_columns = stored)");
    sql.exec("ALTER PUBLICATION " + db + " SET TABLE outbox (id, type, aggregatetype, payload)");
    RouterProcess listed(work_dir(), config_on(postgres18(), db, "pubcols.events"));
    BOOST_TEST(listed.wait(60s) == 1, listed.output());
    const auto cause = last_line(listed.output());
    BOOST_TEST(contains(cause, "does not publish column \"aggregateid\""), cause);
    BOOST_TEST(contains(cause, "column list"), cause);
}

BOOST_AUTO_TEST_CASE(pg18_a_slot_invalidated_by_idle_replication_slot_timeout_names_the_setting) {
    const auto db = create_outbox_database(postgres18(), "idle");
    const auto config = config_on(postgres18(), db, "idle.events");
    {
        RouterProcess router(work_dir(), config);
        BOOST_REQUIRE(router.wait_streaming());
        BOOST_REQUIRE(router.stop(SIGTERM) == 0);
    }
    Sql sql(postgres18().conninfo(db));
    postgres18().set("idle_replication_slot_timeout", "1s");
    const bool invalidated = wait_until(
        [&] {
            sql.exec("CHECKPOINT");
            return sql.scalar("SELECT invalidation_reason FROM pg_replication_slots WHERE slot_name = '" + db + "'") ==
                   "idle_timeout";
        },
        30s);
    postgres18().set("idle_replication_slot_timeout", "0");
    BOOST_REQUIRE(invalidated);
    RouterProcess router(work_dir(), config);
    BOOST_TEST(router.wait(60s) == 1, router.output());
    const auto cause = last_line(router.output());
    BOOST_TEST(contains(cause, "replication slot \"" + db + "\""), cause);
    BOOST_TEST(contains(cause, "idle_replication_slot_timeout"), cause);
    BOOST_TEST(!contains(cause, "max_slot_wal_keep_size"), cause);
}

BOOST_AUTO_TEST_CASE(pg16_decoding_on_a_hot_standby_streams_what_the_primary_writes) {
    PgPair pair(16, "onstandby");
    const auto db = pair.database();
    // A standby is read-only: the publication comes from the primary.
    pair.primary_sql().exec("CREATE PUBLICATION " + db + " FOR TABLE outbox");
    BOOST_REQUIRE(wait_until(
        [&] { return pair.standby_sql().scalar("SELECT count(*) FROM pg_publication WHERE pubname = '" + db + "'") == "1"; },
        30s));
    RouterProcess router(work_dir(), config_on(pair.standby(), db, "onstandby.events"));
    // Creating a slot on a standby waits for the primary's next running-transactions record.
    BOOST_REQUIRE_MESSAGE(wait_until(
                              [&] {
                                  pair.primary_sql().exec("SELECT pg_log_standby_snapshot()");
                                  return router.times_streamed() >= 1 || !router.running();
                              },
                              60s),
                          router.output());
    BOOST_REQUIRE_MESSAGE(router.running(), router.output());
    BOOST_TEST(pair.standby_sql().scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + db + "'") == "1");
    const Sql primary = pair.primary_sql();
    for (int t = 0; t < 10; ++t) primary.exec("BEGIN; " + outbox_rows_sql(t * 30, 30, 7) + "; COMMIT;");
    BOOST_TEST(sequences_in("onstandby.events", 300).size() == 300u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}
