// outbox-bench-latency: commit-to-acknowledgement latency of a running outbox-router at a steady
// event rate, as a distribution (every event measured; percentiles are exact order statistics).
//
//   outbox-bench-latency --conninfo STR --bootstrap HOST:PORT --rate EVENTS_PER_S --seconds D
//       [--warmup 3] [--rows-per-txn 1] [--connections 4] [--base 0] [--aggregate Latency]
//       [--fetch-wait-ms 1] [--consume 1] [--router-pid PID --ack-log FILE] [--metrics-url URL]
//
// Writer: CONNECTIONS libpq connections (asynchronous, one transaction in flight each) insert
//   ROWS_PER_TXN outbox rows per transaction (autocommit INSERT ... SELECT, one round trip), paced
//   to a fixed schedule: transaction i is sent at start + i * ROWS_PER_TXN / RATE (not earlier;
//   later only if every connection is busy, which is reported). Rows look like the throughput
//   benchmark's (~300-byte jsonb payload, 1,000 keys); ids are 00000000-0000-4000-8000-<seq in hex>.
//   Each INSERT returns its xid; at the end the exact commit times come from
//   pg_xact_commit_timestamp() (the server needs track_commit_timestamp = on; without it the
//   client's send time is used and the report says so).
// Consumer: a librdkafka consumer assigned to every partition of outbox.event.<AGGREGATE> from the
//   beginning, noting the wall-clock time each record arrives. With --consume 0 there is none (its
//   fetches load the mock cluster and the CPUs); the run then ends 1 s after the last commit.
// Router side (optional): with --router-pid, the router's CPU during the measured window and its
//   VmHWM are read from /proc, then it is stopped with SIGTERM and the acknowledgement times written
//   by liboutbox-bench-ackhook.so (LD_PRELOAD) are read from --ack-log. With --metrics-url the
//   router's own outbox_router_commit_to_ack_seconds histogram is read for comparison.
//
// Reported (events of the first WARMUP seconds excluded):
//   commit->ack      ack hook time - commit time: when the router's delivery-report callback ran
//   commit->consume  consumer arrival - commit time (adds the consumer's fetch cycle: the mock
//                    cluster answers an empty fetch only after fetch.wait.max.ms)
#include <libpq-fe.h>
#include <librdkafka/rdkafka.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "bench_util.hpp"

using namespace outbox::bench;

namespace {

struct Txn {
    std::int64_t scheduled_us = 0;  // monotonic
    std::int64_t sent_us = 0;       // unix
    std::int64_t done_us = 0;       // unix
    std::int64_t sent_mono_us = 0;
    std::int64_t xid = -1;
    std::int64_t commit_us = 0;  // unix, from pg_xact_commit_timestamp()
};

struct Event {
    std::int64_t consume_us = 0;
    std::int64_t timestamp_ms = 0;
    std::int64_t ack_us = 0;
    std::int64_t produce_us = 0;
};

struct Ack {
    std::int64_t seq;
    std::int64_t ack_us;
    std::int64_t timestamp_ms;
    std::int64_t produce_us;
};

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

void set(rd_kafka_conf_t* conf, const char* name, const std::string& value) {
    char error[512];
    if (rd_kafka_conf_set(conf, name, value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK)
        fail(std::string("kafka: ") + name + ": " + error);
}

// Percentiles of a latency sample, in milliseconds.
struct Distribution {
    std::vector<std::int64_t> us;
    std::string describe() {
        std::sort(us.begin(), us.end());
        if (us.empty()) return "no samples";
        char text[256];
        std::snprintf(text, sizeof text, "n=%zu  p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f ms", us.size(),
                      quantile(us, 0.5) / 1e3, quantile(us, 0.9) / 1e3, quantile(us, 0.99) / 1e3,
                      quantile(us, 0.999) / 1e3, us.back() / 1e3);
        return text;
    }
    double p(double q) {
        std::sort(us.begin(), us.end());
        return us.empty() ? NAN : quantile(us, q) / 1e3;
    }
    std::string histogram() {
        static const double bounds_ms[] = {0.5, 1, 2, 3, 5, 10, 20, 50, 100, 1000};
        std::vector<std::size_t> counts(std::size(bounds_ms) + 1);
        for (const auto v : us) {
            std::size_t b = 0;
            while (b < std::size(bounds_ms) && v / 1e3 >= bounds_ms[b]) ++b;
            ++counts[b];
        }
        std::ostringstream out;
        double lower = 0;
        for (std::size_t b = 0; b < counts.size(); ++b) {
            if (counts[b] != 0) {
                out << "    [" << lower << ", ";
                if (b < std::size(bounds_ms)) out << bounds_ms[b]; else out << "inf";
                char pct[32];
                std::snprintf(pct, sizeof pct, "%.3f", 100.0 * static_cast<double>(counts[b]) / static_cast<double>(us.size()));
                out << ") ms: " << counts[b] << " (" << pct << " %)\n";
            }
            if (b < std::size(bounds_ms)) lower = bounds_ms[b];
        }
        return out.str();
    }
};

std::string run_command(const std::string& command) {
    std::string output;
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char buffer[4096];
        std::size_t n;
        while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
        pclose(pipe);
    }
    return output;
}

// "p50 <= x ms, p99 <= y ms" from the router's Prometheus histogram (cumulative buckets).
std::string router_histogram(const std::string& url) {
    const std::string text = run_command("curl -s --max-time 5 " + url);
    std::istringstream lines(text);
    std::string line;
    std::vector<std::pair<double, double>> buckets;  // le, cumulative count
    const std::string prefix = "outbox_router_commit_to_ack_seconds_bucket{le=\"";
    while (std::getline(lines, line)) {
        if (line.rfind(prefix, 0) != 0) continue;
        const auto end = line.find('"', prefix.size());
        const std::string le = line.substr(prefix.size(), end - prefix.size());
        const double bound = le == "+Inf" ? INFINITY : std::stod(le);
        buckets.emplace_back(bound, std::stod(line.substr(line.rfind(' ') + 1)));
    }
    if (buckets.empty()) return "not available";
    const double total = buckets.back().second;
    const auto bound_for = [&](double q) {
        for (const auto& [le, count] : buckets)
            if (count >= q * total) return std::isinf(le) ? std::string("> 10 s") : "<= " + std::to_string(le * 1e3).substr(0, 5) + " ms";
        return std::string("?");
    };
    std::ostringstream out;
    out << "n=" << static_cast<long>(total) << " (warm-up included)  p50 " << bound_for(0.5) << "  p99 " << bound_for(0.99)
        << "  (bucket upper bounds; the router computes it from millisecond clocks)";
    return out.str();
}

}  // namespace

int main(int argc, char** argv) try {
    const Args args(argc, argv);
    const std::string conninfo = args.required("conninfo");
    const std::string bootstrap = args.required("bootstrap");
    const double rate = args.number("rate", 1000);
    const double seconds = args.number("seconds", 10);
    const double warmup = args.number("warmup", 3);
    const int per_txn = static_cast<int>(args.number("rows-per-txn", 1));
    const int connection_count = static_cast<int>(args.number("connections", 4));
    const std::int64_t base = static_cast<std::int64_t>(args.number("base", 0));
    const std::string aggregate = args.get("aggregate", "Latency");
    const std::string topic = "outbox.event." + aggregate;
    const pid_t router_pid = static_cast<pid_t>(args.number("router-pid", 0));
    const std::string ack_log = args.get("ack-log");
    const bool consume = args.number("consume", 1) != 0;

    const auto txn_count = static_cast<std::size_t>(std::ceil((warmup + seconds) * rate / per_txn));
    const std::size_t event_count = txn_count * static_cast<std::size_t>(per_txn);
    const auto warmup_txns = static_cast<std::size_t>(warmup * rate / per_txn);
    const double interval_us = 1e6 * per_txn / rate;
    std::vector<Txn> txns(txn_count);
    std::vector<Event> events(event_count);

    // Consumer, assigned before the first row is written.
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    set(conf, "bootstrap.servers", bootstrap);
    set(conf, "group.id", "outbox-bench-latency");
    set(conf, "enable.auto.commit", "false");
    set(conf, "fetch.wait.max.ms", args.get("fetch-wait-ms", "1"));
    set(conf, "log_level", "3");
    char error[512];
    rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
    if (!consumer) fail(std::string("kafka: ") + error);
    int partitions = 0;
    for (int attempt = 0; attempt < 100 && partitions == 0; ++attempt) {
        rd_kafka_topic_t* handle = rd_kafka_topic_new(consumer, topic.c_str(), nullptr);
        const rd_kafka_metadata_t* metadata = nullptr;
        if (rd_kafka_metadata(consumer, 0, handle, &metadata, 2000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
            if (metadata->topic_cnt == 1 && metadata->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR)
                partitions = metadata->topics[0].partition_cnt;
            rd_kafka_metadata_destroy(metadata);
        }
        rd_kafka_topic_destroy(handle);
        if (partitions == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (partitions == 0) fail("kafka: topic " + topic + " does not exist (start outbox-bench-kafka with it)");
    rd_kafka_topic_partition_list_t* assignment = rd_kafka_topic_partition_list_new(partitions);
    for (int p = 0; p < partitions; ++p)
        rd_kafka_topic_partition_list_add(assignment, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    if (consume && rd_kafka_assign(consumer, assignment) != RD_KAFKA_RESP_ERR_NO_ERROR) fail("kafka: assign failed");
    rd_kafka_topic_partition_list_destroy(assignment);

    std::atomic<bool> stop{false};
    std::atomic<std::size_t> consumed{0};
    std::thread consumer_thread;
    if (consume) consumer_thread = std::thread([&] {
        while (!stop.load()) {
            rd_kafka_message_t* message = rd_kafka_consumer_poll(consumer, 50);
            if (!message) continue;
            const std::int64_t now = unix_us();
            rd_kafka_headers_t* headers = nullptr;
            const void* value = nullptr;
            std::size_t size = 0;
            if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR &&
                rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR &&
                rd_kafka_header_get_last(headers, "id", &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR && value) {
                const std::int64_t e = seq_of(value, size) - base;
                if (e >= 0 && static_cast<std::size_t>(e) < event_count && events[e].consume_us == 0) {
                    rd_kafka_timestamp_type_t type;
                    events[e].timestamp_ms = rd_kafka_message_timestamp(message, &type);
                    events[e].consume_us = now;
                    consumed.fetch_add(1);
                }
            }
            rd_kafka_message_destroy(message);
        }
    });

    // Writer connections.
    struct Connection {
        PGconn* pg;
        long txn = -1;  // in flight
    };
    std::vector<Connection> connections;
    for (int i = 0; i < connection_count; ++i) {
        PGconn* pg = PQconnectdb(conninfo.c_str());
        if (PQstatus(pg) != CONNECTION_OK) fail(std::string("postgres: ") + PQerrorMessage(pg));
        const std::string insert =
            "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) "
            "SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(s), 12, '0'))::uuid, '" + aggregate +
            "', 'agg-' || (s % 1000), 'Created', "
            "jsonb_build_object('seq', s, 'customer', 'customer-' || (s % 1000), 'amount', s * 1.5, "
            "'note', repeat('x', 200), 'tags', jsonb_build_array('a', 'b', 'c')) "
            "FROM generate_series($1::bigint, $1::bigint + $2::int - 1) s RETURNING xmin::text";
        PGresult* prepared = PQprepare(pg, "insert", insert.c_str(), 2, nullptr);
        if (PQresultStatus(prepared) != PGRES_COMMAND_OK) fail(std::string("postgres: ") + PQerrorMessage(pg));
        PQclear(prepared);
        PQsetnonblocking(pg, 1);
        connections.push_back({pg});
    }

    double cpu_at_window = -1;
    double busy_at_window = 0;
    std::int64_t window_start_mono = 0;
    const std::int64_t start = mono_us() + 200'000;  // let the consumer's first fetches go out
    for (std::size_t i = 0; i < txn_count; ++i)
        txns[i].scheduled_us = start + static_cast<std::int64_t>(static_cast<double>(i) * interval_us);
    std::size_t next = 0, finished = 0;
    std::int64_t max_behind_us = 0;
    const std::string rows_text = std::to_string(per_txn);
    while (finished < txn_count) {
        std::int64_t now = mono_us();
        for (auto& c : connections) {
            if (c.txn >= 0 || next >= txn_count || now < txns[next].scheduled_us) continue;
            if (next == warmup_txns && cpu_at_window < 0) {
                window_start_mono = now;
                busy_at_window = machine_busy_seconds();
                cpu_at_window = router_pid > 0 ? proc_cpu_seconds(router_pid) : 0;
            }
            Txn& t = txns[next];
            const std::string first = std::to_string(base + static_cast<std::int64_t>(next) * per_txn);
            const char* params[2] = {first.c_str(), rows_text.c_str()};
            t.sent_mono_us = mono_us();
            t.sent_us = unix_us();
            max_behind_us = std::max(max_behind_us, t.sent_mono_us - t.scheduled_us);
            if (!PQsendQueryPrepared(c.pg, "insert", 2, params, nullptr, nullptr, 0))
                fail(std::string("postgres: ") + PQerrorMessage(c.pg));
            while (PQflush(c.pg) == 1) {
            }
            c.txn = static_cast<long>(next++);
            now = mono_us();
        }
        std::vector<pollfd> fds;
        for (const auto& c : connections)
            if (c.txn >= 0) fds.push_back({PQsocket(c.pg), POLLIN, 0});
        const bool can_send = next < txn_count && std::any_of(connections.begin(), connections.end(),
                                                              [](const Connection& c) { return c.txn < 0; });
        const std::int64_t wait_us = can_send ? std::max<std::int64_t>(0, txns[next].scheduled_us - mono_us()) : 50'000;
        const timespec timeout{static_cast<time_t>(wait_us / 1'000'000), static_cast<long>(wait_us % 1'000'000) * 1000};
        ppoll(fds.data(), fds.size(), &timeout, nullptr);
        for (auto& c : connections) {
            if (c.txn < 0) continue;
            if (!PQconsumeInput(c.pg)) fail(std::string("postgres: ") + PQerrorMessage(c.pg));
            while (!PQisBusy(c.pg)) {
                PGresult* result = PQgetResult(c.pg);
                if (!result) {
                    ++finished;
                    c.txn = -1;
                    break;
                }
                Txn& t = txns[static_cast<std::size_t>(c.txn)];
                if (PQresultStatus(result) != PGRES_TUPLES_OK) fail(std::string("postgres: ") + PQerrorMessage(c.pg));
                if (t.done_us == 0) {
                    t.done_us = unix_us();
                    t.xid = std::atoll(PQgetvalue(result, 0, 0));
                }
                PQclear(result);
            }
        }
    }
    const std::int64_t writer_end_mono = mono_us();
    const double machine_busy = machine_busy_seconds() - busy_at_window;

    // Everything consumed (or 30 s without progress).
    std::size_t last = 0;
    std::int64_t last_progress = mono_us();
    if (!consume) std::this_thread::sleep_for(std::chrono::seconds(1));  // the last acknowledgements
    while (consume && consumed.load() < event_count && mono_us() - last_progress < 30'000'000) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (consumed.load() != last) last = consumed.load(), last_progress = mono_us();
    }
    const std::int64_t drained_mono = mono_us();
    stop = true;
    if (consumer_thread.joinable()) consumer_thread.join();
    rd_kafka_consumer_close(consumer);
    rd_kafka_destroy(consumer);

    // Exact commit times.
    PGconn* pg = connections[0].pg;
    PQsetnonblocking(pg, 0);
    bool exact_commit = true;
    for (std::size_t from = 0; from < txn_count && exact_commit; from += 20000) {
        std::string array = "{";
        const std::size_t to = std::min(txn_count, from + 20000);
        for (std::size_t i = from; i < to; ++i) array += (i > from ? "," : "") + std::to_string(txns[i].xid);
        array += "}";
        const char* params[1] = {array.c_str()};
        PGresult* result = PQexecParams(
            pg,
            "SELECT (extract(epoch FROM pg_xact_commit_timestamp(x::text::xid)) * 1000000)::bigint "
            "FROM unnest($1::bigint[]) WITH ORDINALITY AS u(x, n) ORDER BY n",
            1, nullptr, params, nullptr, nullptr, 0);
        if (PQresultStatus(result) != PGRES_TUPLES_OK || static_cast<std::size_t>(PQntuples(result)) != to - from ||
            PQgetisnull(result, 0, 0)) {
            exact_commit = false;
        } else {
            for (std::size_t i = from; i < to; ++i)
                txns[i].commit_us = std::atoll(PQgetvalue(result, static_cast<int>(i - from), 0));
        }
        PQclear(result);
    }
    for (auto& c : connections) PQfinish(c.pg);

    // Router side.
    std::string histogram_line = "not requested";
    if (args.has("metrics-url")) histogram_line = router_histogram(args.get("metrics-url"));
    double router_cpu = -1;
    long router_hwm = -1;
    std::size_t acked = 0;
    if (router_pid > 0) {
        router_cpu = proc_cpu_seconds(router_pid) - cpu_at_window;
        router_hwm = proc_status_kib(router_pid, "VmHWM");
        kill(router_pid, SIGTERM);
        struct stat st{};
        for (int i = 0; i < 1500 && stat(ack_log.c_str(), &st) != 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (FILE* in = std::fopen(ack_log.c_str(), "rb")) {
            Ack ack{};
            while (std::fread(&ack, sizeof ack, 1, in) == 1) {
                const std::int64_t e = ack.seq - base;
                if (e >= 0 && static_cast<std::size_t>(e) < event_count && events[e].ack_us == 0) {
                    events[e].ack_us = ack.ack_us;
                    events[e].produce_us = ack.produce_us;
                    ++acked;
                }
            }
            std::fclose(in);
        }
    }

    // Distributions over the measured events.
    Distribution to_ack, to_consume, ts_to_ack, round_trip, to_produce, produce_to_ack;
    std::size_t measured = 0, missing = 0;
    for (std::size_t i = warmup_txns; i < txn_count; ++i) {
        const Txn& t = txns[i];
        const std::int64_t commit = exact_commit ? t.commit_us : t.sent_us;
        round_trip.us.push_back(t.done_us - t.sent_us);
        for (int r = 0; r < per_txn; ++r) {
            const Event& e = events[i * per_txn + r];
            ++measured;
            if (consume) {
                if (e.consume_us == 0) ++missing;
                else to_consume.us.push_back(e.consume_us - commit);
            }
            if (e.ack_us != 0) {
                to_ack.us.push_back(e.ack_us - commit);
                if (e.timestamp_ms > 0) ts_to_ack.us.push_back(e.ack_us - e.timestamp_ms * 1000);
                if (e.produce_us > 0) {
                    to_produce.us.push_back(e.produce_us - commit);
                    produce_to_ack.us.push_back(e.ack_us - e.produce_us);
                }
            }
        }
    }
    const double window_s = static_cast<double>(writer_end_mono - window_start_mono) / 1e6;
    const double achieved = static_cast<double>(measured) / window_s;

    std::printf("target %.0f events/s in transactions of %d row(s), %d writer connection(s); measured %zu events "
                "(after %.0f s warm-up) in %.2f s = %.0f events/s; writer at most %.2f ms behind schedule\n",
                rate, per_txn, connection_count, measured, warmup, window_s, achieved, max_behind_us / 1e3);
    std::printf("machine: %.2f of %ld cores busy during the measured window (everything: PostgreSQL, router, "
                "mock cluster, this tool, other users)\n",
                machine_busy / window_s, sysconf(_SC_NPROCESSORS_ONLN));
    std::printf("commit time: %s\n", exact_commit ? "pg_xact_commit_timestamp() (exact, microseconds)"
                                                  : "client send time (track_commit_timestamp is off)");
    std::printf("INSERT+COMMIT round trip (writer): %s\n", round_trip.describe().c_str());
    std::printf("commit -> ack (router's delivery report): %s\n", to_ack.describe().c_str());
    std::printf("%s", to_ack.histogram().c_str());
    std::printf("  of which commit -> produce() (walsender, socket, decode, route): %s\n", to_produce.describe().c_str());
    std::printf("  of which produce() -> ack (librdkafka linger, broker, delivery report): %s\n",
                produce_to_ack.describe().c_str());
    std::printf("commit -> consume (consumer, fetch.wait.max.ms=%s): %s\n", args.get("fetch-wait-ms", "1").c_str(),
                to_consume.describe().c_str());
    std::printf("record timestamp (commit, whole ms) -> ack: %s\n", ts_to_ack.describe().c_str());
    std::printf("router histogram outbox_router_commit_to_ack_seconds: %s\n", histogram_line.c_str());
    if (missing) std::printf("WARNING: %zu of %zu events never reached the consumer\n", missing, measured);
    const double consume_window_s = static_cast<double>(drained_mono - window_start_mono) / 1e6;
    if (router_pid > 0)
        std::printf("router: %zu acknowledgements logged; CPU %.3f s over the measured %.2f s = %.2f us/event; "
                    "VmHWM %.1f MiB\n",
                    acked, router_cpu, consume_window_s, 1e6 * router_cpu / static_cast<double>(measured),
                    router_hwm / 1024.0);
    std::printf("summary: achieved=%.0f ack_p50_ms=%.3f ack_p99_ms=%.3f ack_p999_ms=%.3f ack_max_ms=%.3f "
                "consume_p50_ms=%.3f consume_p99_ms=%.3f produce_p50_ms=%.3f produce_p99_ms=%.3f produce_to_ack_p50_ms=%.3f "
                "produce_to_ack_p99_ms=%.3f rtt_p50_ms=%.3f "
                "cpu_us_per_event=%.3f rss_kib=%ld missing=%zu busy_cores=%.2f\n",
                achieved, to_ack.p(0.5), to_ack.p(0.99), to_ack.p(0.999), to_ack.us.empty() ? NAN : to_ack.us.back() / 1e3,
                to_consume.p(0.5), to_consume.p(0.99), to_produce.p(0.5), to_produce.p(0.99), produce_to_ack.p(0.5),
                produce_to_ack.p(0.99), round_trip.p(0.5),
                router_pid > 0 ? 1e6 * router_cpu / static_cast<double>(measured) : NAN, router_hwm, missing,
                machine_busy / window_s);
    return 0;
} catch (const std::exception& e) {
    std::cerr << "outbox-bench-latency: " << e.what() << "\n";
    return 1;
}
