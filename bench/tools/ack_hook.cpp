// liboutbox-bench-ackhook.so: LD_PRELOADed into outbox-router by bench/latency.sh to record when
// the router receives Kafka's acknowledgement of each record, without changing the router.
//
// It interposes rd_kafka_conf_set_dr_msg_cb(): the router's delivery-report callback is wrapped
// by one that first notes the wall-clock time (CLOCK_REALTIME, microseconds), the record's `id`
// header and its timestamp (the transaction's commit time in ms), then calls the router's. The
// callback runs on the router's own thread inside rd_kafka_poll(), i.e. at the moment the router
// learns that Kafka has the record. It also notes when the router handed the record to librdkafka
// (the report time minus rd_kafka_message_latency()). Entries are written to
// $OUTBOX_BENCH_ACK_LOG.partial as binary {int64 seq, ack_us, timestamp_ms, produce_us} through a
// 64 KiB stdio buffer (so the router's memory figures are unaffected), renamed to
// $OUTBOX_BENCH_ACK_LOG at exit; seq is the last 12 hex digits of the id (outbox-bench-latency
// writes ids 00000000-0000-4000-8000-<seq in hex>).
// Cost inside the router: one clock read, one header lookup and a 32-byte buffered write per
// report, plus one write() system call per 2,048 reports.
#include <dlfcn.h>
#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_util.hpp"

namespace {

using DeliveryCallback = void (*)(rd_kafka_t*, const rd_kafka_message_t*, void*);

struct Ack {
    std::int64_t seq;
    std::int64_t ack_us;
    std::int64_t timestamp_ms;
    std::int64_t produce_us;  // when the router called rd_kafka_producev() for it
};

DeliveryCallback g_router_callback = nullptr;
FILE* g_log = nullptr;  // written through a 64 KiB stdio buffer: the router's RSS stays as it is

void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* message, void* opaque) {
    const std::int64_t now = outbox::bench::unix_us();
    rd_kafka_headers_t* headers = nullptr;
    const void* value = nullptr;
    std::size_t size = 0;
    if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR && g_log &&
        rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR &&
        rd_kafka_header_get_last(headers, "id", &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR && value) {
        rd_kafka_timestamp_type_t type;
        // librdkafka's own measure: microseconds since the produce call.
        const std::int64_t in_librdkafka = rd_kafka_message_latency(message);
        const Ack ack{outbox::bench::seq_of(value, size), now, rd_kafka_message_timestamp(message, &type),
                      in_librdkafka >= 0 ? now - in_librdkafka : 0};
        std::fwrite(&ack, sizeof ack, 1, g_log);
    }
    g_router_callback(rk, message, opaque);
}

// Plain C storage: C++ static destructors run before a library's destructor functions.
char g_path[4096];
char g_partial[4104];

__attribute__((constructor)) void start() {
    const char* path = std::getenv("OUTBOX_BENCH_ACK_LOG");
    if (!path || std::strlen(path) >= sizeof g_path) return;
    std::strcpy(g_path, path);
    std::snprintf(g_partial, sizeof g_partial, "%s.partial", path);
    g_log = std::fopen(g_partial, "wb");
    if (g_log) std::setvbuf(g_log, nullptr, _IOFBF, 1 << 16);
}

// Renamed into place only when the router exits, so a reader waiting for the file gets all of it.
__attribute__((destructor)) void finish() {
    if (!g_log) return;
    std::fclose(g_log);
    g_log = nullptr;
    std::rename(g_partial, g_path);
}

}  // namespace

extern "C" void rd_kafka_conf_set_dr_msg_cb(rd_kafka_conf_t* conf, DeliveryCallback callback) {
    using Setter = void (*)(rd_kafka_conf_t*, DeliveryCallback);
    static const auto real = reinterpret_cast<Setter>(dlsym(RTLD_NEXT, "rd_kafka_conf_set_dr_msg_cb"));
    g_router_callback = callback;
    real(conf, callback ? &on_delivery : nullptr);
}
