#define BOOST_TEST_MODULE pg_failover
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "harness.hpp"
#include "pg_crash.hpp"
#include "pg_pair.hpp"

// A PostgreSQL 17 primary and its physical standby, the primary crashed mid-stream and the
// standby promoted: with the router's slot created for failover and synchronized to the standby,
// and the standby's physical slot in synchronized_standby_slots, the router continues on the new
// primary with every row it holds and no event for a transaction the standby never received.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

constexpr int kMajor = 17;
constexpr const char* kStandbySlot = PgPair::kStandbySlot;

std::string pair_router_config(const PgPair& pair, const std::string& topic, const std::string& postgres_extra = "") {
    return router_config_for(pair.pair_conninfo(), pair.database(), "  reconnect.backoff.max.ms: 500\n" + postgres_extra,
                             "", "outbox:\n  route.topic.replacement: " + topic + "\n");
}

// Writes transactions of `kRows` rows, keeping them; on a lost connection it reconnects with the
// pair's conninfo (so, after the failover, to the promoted standby) and goes on with new seqs.
class Writer {
public:
    static constexpr int kRows = 10;

    explicit Writer(std::string conninfo) : conninfo_(std::move(conninfo)), thread_([this] { run(); }) {}
    ~Writer() { stop(); }

    void stop() {
        stopping_ = true;
        if (thread_.joinable()) thread_.join();
    }
    int committed() const { return committed_; }
    int committed_after_failover() const { return committed_after_failover_; }
    // The seqs of every row whose COMMIT the server acknowledged.
    std::vector<int> acknowledged() const {
        const std::lock_guard lock(mutex_);
        return acknowledged_;
    }

private:
    void run() {
        int next = 0;
        bool reconnected = false;
        std::unique_ptr<Sql> sql;
        while (!stopping_) {
            try {
                if (!sql) sql = std::make_unique<Sql>(conninfo_);
                sql->exec("BEGIN; " + outbox_rows_sql(next, kRows, 7) + "; COMMIT;");
                {
                    const std::lock_guard lock(mutex_);
                    for (int seq = next; seq < next + kRows; ++seq) acknowledged_.push_back(seq);
                }
                committed_ += kRows;
                if (reconnected) committed_after_failover_ += kRows;
                std::this_thread::sleep_for(5ms);
            } catch (const std::exception&) {
                // Whether that commit happened is for the new primary's table to say.
                reconnected = true;
                sql.reset();
                std::this_thread::sleep_for(100ms);
            }
            next += kRows;
        }
    }

    std::string conninfo_;
    std::atomic<bool> stopping_{false};
    std::atomic<int> committed_{0};
    std::atomic<int> committed_after_failover_{0};
    mutable std::mutex mutex_;
    std::vector<int> acknowledged_;
    std::thread thread_;
};

std::vector<int> seqs_in_table(const Sql& sql) {
    std::vector<int> seqs;
    for (const auto& row : sql.rows("SELECT (payload->>'seq')::int FROM outbox")) seqs.push_back(std::stoi(row[0]));
    return seqs;
}

// Whether the router's slot is synchronized to the standby within `timeout`; `before_each_look`
// runs before each look. The standby's slot synchronization worker naps longer each time it
// finds nothing to sync (up to 30 s), as before the router made its slot: a configuration reload
// every second wakes it.
bool synchronized_in_time(const PgPair& pair, std::chrono::milliseconds timeout,
                          const std::function<void()>& before_each_look = [] {}) {
    auto woken = std::chrono::steady_clock::time_point{};
    return wait_until(
        [&] {
            before_each_look();
            if (std::chrono::steady_clock::now() - woken >= 1s) {
                pair.standby_sql().exec("SELECT pg_reload_conf()");
                woken = std::chrono::steady_clock::now();
            }
            return pair.slot_synced_to_standby(pair.database());
        },
        timeout);
}

long ms_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

}  // namespace

BOOST_AUTO_TEST_CASE(check_warns_of_phantom_events_until_the_standby_slot_is_in_synchronized_standby_slots) {
    PgPair pair(kMajor, "check");
    const auto config = pair_router_config(pair, "check.events");
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());
    BOOST_TEST(pair.primary_sql().scalar("SELECT failover FROM pg_replication_slots WHERE slot_name = '" +
                                         pair.database() + "'") == "t");
    RouterProcess unsafe(work_dir(), config, "--check");
    BOOST_TEST(unsafe.wait(60s) == 0, unsafe.output());
    std::string output = unsafe.output();
    BOOST_TEST(contains(output, "WARN  postgres: standby slot \"standby1\""), output);
    BOOST_TEST(contains(output, "phantom events"), output);

    // The standby persists its copy once the primary's slot has moved past what it holds.
    pair.primary().set("synchronized_standby_slots", kStandbySlot);
    int next = 0;
    BOOST_REQUIRE_MESSAGE(synchronized_in_time(pair, 90s,
                                               [&] {
                                                   pair.primary_sql().exec(outbox_rows_sql(next, 10, 7));
                                                   next += 10;
                                               }),
                          "the slot is not synchronized");
    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 0, check.output());
    output = check.output();
    BOOST_TEST(!contains(output, "WARN"), output);
    BOOST_TEST(contains(output, "ok    postgres: standby slot \"standby1\""), output);
    BOOST_TEST(contains(output, "is synchronized there"), output);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_crashed_primary_and_a_promoted_standby_lose_no_row_and_invent_no_event) {
    PgPair pair(kMajor, "failover");
    const std::string topic = "failover.events";
    RouterProcess router(work_dir(), pair_router_config(pair, topic));
    BOOST_REQUIRE(router.wait_streaming());
    pair.primary().set("synchronized_standby_slots", kStandbySlot);
    Writer writer(pair.pair_conninfo());
    BOOST_REQUIRE_MESSAGE(synchronized_in_time(pair, 90s), "the slot is not synchronized");
    std::this_thread::sleep_for(1s);

    // Transactions the standby never receives: its walsender is held while the writer goes on,
    // and the primary crashes before it is let go.
    const auto walsender = pair.primary_sql().scalar("SELECT pid FROM pg_stat_replication WHERE application_name = '" +
                                                     std::string(kStandbySlot) + "'");
    BOOST_REQUIRE(!walsender.empty());
    BOOST_REQUIRE(kill(std::stoi(walsender), SIGSTOP) == 0);
    std::this_thread::sleep_for(700ms);
    const auto held_back = pair.primary_sql().scalar(
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), flush_lsn) FROM pg_stat_replication WHERE application_name = '" +
        std::string(kStandbySlot) + "'");
    const auto killed_at = std::chrono::steady_clock::now();
    crash_server(pair.primary().data_dir());
    BOOST_REQUIRE(pair.standby_sql().scalar("SELECT pg_promote()") == "t");
    const auto promoted_at = std::chrono::steady_clock::now();

    BOOST_REQUIRE_MESSAGE(router.wait_streaming(2, 60s), router.output());
    const auto streaming_at = std::chrono::steady_clock::now();
    BOOST_REQUIRE(wait_until([&] { return writer.committed_after_failover() >= 1000; }, 60s));
    writer.stop();

    // The new primary's outbox is the truth.
    const Sql truth_sql = pair.standby_sql();
    const auto written_lsn = lsn_value(truth_sql.scalar("SELECT pg_current_wal_lsn()"));
    BOOST_REQUIRE_MESSAGE(wait_until([&] { return lsn_value(truth_sql.scalar(
                                                      "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE "
                                                      "slot_name = '" + pair.database() + "'")) >= written_lsn; },
                                     120s),
                          router.output());
    const auto truth = seqs_in_table(truth_sql);
    const std::set<int> rows(truth.begin(), truth.end());
    const auto records = read_topic(kafka_servers(), topic, rows.size(), 60s);
    std::map<int, int> deliveries;
    for (const auto& record : records) ++deliveries[seq_of(record)];
    std::size_t missing = 0, phantom = 0, duplicated = 0;
    for (const int seq : rows) missing += deliveries.count(seq) ? 0 : 1;
    for (const auto& [seq, count] : deliveries) {
        if (!rows.count(seq)) phantom += count;
        duplicated += count - 1;
    }
    std::size_t lost_in_failover = 0;  // acknowledged by the old primary, absent from the new one
    for (const int seq : writer.acknowledged()) lost_in_failover += rows.count(seq) ? 0 : 1;
    BOOST_TEST_MESSAGE("failover on PostgreSQL " << kMajor << ": rows committed " << writer.committed()
                       << " (on the new primary " << rows.size() << ", committed on the old primary only "
                       << lost_in_failover << ", standby held back " << held_back << " bytes at the crash); records "
                       << records.size() << ", delivered " << rows.size() - missing << ", missing " << missing
                       << ", phantom " << phantom << ", duplicated " << duplicated << "; standby promoted "
                       << ms_between(killed_at, promoted_at) << " ms after the kill, router streaming from it "
                       << ms_between(killed_at, streaming_at) << " ms after the kill");
    BOOST_TEST(missing == 0u);
    BOOST_TEST(phantom == 0u);
    // The crash did lose acknowledged commits, so a router publishing past the standby would show.
    BOOST_TEST(lost_in_failover > 0u);
    BOOST_TEST(router.running(), router.output());
    BOOST_TEST(!contains(router.output(), "dropped while the router was running"), router.output());
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_failover_to_a_standby_without_the_slot_stops_the_router_and_replay_fills_the_gap) {
    PgPair pair(kMajor, "unsynced");
    const auto config = pair_router_config(pair, "unsynced.events", "  slot.failover: false\n");
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());
    pair.primary_sql().exec(outbox_rows_sql(0, 100, 7));
    BOOST_REQUIRE(sequences_in("unsynced.events", 100).size() == 100u);
    crash_server(pair.primary().data_dir());
    BOOST_REQUIRE(pair.standby_sql().scalar("SELECT pg_promote()") == "t");
    BOOST_TEST(router.wait(60s) == 1, router.output());
    const auto cause = last_line(router.output());
    BOOST_TEST(contains(cause, "is not on this server, which took over"), cause);
    BOOST_TEST(contains(cause, "may not be in Kafka"), cause);
    BOOST_TEST(!contains(cause, "dropped"), cause);
    // Nothing was created at the present behind the operator's back.
    BOOST_TEST(pair.standby_sql().scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_type = 'logical'") == "0");

    // The services go on writing; a router started now cannot know a slot existed and creates
    // one from the present, so rows 100..149 are the window only a replay publishes.
    const auto promoted = pair.standby_sql().scalar("SELECT now()");
    pair.standby_sql().exec(outbox_rows_sql(100, 50, 7));
    RouterProcess restarted(work_dir(), config);
    BOOST_REQUIRE(restarted.wait_streaming());
    pair.standby_sql().exec(outbox_rows_sql(150, 50, 7));
    const auto before_replay = sequences_in("unsynced.events", 150);
    BOOST_TEST(before_replay.size() == 150u);
    BOOST_TEST(!before_replay.count(100));
    std::string output;
    BOOST_TEST(run_router("replay --config " + restarted.config_path() + " --since '" + promoted + "'", output) == 0, output);
    BOOST_TEST(contains(output, "replayed 100 rows, 100 records acknowledged by Kafka"), output);
    BOOST_TEST(sequences_in("unsynced.events", 200).size() == 200u);
    // The same records as the stream: the replayed copy of row 150 equals the streamed one. The
    // topic holds at least rows 0..99 and 150..199 streamed and 100..199 replayed; all is read.
    std::vector<ConsumedRecord> copies;
    for (const auto& record : read_topic(kafka_servers(), "unsynced.events", 250))
        if (seq_of(record) == 150) copies.push_back(record);
    BOOST_REQUIRE(copies.size() == 2u);
    BOOST_TEST((copies[0].key == copies[1].key));
    BOOST_TEST((copies[0].value == copies[1].value));
    BOOST_TEST((copies[0].headers == copies[1].headers));
    BOOST_TEST(copies[0].timestamp_ms == copies[1].timestamp_ms);
    BOOST_TEST(copies[0].partition == copies[1].partition);
    BOOST_TEST(restarted.stop(SIGTERM) == 0);
}
