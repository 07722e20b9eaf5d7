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

// These cases inject broker answers only librdkafka's mock cluster can give (tests/broker has the
// exactly-once proofs on a real broker). The mock keeps every record a transactional producer
// sends, committed or not: its Fetch reports no aborted transactions and puts the last stable
// offset at the log end. So these tests apply the broker's rule themselves, from the router's
// logged rewind position and each commit's end_lsn read from a test_decoding slot of their own.
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

// Waits (up to 3 minutes) until the router wrote a position at or past `last_end_lsn` to the
// offsets topic: the last writer transaction is committed, and every earlier one with it.
void wait_until_committed(const std::string& topic, std::uint64_t last_end_lsn) {
    BOOST_TEST(wait_until(
        [&] {
            std::uint64_t through = 0;
            for (const auto& r : read_topic(kafka_servers(), topic + ".offsets", 0, 30s))
                through = std::max(through, end_lsn_of(r));
            return through >= last_end_lsn;
        },
        180s));
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

// One process, at most one rewind. The mock shows the aborted transaction too, and within one
// process the producers' boundary is not observable, but it follows from the rewind: in each
// partition the aborted producer's records past the rewind position come first, then the new producer publishes
// the same transactions again in the same order, so the aborted records end where the first of them appears again.
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
    wait_until_committed(topic, commit_ends.rbegin()->second);
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

}  // namespace

BOOST_AUTO_TEST_CASE(broker_errors_and_outages_give_each_event_exactly_once) {
    const auto db = create_outbox_database("eosfaults");
    const std::string topic = "eosfaults.events";
    constexpr int kTransactions = 60, kRows = 100;
    CommitOracle oracle(db, kRows);
    RouterProcess router(work_dir(), eos_config(db, topic));
    BOOST_REQUIRE(router.wait_streaming());
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
    BOOST_REQUIRE(router.wait_streaming());
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
