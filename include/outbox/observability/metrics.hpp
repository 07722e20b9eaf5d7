#pragma once

#include <string>
#include <vector>

#include "outbox/observability/certificate_files.hpp"
#include "outbox/observability/health.hpp"
#include "outbox/observability/registry.hpp"

namespace outbox::observability {

// Every metric the router exports, by name, plus its health state. One per process, created
// before the pipeline and the HTTP server, destroyed after both. Label values: `table` is the
// schema-qualified outbox table ("public.outbox"), or "message:<prefix>" for logical decoding
// messages; `topic` the Kafka topic; `reason` one of "update" (an UPDATE of an outbox row),
// "invalid" (unroutable, errors.tolerance all, no dead-letter topic) and "undeliverable" (Kafka
// refused it, errors.tolerance all, no dead-letter topic).
class Metrics {
    Registry registry_;  // first: the references below point into it

public:
    // `certificates`: the files whose expiry is exported, each read again at every scrape.
    explicit Metrics(std::vector<CertificateFile> certificates = {});
    Metrics(const Metrics&) = delete;
    Metrics& operator=(const Metrics&) = delete;

    // Pipeline thread.
    CounterFamily& events_received;       // {table}: outbox INSERTs (and watched messages) decoded
    Counter& transactions_confirmed;      // transactions whose end LSN was confirmed to PostgreSQL
    Counter& reconnects;
    CounterFamily& events_published;      // {topic}: acknowledged by Kafka
    Counter& producer_errors;             // failed deliveries and librdkafka error callbacks
    Counter& caught_up_flushes;           // rd_kafka_flush() calls made while caught up (linger.ms skipped)
    Counter& schema_registry_unavailable; // times no schema registry URL answered (then a reconnect)
    Gauge& received_lsn;                  // newest WAL position received
    Gauge& confirmed_lsn;                 // last position sent to PostgreSQL as flushed
    Gauge& in_flight_messages;            // handed to librdkafka, not yet acknowledged
    CounterFamily& events_skipped;        // {table, reason}: outbox changes deliberately not published
    Gauge& in_flight_bytes;               // their key + value bytes
    Gauge& pending_transactions;          // received, not yet confirmed
    CounterFamily& events_dead_lettered;  // {table, topic}: invalid rows sent to a dead-letter topic
    Histogram& commit_to_ack_seconds;     // PostgreSQL commit time → Kafka acknowledgement

    // Slot monitor thread (a side SQL connection).
    Gauge& server_wal_lsn;                // pg_current_wal_lsn()
    Gauge& slot_confirmed_flush_lsn;
    Gauge& slot_active;
    Gauge& slot_retained_wal_bytes;       // pg_current_wal_lsn() - restart_lsn
    Gauge& slot_monitor_up;               // 1 while the last query succeeded

    Health health;

    // The server's WAL end minus the confirmed position; 0 while either is unknown.
    std::int64_t lag_bytes() const;

    std::string render() const { return registry_.render(); }
};

}  // namespace outbox::observability
