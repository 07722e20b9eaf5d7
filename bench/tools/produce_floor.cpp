// outbox-bench-produce: the router's Kafka side alone. The router's own Producer class
// (src/kafka/producer.cpp: its librdkafka defaults, the id header, delivery reports served from a
// poll() loop on its wake-up pipe) publishes records shaped like bench/lib.sh's backlog, with no
// PostgreSQL, decoding or routing. Comparing its CPU per event with the router's, at the same
// rate, splits the router's cost into "Kafka" and "everything before Kafka".
//
//   outbox-bench-produce --bootstrap ADDR --rows N [--rate EVENTS_PER_S] [--chunk 50] [--topics 10]
//                        [--value-bytes 300] [--props "name=value ..."] [--flush 0|1] [--handover N]
//
//   --rate   0 (default): as fast as librdkafka takes them. Otherwise records are handed over in
//            chunks of --chunk on a fixed schedule (chunk i at start + i * chunk / rate), the way
//            the router hands over the rows of each socket read (16 KiB, ~50 backlog rows).
//   --handover  with --rate: records arrive chunk by chunk as above, but are handed to librdkafka
//            only once N of them have arrived (a multiple of --chunk; default --chunk). Shows what
//            grouping the hand-over would save librdkafka (docs/benchmarks-history.md, "Eighth round").
//   --topics the records go round-robin to this many topics (auto-created by the mock cluster with
//            4 partitions each): 10 for the backlog's aggregate types, 1 for bench/latency.sh's topic.
//   --props  librdkafka properties on top of the router's defaults, as KAFKA_PROPS gives them to
//            the router (e.g. "linger.ms=10").
//   --flush  1: after each paced chunk, send at once instead of waiting linger.ms, the way a
//            caught-up router does (Producer::flush(1), repeated every 5 ms until everything is
//            acknowledged; src/pipeline/pipeline.cpp, send_if_caught_up). For bench/latency.sh's
//            floor, whose records arrive live. 0 (default): records wait linger.ms.
//
// Records: topic outbox.event.Aggregate<s % topics>, key agg-<s % 1000>, a JSON value of
// --value-bytes, an id header holding a UUID, the record timestamp now: what the router makes of
// the backlog's rows. Prints one line of key=value figures:
//   wall_s        first record handed over to the last acknowledged
//   cpu_s user_s sys_s  this process, all threads (getrusage), over the same span
//   peak_rss_kib  ru_maxrss
//   produce_to_ack_p50_ms produce_to_ack_p99_ms produce_to_ack_p999_ms
//                 from produce() to the delivery report reaching this process's loop, per record:
//                 librdkafka's linger, the broker round trip, the report's way back (what
//                 bench/latency.sh calls "produce -> ack" for the router)
//   failed        records whose delivery failed (0 expected)
#include <poll.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "outbox/kafka/producer.hpp"

using namespace outbox::bench;

namespace {

struct PooledRecord {
    std::string topic;
    std::string key;
    std::string value;
    std::string id;
};

// 1,000 distinct records, reused: building each value would charge this tool's CPU with work the
// router does not do (it only points into the received buffer).
std::vector<PooledRecord> record_pool(std::size_t value_bytes, int topics) {
    std::vector<PooledRecord> pool;
    for (int s = 0; s < 1000; ++s) {
        PooledRecord record;
        record.topic = "outbox.event.Aggregate" + std::to_string(s % topics);
        record.key = "agg-" + std::to_string(s);
        std::string value = "{\"seq\": " + std::to_string(s) + ", \"note\": \"";
        const std::string tail = "\", \"customer\": \"customer-" + std::to_string(s) + "\"}";
        value.append(value_bytes > value.size() + tail.size() ? value_bytes - value.size() - tail.size() : 0, 'x');
        record.value = value + tail;
        char id[37];
        std::snprintf(id, sizeof id, "%08x-0000-4000-8000-%012x", static_cast<unsigned>(s) * 2654435761u,
                      static_cast<unsigned>(s));
        record.id = id;
        pool.push_back(std::move(record));
    }
    return pool;
}

}  // namespace

int main(int argc, char** argv) try {
    const Args args(argc, argv);
    const std::string bootstrap = args.required("bootstrap");
    const auto rows = static_cast<std::uint64_t>(args.number("rows", 200000));
    const double rate = args.number("rate", 0);
    const auto chunk = static_cast<std::uint64_t>(args.number("chunk", 50));
    const auto value_bytes = static_cast<std::size_t>(args.number("value-bytes", 300));
    const auto topics = static_cast<int>(args.number("topics", 10));
    const bool flush_chunks = args.number("flush", 0) != 0;
    const auto handover = static_cast<std::uint64_t>(args.number("handover", static_cast<double>(chunk)));
    if (chunk == 0 || topics < 1) throw std::runtime_error("--chunk and --topics must be at least 1");
    if (handover < chunk || handover % chunk != 0)
        throw std::runtime_error("--handover must be a multiple of --chunk");
    if (flush_chunks && rate <= 0) throw std::runtime_error("--flush 1 needs --rate (it mirrors a caught-up router)");

    outbox::config::KafkaSettings settings;
    std::istringstream props(args.get("props"));
    for (std::string prop; props >> prop;) {
        const auto eq = prop.find('=');
        if (eq == std::string::npos) throw std::runtime_error("--props: expected name=value, got " + prop);
        settings.properties.push_back({prop.substr(0, eq), prop.substr(eq + 1), {"--props", 0}});
    }

    // The warm-up records are tagged past the measured ones.
    const std::uint64_t warmup = static_cast<std::uint64_t>(topics);
    std::vector<std::int64_t> produced_at_us(rows + warmup);
    std::vector<std::int64_t> latencies_us;
    latencies_us.reserve(rows);
    std::uint64_t acknowledged = 0;
    std::uint64_t failed = 0;
    outbox::kafka::Producer producer(settings, bootstrap, [&](const outbox::kafka::DeliveryReport& report) {
        ++acknowledged;
        if (report.error != RD_KAFKA_RESP_ERR_NO_ERROR) ++failed;
        if (report.tag < rows) latencies_us.push_back(mono_us() - produced_at_us[report.tag]);
    });

    const std::vector<PooledRecord> pool = record_pool(value_bytes, topics);
    auto produce = [&](std::uint64_t s, std::uint64_t tag) {
        const PooledRecord& pooled = pool[s % pool.size()];
        produced_at_us[tag] = mono_us();
        const outbox::kafka::Header id{"id", pooled.id};
        const outbox::kafka::Record record{pooled.topic, -1, pooled.key, pooled.value, {&id, 1}, unix_us() / 1000};
        if (const auto error = producer.produce(record, tag); error != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw std::runtime_error(std::string("produce: ") + rd_kafka_err2str(error));
    };
    bool lingering = false;  // --flush: handed over and not yet all acknowledged
    auto send_now = [&] { lingering = !producer.flush(1); };
    // Waits for reports until `done` holds or the deadline (monotonic µs) passes.
    auto serve_until = [&](auto done, std::int64_t deadline_us) {
        constexpr std::int64_t kLingeringRecheckUs = 5'000;
        pollfd wakeup{producer.wakeup_fd(), POLLIN, 0};
        while (!done()) {
            const std::int64_t now = mono_us();
            std::int64_t left = deadline_us - now;
            if (left <= 0) return;
            if (lingering) left = std::min(left, kLingeringRecheckUs);
            const timespec timeout{static_cast<time_t>(left / 1'000'000), static_cast<long>(left % 1'000'000) * 1000};
            const int ready = ppoll(&wakeup, 1, &timeout, nullptr);
            if (ready > 0) producer.serve(0);
            if (ready == 0 && lingering) send_now();
        }
    };

    // Topic creation, metadata and the idempotent producer's id, outside the measured span.
    for (std::uint64_t s = 0; s < warmup; ++s) produce(s, rows + s);
    serve_until([&] { return acknowledged == warmup; }, mono_us() + 30'000'000);
    if (acknowledged != warmup || failed != 0) throw std::runtime_error("warm-up records were not acknowledged");
    acknowledged = 0;

    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const std::int64_t start = mono_us();
    std::uint64_t handed_over = 0;
    for (std::uint64_t first = 0; first < rows; first += chunk) {
        if (rate > 0) {
            const auto due = start + static_cast<std::int64_t>(static_cast<double>(first) * 1e6 / rate);
            serve_until([&] { return mono_us() >= due; }, due);
        } else if (first % 1000 == 0) {
            producer.serve(0);
        }
        const std::uint64_t arrived = std::min(rows, first + chunk);
        if (arrived - handed_over < handover && arrived < rows) continue;
        for (std::uint64_t s = handed_over; s < arrived; ++s) produce(s, s);
        handed_over = arrived;
        if (flush_chunks) send_now();
    }
    serve_until([&] { return acknowledged == rows; }, mono_us() + 120'000'000);
    const std::int64_t end = mono_us();
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    if (acknowledged != rows) throw std::runtime_error("timed out: " + std::to_string(acknowledged) + " of " +
                                                       std::to_string(rows) + " records acknowledged");

    const double user = seconds_of(after.ru_utime) - seconds_of(before.ru_utime);
    const double sys = seconds_of(after.ru_stime) - seconds_of(before.ru_stime);
    std::sort(latencies_us.begin(), latencies_us.end());
    auto ms = [&](double q) { return static_cast<double>(quantile(latencies_us, q)) / 1000; };
    std::printf("wall_s=%.3f cpu_s=%.3f user_s=%.3f sys_s=%.3f peak_rss_kib=%ld produce_to_ack_p50_ms=%.2f "
                "produce_to_ack_p99_ms=%.2f produce_to_ack_p999_ms=%.2f failed=%llu\n",
                static_cast<double>(end - start) / 1e6, user + sys, user, sys, after.ru_maxrss, ms(0.5), ms(0.99),
                ms(0.999), static_cast<unsigned long long>(failed));
    return failed == 0 ? 0 : 1;
} catch (const std::exception& e) {
    std::cerr << "outbox-bench-produce: " << e.what() << "\n";
    return 1;
}
