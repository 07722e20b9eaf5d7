#define BOOST_TEST_MODULE replay
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "delivery_tally.hpp"
#include "harness.hpp"

// `outbox-router replay` against real PostgreSQL and a real broker: a range larger than
// librdkafka's queue while the broker is paused, a configured transactional.id, the order of
// overlapping transactions with and without track_commit_timestamp, and rows whose commit time
// the server does not know.

using namespace outbox::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* kEveryId = "00000000-0000-0000-0000-000000000000..ffffffff-ffff-ffff-ffff-ffffffffffff";

std::string replay_config(const std::string& database, const std::string& topic, const std::string& kafka_extra = "") {
    return router_config(database, "", kafka_extra, "outbox:\n  route.topic.replacement: " + topic + "\n");
}

std::string write_config(const std::string& name, const std::string& text) {
    const std::string path = work_dir() + "/" + name + ".yaml";
    std::ofstream(path) << text;
    return path;
}

int replay(const std::string& config_path, const std::string& range, std::string& output) {
    return run_router("replay --config " + config_path + " " + range, output);
}

// track_commit_timestamp takes a restart.
void commit_timestamps(bool on) {
    Sql sql(postgres().conninfo("postgres"));
    if ((sql.scalar("SHOW track_commit_timestamp") == "on") == on) return;
    postgres().set("track_commit_timestamp", on ? "on" : "off");
    postgres().restart();
}

// Row 0 written first (the lower transaction id) and committed after row 1, both of key-0.
void overlapping_transactions(const std::string& database) {
    Sql first(postgres().conninfo(database));
    Sql second(postgres().conninfo(database));
    first.exec("BEGIN; " + outbox_rows_sql(0, 1, 1));
    second.exec("BEGIN; " + outbox_rows_sql(1, 1, 1) + "; COMMIT");
    std::this_thread::sleep_for(20ms);
    first.exec("COMMIT");
}

std::vector<int> seqs_in_order(const std::string& topic, std::size_t expected) {
    std::vector<int> seqs;
    for (const auto& record : read_topic(kafka_servers(), topic, expected)) seqs.push_back(seq_of(record));
    return seqs;
}

// `outbox-router replay --config CONFIG --ids <every id>` in the background, its output in a file.
class ReplayProcess {
public:
    explicit ReplayProcess(const std::string& config_path)
        : log_path_(work_dir() + "/replay-" + std::to_string(getpid()) + "-" + std::to_string(++started_) + ".log") {
        pid_ = fork();
        if (pid_ == 0) {
            const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(log, STDOUT_FILENO);
            dup2(log, STDERR_FILENO);
            execl(OUTBOX_ROUTER_BINARY, "outbox-router", "replay", "--config", config_path.c_str(), "--ids", kEveryId,
                  static_cast<char*>(nullptr));
            _exit(127);
        }
    }
    ~ReplayProcess() {
        if (pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    ReplayProcess(const ReplayProcess&) = delete;
    ReplayProcess& operator=(const ReplayProcess&) = delete;

    std::string output() const {
        std::ostringstream text;
        text << std::ifstream(log_path_).rdbuf();
        return text.str();
    }
    // Sends `signal` and returns the exit status (128 + the signal if it killed the process).
    int stop(int signal) {
        kill(pid_, signal);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

private:
    static inline int started_ = 0;
    std::string log_path_;
    pid_t pid_ = -1;
};

}  // namespace

// librdkafka's queue holds 100,000 records by default; a paused broker acknowledges nothing, so a
// larger range fills it. Replay waits, as the stream does: at the in-flight limit (as large as
// that queue by default) and, when librdkafka's queue is set smaller, for room in it. It reads
// the rows through a cursor rather than all at once, in a transaction that a server's
// idle_in_transaction_session_timeout does not end while Kafka is waited for.
BOOST_AUTO_TEST_CASE(a_range_larger_than_librdkafkas_queue_is_replayed_whole_across_a_paused_broker) {
    constexpr int kRows = 120000, kSmallQueueRows = 5000;
    const auto db = create_outbox_database("large");
    const auto small = create_outbox_database("smallqueue");
    const std::string rows = "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) SELECT md5(i::text)::uuid, "
                             "'Order', 'key-' || (i % 7), 'Created', jsonb_build_object('seq', i) FROM generate_series(0, ";
    Sql(postgres().conninfo(db)).exec(rows + std::to_string(kRows - 1) + ") i");
    Sql(postgres().conninfo(small)).exec(rows + std::to_string(kSmallQueueRows - 1) + ") i");
    // Between fetches the replay's transaction is idle while Kafka is waited for: not abandoned.
    Sql(postgres().conninfo(small)).exec("ALTER DATABASE " + small + " SET idle_in_transaction_session_timeout = '1s'");
    const auto config = write_config("large", replay_config(db, "large.events"));
    const auto small_queue =
        write_config("smallqueue", replay_config(small, "smallqueue.events", "  queue.buffering.max.messages: 1000\n"));
    real_kafka().node(1).pause();
    std::string output, small_output;
    auto replayed = std::async(std::launch::async, [&] { return replay(config, std::string("--ids ") + kEveryId, output); });
    auto small_replayed = std::async(std::launch::async, [&] {
        return replay(small_queue, std::string("--ids ") + kEveryId, small_output);
    });
    // Neither can end while the broker acknowledges nothing, unless it fails.
    const bool ended_while_paused = replayed.wait_for(8s) == std::future_status::ready ||
                                    small_replayed.wait_for(0s) == std::future_status::ready;
    real_kafka().node(1).resume();
    BOOST_TEST(!ended_while_paused, output << small_output);
    BOOST_TEST(replayed.get() == 0, output);
    BOOST_TEST(contains(output, "replayed 120000 rows, 120000 records acknowledged by Kafka"), output);
    BOOST_TEST(small_replayed.get() == 0, small_output);
    BOOST_TEST(contains(small_output, "replayed 5000 rows, 5000 records acknowledged by Kafka"), small_output);
    BOOST_TEST(!contains(output + small_output, "Queue full"), output << small_output);
    BOOST_TEST(sequences_in("large.events", kRows).size() == static_cast<std::size_t>(kRows));
    BOOST_TEST(sequences_in("smallqueue.events", kSmallQueueRows).size() == static_cast<std::size_t>(kSmallQueueRows));
    // The producer is idempotent: waiting out the paused broker writes no event twice.
    const auto large = tally_deliveries(read_topic(kafka_servers(), "large.events", kRows), kRows);
    BOOST_TEST(large.duplicates == 0u, large);
    const auto small_tally = tally_deliveries(read_topic(kafka_servers(), "smallqueue.events", kSmallQueueRows), kSmallQueueRows);
    BOOST_TEST(small_tally.duplicates == 0u, small_tally);
}

// A transactional producer refuses records outside a transaction ("Erroneous state"), and the
// router's transactional.id would fence the running router: replay's producer has none.
BOOST_AUTO_TEST_CASE(a_configured_transactional_id_is_left_out_of_replays_producer) {
    const auto db = create_outbox_database("txnid");
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 10, 3));
    const auto config = write_config(
        "txnid", replay_config(db, "txnid.events", "  transactional.id: the-routers-own\ndelivery.guarantee: exactly-once\n"));
    std::string output;
    BOOST_TEST(replay(config, std::string("--ids ") + kEveryId, output) == 0, output);
    BOOST_TEST(contains(output, "replayed 10 rows, 10 records acknowledged by Kafka"), output);
    BOOST_TEST(sequences_in("txnid.events", 10).size() == 10u);
    const auto tally = tally_deliveries(read_topic(kafka_servers(), "txnid.events", 10), 10);
    BOOST_TEST(tally.duplicates == 0u, tally);
}

// Replay binds the table as the stream does: a domain resolves to its base type and an array to
// its elements (the type catalog), so a replayed record is the streamed one.
BOOST_AUTO_TEST_CASE(replay_resolves_domains_and_arrays_as_the_stream_does) {
    const auto db = create_outbox_database("types");
    Sql sql(postgres().conninfo(db));
    sql.exec("CREATE DOMAIN qty AS integer; CREATE DOMAIN flags AS boolean[]; "
             "ALTER TABLE outbox ADD COLUMN n qty, ADD COLUMN f flags, ADD COLUMN tags text[]");
    sql.exec("INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload, n, f, tags) VALUES "
             "(md5('0')::uuid, 'Order', 'key-0', 'Created', '{\"seq\": 0}', 42, '{t,NULL}', '{a,\"b c\",NULL}')");
    const auto config = write_config(
        "types", router_config(db, "", "", "outbox:\n  route.topic.replacement: types.events\n"
                                           "  table.fields.additional.placement: n:header, f:header, tags:header\n"));
    std::string output;
    BOOST_TEST(replay(config, std::string("--ids ") + kEveryId, output) == 0, output);
    const auto records = read_topic(kafka_servers(), "types.events", 1);
    BOOST_TEST_REQUIRE(records.size() == 1u);
    BOOST_TEST(records[0].header("n").value_or("<none>") == "42");
    BOOST_TEST(records[0].header("f").value_or("<none>") == "[true,null]");
    BOOST_TEST(records[0].header("tags").value_or("<none>") == R"(["a","b c",null])");
}

// Without commit times the server cannot say which of two overlapping transactions committed
// first: replay says so rather than promising commit order.
BOOST_AUTO_TEST_CASE(without_commit_timestamps_replay_says_its_order_is_not_commit_order) {
    commit_timestamps(false);
    const auto db = create_outbox_database("xidorder");
    overlapping_transactions(db);
    const auto config = write_config("xidorder", replay_config(db, "xidorder.events"));
    std::string output;
    BOOST_TEST(replay(config, std::string("--ids ") + kEveryId, output) == 0, output);
    BOOST_TEST(contains(output, "rows are replayed in transaction-id order, not commit order"), output);
    BOOST_TEST((seqs_in_order("xidorder.events", 2) == std::vector<int>{0, 1}));
}

// Rows committed before track_commit_timestamp was turned on have no commit time: a time range
// cannot place them, and they are named, never skipped in silence.
BOOST_AUTO_TEST_CASE(rows_without_a_known_commit_time_are_reported_not_skipped_in_silence) {
    commit_timestamps(false);
    const auto db = create_outbox_database("unknown");
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 5, 1));
    commit_timestamps(true);
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(5, 5, 1));
    const auto config = write_config("unknown", replay_config(db, "unknown.events"));
    std::string output;
    BOOST_TEST(replay(config, "--since '2000-01-01 00:00:00+00'", output) == 1, output);
    BOOST_TEST(contains(output, "public.outbox: 5 rows have no known commit time"), output);
    BOOST_TEST(contains(output, "replayed 5 rows, 5 records acknowledged by Kafka; 5 rows without a known commit "
                                "time not replayed"),
               output);
    // By ids they are replayed, before the rows with commit times.
    BOOST_TEST(replay(config, std::string("--ids ") + kEveryId, output) == 0, output);
    BOOST_TEST(contains(output, "replayed 10 rows, 10 records acknowledged by Kafka"), output);
    const auto seqs = seqs_in_order("unknown.events", 15);
    BOOST_REQUIRE(seqs.size() == 15u);
    BOOST_TEST((std::vector<int>(seqs.begin() + 5, seqs.begin() + 10) == std::vector<int>{0, 1, 2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(with_commit_timestamps_overlapping_transactions_are_replayed_in_commit_order) {
    commit_timestamps(true);
    const auto db = create_outbox_database("commitorder");
    overlapping_transactions(db);
    const auto config = write_config("commitorder", replay_config(db, "commitorder.events"));
    std::string output;
    BOOST_TEST(replay(config, std::string("--ids ") + kEveryId, output) == 0, output);
    BOOST_TEST(!contains(output, "not commit order"), output);
    BOOST_TEST((seqs_in_order("commitorder.events", 2) == std::vector<int>{1, 0}));
}

// A replay waiting for a paused broker is not stuck for SIGTERM: it says how long it has waited,
// and a stop ends the wait with exit 1 and how far it got.
BOOST_AUTO_TEST_CASE(a_stop_ends_a_replays_wait_for_a_paused_broker) {
    const auto db = create_outbox_database("stopped");
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 2000, 7));
    const auto config =
        write_config("stopped", replay_config(db, "stopped.events", "  queue.buffering.max.messages: 1000\n"));
    real_kafka().node(1).pause();
    ReplayProcess replay(config);
    const bool noted = wait_until([&] { return contains(replay.output(), "s for room in librdkafka's queue"); }, 60s);
    const int status = replay.stop(SIGTERM);
    real_kafka().node(1).resume();
    BOOST_TEST(noted, replay.output());
    BOOST_TEST(status == 1, replay.output());
    BOOST_TEST(contains(replay.output(), "replay: stopped while waiting for room in librdkafka's queue, after handing 1000 "
                                         "records to Kafka (0 acknowledged)"),
               replay.output());
}
