#include "outbox/observability/metrics.hpp"

#include <algorithm>
#include <ctime>

#include "outbox/observability/certificate_expiry.hpp"

namespace outbox::observability {
namespace {
// Commit-to-acknowledgement spans a linger, a broker round trip and, when behind, a backlog.
const std::vector<double> kLatencyBuckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}  // namespace

Metrics::Metrics(std::vector<CertificateFile> certificates)
    : events_received(registry_.counter_family("outbox_router_events_received_total",
                                               "Outbox rows and messages received from PostgreSQL.", {"table"})),
      transactions_confirmed(registry_.counter("outbox_router_transactions_confirmed_total",
                                               "Transactions confirmed to PostgreSQL after Kafka acknowledged them.")),
      reconnects(registry_.counter("outbox_router_reconnects_total",
                                   "Times the replication connection was re-established after a loss.")),
      events_published(registry_.counter_family("outbox_router_events_published_total",
                                                "Events acknowledged by Kafka.", {"topic"})),
      producer_errors(registry_.counter("outbox_router_producer_errors_total",
                                        "Failed Kafka deliveries and producer error callbacks.")),
      caught_up_flushes(registry_.counter("outbox_router_caught_up_flushes_total",
                                          "Times the router, caught up with the server, sent its records to Kafka "
                                          "at once instead of waiting linger.ms.")),
      schema_registry_unavailable(registry_.counter("outbox_router_schema_registry_unavailable_total",
                                                    "Times no schema registry URL answered (no connection, a timeout, "
                                                    "5xx or 429); the router reconnects and routes the rows again.")),
      received_lsn(registry_.gauge("outbox_router_received_lsn_bytes", "Newest WAL position received.")),
      confirmed_lsn(registry_.gauge("outbox_router_confirmed_lsn_bytes",
                                    "WAL position last confirmed to PostgreSQL as flushed.")),
      in_flight_messages(registry_.gauge("outbox_router_in_flight_messages",
                                         "Events handed to Kafka and not yet acknowledged.")),
      events_skipped(registry_.counter_family("outbox_router_events_skipped_total",
                                              "Outbox changes deliberately not published.", {"table", "reason"})),
      in_flight_bytes(registry_.gauge("outbox_router_in_flight_bytes",
                                      "Key and value bytes of the events in flight.")),
      pending_transactions(registry_.gauge("outbox_router_pending_transactions",
                                           "Transactions received and not yet confirmed, with or without events.")),
      events_dead_lettered(registry_.counter_family("outbox_router_events_dead_lettered_total",
                                                    "Invalid outbox rows sent to a dead-letter topic.",
                                                    {"table", "topic"})),
      commit_to_ack_seconds(registry_.histogram("outbox_router_commit_to_ack_seconds",
                                                "Time from the PostgreSQL commit to the Kafka acknowledgement.",
                                                kLatencyBuckets)),
      server_wal_lsn(registry_.gauge("outbox_router_server_wal_lsn_bytes",
                                     "The server's current WAL position (pg_current_wal_lsn()).")),
      slot_confirmed_flush_lsn(registry_.gauge("outbox_router_slot_confirmed_flush_lsn_bytes",
                                               "The slot's confirmed_flush_lsn as PostgreSQL reports it.")),
      slot_active(registry_.gauge("outbox_router_slot_active", "1 when a walsender streams from the slot.")),
      slot_retained_wal_bytes(registry_.gauge("outbox_router_slot_retained_wal_bytes",
                                              "WAL the slot keeps on the server (pg_current_wal_lsn() - restart_lsn).")),
      slot_monitor_up(registry_.gauge("outbox_router_slot_monitor_up",
                                      "1 when the last pg_replication_slots query succeeded.")) {
    registry_.gauge_function("outbox_router_lag_bytes",
                             "The server's WAL position minus the confirmed position.",
                             [this] { return lag_bytes(); });
    registry_.gauge_function("outbox_router_streaming", "1 while streaming from PostgreSQL.",
                             [this] { return health.streaming() ? 1 : 0; });
    // /readyz as a series, so that an alert sees what the probe sees (its Kafka metadata request
    // runs at each scrape, as at each probe, unless a probe is running already).
    registry_.gauge_function("outbox_router_ready",
                             "1 when /readyz answers 200: streaming from PostgreSQL and Kafka answering.",
                             [this] { return health.ready_without_waiting() ? 1 : 0; });
    // Read at each scrape, so that a certificate rotated in place (cert-manager) shows at once; a
    // file that cannot be read has no sample (the connection that needs it fails and says so).
    registry_.gauge_family_function(
        "outbox_router_tls_certificate_expiry_timestamp_seconds",
        "The notAfter time of the earliest-expiring certificate in each certificate file the configuration names, "
        "in seconds since the Unix epoch.",
        {"use", "file"}, [certificates = std::move(certificates)] {
            std::vector<Registry::LabelledValue> values;
            for (const auto& certificate : certificates)
                if (const auto not_after = earliest_not_after(certificate.path))
                    values.push_back({{certificate.use, certificate.path}, *not_after});
            return values;
        });
    // Restarts show as changes of this value, whatever restarted the process.
    const std::int64_t started = std::time(nullptr);
    registry_.gauge_function("process_start_time_seconds", "Start time of the process since the Unix epoch in seconds.",
                             [started] { return started; });
}

std::int64_t Metrics::lag_bytes() const {
    const std::int64_t server = server_wal_lsn.value();
    // Until the pipeline confirms its first position, the slot's own confirmed position is the truth.
    const std::int64_t confirmed = std::max(confirmed_lsn.value(), slot_confirmed_flush_lsn.value());
    if (server == 0 || confirmed == 0) return 0;
    return std::max<std::int64_t>(server - confirmed, 0);
}

}  // namespace outbox::observability
