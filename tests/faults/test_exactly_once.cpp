#define BOOST_TEST_MODULE exactly_once
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <csignal>
#include <functional>
#include <map>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness.hpp"

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
    BOOST_REQUIRE(wait_until([&] { return contains(creator.output(), "streaming from slot"); }, 60s));
    BOOST_REQUIRE(creator.stop(SIGTERM) == 0);
}

// librdkafka's mock cluster keeps every record a transactional producer sends, committed or not:
// its Fetch reports no aborted transactions and puts the last stable offset at the log end. So
// a read_committed consumer of the mock also sees the open transaction a killed or fenced router
// leaves behind, which a real broker aborts when the next instance initialises the same
// transactional.id. These tests apply that rule themselves: they note which offsets each router
// instance appended (the partitions' end offsets between instances), and keep an instance's
// records only up to the last commit end_lsn it wrote to the offsets topic, the record its last
// Kafka transaction committed. (If an instance died after sending that record but before
// committing, the mock shows it, so its successor also resumes after it: the rule still holds.)
struct InstanceEnds {
    std::vector<std::int64_t> events, offsets;  // per partition, the end offset when the instance was gone
};

std::size_t instance_of(const std::vector<InstanceEnds>& instances, bool offsets_topic, const ConsumedRecord& r) {
    for (std::size_t i = 0; i < instances.size(); ++i) {
        const auto& ends = offsets_topic ? instances[i].offsets : instances[i].events;
        if (static_cast<std::size_t>(r.partition) < ends.size() && r.offset < ends[r.partition]) return i;
    }
    return instances.size();  // the instance still running
}

InstanceEnds current_ends(const std::string& topic) {
    const auto& servers = kafka_servers();
    return {partition_end_offsets(servers, topic, 3s), partition_end_offsets(servers, topic + ".offsets", 3s)};
}

// The commit end_lsn of every writer transaction, by first seq / rows per transaction, from a
// test_decoding slot of its own: the truth the router's offsets records are compared with.
class CommitOracle {
public:
    CommitOracle(const std::string& database, int rows_per_transaction)
        : sql_(postgres().conninfo(database)), slot_(database + "_oracle"), rows_per_transaction_(rows_per_transaction) {
        sql_.exec("SELECT pg_create_logical_replication_slot('" + slot_ + "', 'test_decoding')");
    }
    CommitOracle(const CommitOracle&) = delete;
    CommitOracle& operator=(const CommitOracle&) = delete;
    ~CommitOracle() { sql_.exec("SELECT pg_drop_replication_slot('" + slot_ + "')"); }

    // Requires exactly `expected` writer transactions.
    const std::map<int, std::uint64_t>& end_lsns(std::size_t expected) {
        // The server runs with synchronous_commit off, and decoding stops at the flushed WAL,
        // which the WAL writer brings up to what was inserted within wal_writer_delay.
        const auto inserted = sql_.scalar("SELECT pg_current_wal_insert_lsn()");
        BOOST_REQUIRE(wait_until(
            [&] { return sql_.scalar("SELECT pg_current_wal_flush_lsn() >= '" + inserted + "'::pg_lsn") == "t"; }, 30s));
        int first_seq = -1;
        for (const auto& row : sql_.rows("SELECT lsn, data FROM pg_logical_slot_get_changes('" + slot_ +
                                         "', NULL, NULL, 'skip-empty-xacts', '1')")) {
            const auto& data = row[1];
            if (data.starts_with("BEGIN"))
                first_seq = -1;
            else if (data.starts_with("table public.outbox: INSERT") && first_seq < 0)
                first_seq = std::stoi(data.substr(data.find("\"seq\": ") + 7));
            else if (data.starts_with("COMMIT") && first_seq >= 0)
                end_lsns_[first_seq / rows_per_transaction_] = lsn_value(row[0]);
        }
        BOOST_REQUIRE_EQUAL(end_lsns_.size(), expected);
        return end_lsns_;
    }

private:
    Sql sql_;
    std::string slot_;
    int rows_per_transaction_;
    std::map<int, std::uint64_t> end_lsns_;
};

std::uint64_t end_lsn_of(const ConsumedRecord& offsets_record) {
    return lsn_value(nlohmann::json::parse(offsets_record.value.value()).at("end_lsn").get<std::string>());
}

// What a read_committed consumer of a real broker sees of `topic`.
struct CommittedView {
    std::size_t appended = 0;  // records in the mock's log
    std::size_t aborted = 0;   // of them, in a transaction an instance left open
    std::size_t duplicates = 0;
    std::size_t missing = 0;
    bool order_kept = true;  // per key, seqs strictly increase
};

std::ostream& operator<<(std::ostream& out, const CommittedView& view) {
    return out << view.appended << " records appended, " << view.aborted
               << " in transactions a real broker aborts, " << view.duplicates
               << " duplicates, " << view.missing << " missing";
}

// Waits (up to 3 minutes) until the last writer transaction is committed by some instance
// (each resumes after the highest committed end_lsn, so every earlier one is then too), and
// returns, per instance, the highest end_lsn it wrote to the offsets topic.
std::vector<std::uint64_t> wait_until_committed(const std::string& topic, const std::vector<InstanceEnds>& instances,
                                                std::uint64_t last_end_lsn) {
    std::vector<std::uint64_t> committed_through(instances.size() + 1, 0);
    const bool all_committed = wait_until(
        [&] {
            std::fill(committed_through.begin(), committed_through.end(), 0);
            for (const auto& r : read_topic(kafka_servers(), topic + ".offsets", 0, 30s)) {
                auto& through = committed_through[instance_of(instances, true, r)];
                through = std::max(through, end_lsn_of(r));
            }
            return *std::max_element(committed_through.begin(), committed_through.end()) >= last_end_lsn;
        },
        180s);
    BOOST_TEST(all_committed);
    return committed_through;
}

CommittedView tally(const std::vector<ConsumedRecord>& records, const std::function<bool(const ConsumedRecord&)>& aborted,
                    std::size_t total) {
    CommittedView view;
    view.appended = records.size();
    std::map<int, int> deliveries;
    std::map<std::string, int> last_seq_of_key;
    for (const auto& r : records) {
        if (aborted(r)) {
            ++view.aborted;
            continue;
        }
        const int seq = seq_of(r);
        ++deliveries[seq];
        auto [it, fresh] = last_seq_of_key.emplace(r.key.value(), seq);
        if (!fresh) {
            if (seq <= it->second) view.order_kept = false;
            it->second = seq;
        }
    }
    for (const auto& [seq, times] : deliveries) view.duplicates += static_cast<std::size_t>(times - 1);
    view.missing = total - deliveries.size();
    return view;
}

CommittedView read_committed_view(const std::string& topic, const std::vector<InstanceEnds>& instances,
                                  const std::map<int, std::uint64_t>& commit_ends, int rows_per_transaction) {
    const auto committed_through = wait_until_committed(topic, instances, commit_ends.rbegin()->second);
    const std::size_t total = commit_ends.size() * static_cast<std::size_t>(rows_per_transaction);
    const auto records = read_topic(kafka_servers(), topic, total, 60s);
    return tally(
        records,
        [&](const ConsumedRecord& r) {
            return commit_ends.at(seq_of(r) / rows_per_transaction) > committed_through[instance_of(instances, false, r)];
        },
        total);
}

// One process, at most one rewind. The mock shows the aborted transaction too (see
// InstanceEnds), and within one process the producers' boundary is not observable, but it
// follows from the rewind: in each partition the aborted producer's records past the rewind
// position come first, then the new producer publishes the same transactions again in the same
// order, so the aborted records end where the first of them appears again.
CommittedView read_committed_view_in_process(const std::string& router_output, const std::string& topic,
                                             const std::map<int, std::uint64_t>& commit_ends, int rows_per_transaction) {
    const std::string marker = "rewinding to ";
    const auto rewind = router_output.find(marker);
    BOOST_REQUIRE_MESSAGE(rewind == std::string::npos || router_output.find(marker, rewind + 1) == std::string::npos,
                          "at most one rewind");
    const std::uint64_t rewound_to =
        rewind == std::string::npos
            ? commit_ends.rbegin()->second
            : lsn_value(router_output.substr(rewind + marker.size(),
                                             router_output.find_first_of(" \n", rewind + marker.size()) - rewind - marker.size()));
    wait_until_committed(topic, {}, commit_ends.rbegin()->second);
    const std::size_t total = commit_ends.size() * static_cast<std::size_t>(rows_per_transaction);
    const auto records = read_topic(kafka_servers(), topic, total, 60s);
    const auto past_rewind = [&](const ConsumedRecord& r) {
        return commit_ends.at(seq_of(r) / rows_per_transaction) > rewound_to;
    };
    std::map<int, int> first_past_rewind;   // partition -> seq
    std::map<int, std::size_t> repeat_at;  // partition -> index in `records` where that seq repeats
    for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& r = records[i];
        if (!past_rewind(r)) continue;
        const auto [first, fresh] = first_past_rewind.emplace(r.partition, seq_of(r));
        if (!fresh && first->second == seq_of(r) && !repeat_at.contains(r.partition)) repeat_at[r.partition] = i;
    }
    return tally(
        records,
        [&](const ConsumedRecord& r) {
            const auto repeat = repeat_at.find(r.partition);
            return repeat != repeat_at.end() && static_cast<std::size_t>(&r - records.data()) < repeat->second &&
                   past_rewind(r);
        },
        total);
}

// What exactly-once promises a read_committed consumer.
void check_exactly_once(const CommittedView& view) {
    BOOST_TEST(view.duplicates == 0u);
    BOOST_TEST(view.missing == 0u);
    BOOST_TEST(view.order_kept);
}

void write_transactions(const std::string& database, int first, int count, int rows_per_transaction,
                        std::chrono::milliseconds pause = 0ms) {
    Sql sql(postgres().conninfo(database));
    for (int t = first; t < first + count; ++t) {
        sql.exec("BEGIN; " + outbox_rows_sql(t * rows_per_transaction, rows_per_transaction, 37) + "; COMMIT;");
        std::this_thread::sleep_for(pause);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(kill_9_at_random_moments_gives_each_event_exactly_once) {
    const auto db = create_outbox_database("eoscrash");
    const std::string topic = "eoscrash.events";
    const auto config = eos_config(db, topic);
    std::vector<InstanceEnds> instances;
    create_slot_first(config);
    instances.push_back(current_ends(topic));
    constexpr int kTransactions = 1000, kRows = 100, kKills = 10;
    CommitOracle oracle(db, kRows);
    // Paced, so that rows are still being delivered at every kill.
    std::thread writer([&] { write_transactions(db, 0, kTransactions, kRows, 15ms); });
    std::mt19937 random(61122);
    std::uniform_int_distribution<int> pause_ms(100, 700);
    for (int kill = 0; kill < kKills; ++kill) {
        RouterProcess router(work_dir(), config);
        BOOST_REQUIRE(wait_until([&] { return contains(router.output(), "streaming from slot"); }, 60s));
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(random)));
        router.kill_hard();
        // A real broker rejects a dead producer's requests still in transit once its successor has
        // bumped the epoch; the mock does not, so let them land before the next instance starts.
        std::this_thread::sleep_for(500ms);
        instances.push_back(current_ends(topic));
    }
    writer.join();
    const auto& commit_ends = oracle.end_lsns(kTransactions);

    RouterProcess survivor(work_dir(), config);
    const auto view = read_committed_view(topic, instances, commit_ends, kRows);
    BOOST_TEST_MESSAGE("exactly-once, kill -9 x" << kKills << ": " << view);
    check_exactly_once(view);
    BOOST_TEST(view.aborted > 0u);  // the kills did leave Kafka transactions open
    BOOST_TEST(survivor.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_paused_instance_is_fenced_by_its_successor) {
    const auto db = create_outbox_database("eoszombie");
    const std::string topic = "eoszombie.events";
    // A short wal_sender_timeout lets the successor take the slot over from the paused walsender's client.
    const auto with_short_timeout = [](std::string config) {
        const std::string conninfo = "conninfo: \"";
        return config.insert(config.find(conninfo) + conninfo.size(), "options='-c wal_sender_timeout=2s' ");
    };
    // The first instance keeps its Kafka transaction open until it is paused.
    const auto first_config = with_short_timeout(eos_config(db, topic, "transaction.max.ms: 600000\n"));
    const auto successor_config = with_short_timeout(eos_config(db, topic, "transaction.max.ms: 100\n"));
    constexpr int kRows = 100;
    CommitOracle oracle(db, kRows);
    std::vector<InstanceEnds> instances{current_ends(topic)};

    RouterProcess first(work_dir(), first_config);
    BOOST_REQUIRE(wait_until([&] { return contains(first.output(), "streaming from slot"); }, 60s));
    write_transactions(db, 0, 20, kRows);
    BOOST_REQUIRE(wait_until([&] { return topic_record_count(kafka_servers(), topic) >= 20 * kRows; }, 60s));
    BOOST_REQUIRE(::kill(first.pid(), SIGSTOP) == 0);
    instances.push_back(current_ends(topic));

    RouterProcess successor(work_dir(), successor_config);
    BOOST_REQUIRE(wait_until([&] { return contains(successor.output(), "streaming from slot"); }, 60s));
    write_transactions(db, 20, 10, kRows);
    const auto& commit_ends = oracle.end_lsns(30);
    const auto view = read_committed_view(topic, instances, commit_ends, kRows);

    // librdkafka's mock cluster does not fence an older producer epoch; a real broker answers the
    // paused instance's next transactional request with PRODUCER_FENCED, so the test does too.
    rd_kafka_mock_push_request_errors(kafka_cluster().mock(), 26 /* EndTxn */, 1, RD_KAFKA_RESP_ERR_PRODUCER_FENCED);
    const int first_exit = first.stop(SIGCONT);
    BOOST_TEST_MESSAGE("exactly-once, paused instance and successor: " << view << "; the paused one exited "
                                                                       << first_exit << ": " << last_line(first.output()));
    BOOST_TEST(first_exit == 1);
    BOOST_TEST(contains(last_line(first.output()), "this router was fenced"));
    BOOST_TEST(view.aborted == 20u * kRows);
    check_exactly_once(view);
    BOOST_TEST(topic_record_count(kafka_servers(), topic) == static_cast<long>(view.appended));
    BOOST_TEST(successor.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(broker_errors_and_outages_give_each_event_exactly_once) {
    const auto db = create_outbox_database("eosfaults");
    const std::string topic = "eosfaults.events";
    constexpr int kTransactions = 60, kRows = 100;
    CommitOracle oracle(db, kRows);
    RouterProcess router(work_dir(), eos_config(db, topic));
    BOOST_REQUIRE(wait_until([&] { return contains(router.output(), "streaming from slot"); }, 60s));
    Sql sql(postgres().conninfo(db));
    auto* mock = kafka_cluster().mock();
    for (int t = 0; t < kTransactions; ++t) {
        sql.exec("BEGIN; " + outbox_rows_sql(t * kRows, kRows, 11) + "; COMMIT;");
        if (t == 10) rd_kafka_mock_push_request_errors(mock, 0 /* Produce */, 3, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                                       RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS);
        if (t == 20) rd_kafka_mock_push_request_errors(mock, 26 /* EndTxn */, 1, RD_KAFKA_RESP_ERR_NOT_COORDINATOR);
        if (t == 40)
            for (int broker = 1; broker <= 3; ++broker) rd_kafka_mock_broker_set_down(mock, broker);
        if (t == 45)
            for (int broker = 1; broker <= 3; ++broker) rd_kafka_mock_broker_set_up(mock, broker);
        std::this_thread::sleep_for(50ms);
    }
    const auto& commit_ends = oracle.end_lsns(kTransactions);
    const auto view = read_committed_view_in_process(router.output(), topic, commit_ends, kRows);
    BOOST_TEST_MESSAGE("exactly-once with broker errors and all brokers down: " << view);
    check_exactly_once(view);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(fatal_producer_error_rewinds_to_the_last_committed_transaction) {
    const auto db = create_outbox_database("eosfatal");
    const std::string topic = "eosfatal.events";
    constexpr int kTransactions = 40, kRows = 100;
    CommitOracle oracle(db, kRows);
    RouterProcess router(work_dir(), eos_config(db, topic));
    BOOST_REQUIRE(wait_until([&] { return contains(router.output(), "streaming from slot"); }, 60s));
    Sql sql(postgres().conninfo(db));
    for (int t = 0; t < kTransactions; ++t) {
        sql.exec("BEGIN; " + outbox_rows_sql(t * kRows, kRows, 11) + "; COMMIT;");
        if (t == 15)
            rd_kafka_mock_push_request_errors(kafka_cluster().mock(), 0 /* Produce */, 1,
                                              RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
        std::this_thread::sleep_for(50ms);
    }
    BOOST_REQUIRE(wait_until([&] { return contains(router.output(), "fatal producer error"); }, 60s));
    BOOST_TEST(contains(router.output(), "rewinding to"));
    const auto& commit_ends = oracle.end_lsns(kTransactions);
    const auto view = read_committed_view_in_process(router.output(), topic, commit_ends, kRows);
    BOOST_TEST_MESSAGE("exactly-once after a fatal producer error: " << view);
    check_exactly_once(view);
    BOOST_TEST(router.stop(SIGTERM) == 0);
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
    BOOST_REQUIRE(wait_until([&] { return contains(router.output(), "streaming from slot"); }, 60s));
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
