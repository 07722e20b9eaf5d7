#pragma once

#include <chrono>
#include <set>
#include <string>

#include "broker_cluster.hpp"
#include "kafka_reader.hpp"
#include "outbox/kafka/embedded_cluster.hpp"
#include "pg_server.hpp"
#include "router_process.hpp"

namespace outbox::test {

// One PostgreSQL server, one real Kafka broker and one Kafka-protocol mock cluster per test
// program, each started on first use and stopped at exit. Tests isolate themselves with a
// database and topics of their own.
PgServer& postgres();
BrokerCluster& real_kafka();
// The real broker's settings for this program (one node, auto-creation on, no SASL by default);
// call before the first real_kafka(), e.g. from a global fixture.
void configure_real_kafka(BrokerClusterOptions options);
// librdkafka's mock cluster: for the faults only it can inject (a given error code on a given
// request, a broker set down, a round-trip time).
kafka::EmbeddedCluster& kafka_cluster();
// The cluster router_config() points at: the real broker, or the mock in a program whose
// environment sets OUTBOX_TEST_KAFKA=mock (tests/CMakeLists.txt lists those).
std::string kafka_servers();
std::string work_dir();

// A database with Debezium's sample outbox table (public.outbox) and an unrelated table.
std::string create_outbox_database(const std::string& prefix);
std::string create_outbox_database(PgServer& server, const std::string& prefix);

// The bin/ folder of a PostgreSQL major fetched from Maven Central (tests/postgres-runtime), and
// options for a server of it.
std::string fetched_pg_bin_dir(int major);
PgServerOptions fetched_pg(int major);

// A router config for `database` on the shared server and cluster; `postgres_extra` and
// `top_extra` are appended (already indented for postgres:, top-level respectively).
std::string router_config(const std::string& database, const std::string& postgres_extra = "",
                          const std::string& top_extra = "", const std::string& outbox_section = "");
// The same for any server: `conninfo`, with slot and publication named `database`.
std::string router_config_for(const std::string& conninfo, const std::string& database,
                              const std::string& postgres_extra = "", const std::string& top_extra = "",
                              const std::string& outbox_section = "");

// router_config() on the real broker's SASL listener, events routed to `topic`, logging in as
// kSaslUser with `mechanism` and the password from the environment variable `password_variable`.
std::string sasl_router_config(const std::string& database, const std::string& topic,
                               const std::string& password_variable, const std::string& mechanism);

// A Debezium PostgreSQL connector (Kafka Connect's JSON) for `database` on the shared server, its
// slot and publication named after it, one EventRouter routing to `replacement`, then `extra`
// ("key": "value" entries, comma-first) for `outbox-router import`.
std::string debezium_connector_json(const std::string& database, const std::string& replacement,
                                    const std::string& extra = "");

// INSERT of outbox rows first..first+count-1 of aggregate `type`: id md5(seq), key
// "key-<seq % keys>", payload {"seq": <seq>} so tests can check order and completeness.
std::string outbox_rows_sql(int first, int count, int keys, const std::string& type = "Order");
int seq_of(const ConsumedRecord& record);  // the payload's "seq"

// The distinct payload seqs in `topic`, read again until there are `expected` of them or
// `timeout` passes: a replay puts duplicates in the topic, so a record count can be reached
// before the last distinct event has arrived.
std::set<int> sequences_in(const std::string& topic, std::size_t expected,
                           std::chrono::milliseconds timeout = std::chrono::seconds(120));

// A router process's peak and current resident memory in KiB (VmHWM, VmRSS).
long peak_rss_kib(int pid);

bool contains(const std::string& text, const std::string& needle);
// The last non-empty line of a process's output: where a definite error's cause stands.
std::string last_line(std::string text);

// The slot's confirmed_flush_lsn as a number (0 when the slot is missing).
std::uint64_t confirmed_flush_lsn(const std::string& database, const std::string& slot);
std::uint64_t lsn_value(const std::string& text);

}  // namespace outbox::test
