#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "outbox/util/log.hpp"

namespace outbox::config {

// Where a setting came from, for error messages ("router.yaml:12").
struct Location {
    std::string file;
    int line = 0;  // 1-based; 0 when the value is a default
    std::string describe() const;  // "file:line" or "file" when line is 0
};

struct TableName {
    std::string schema;  // "public" when the config names only the table
    std::string name;
    std::string qualified() const;  // "schema.name"
    bool operator==(const TableName&) const = default;
};

enum class PublicationAutocreate { filtered, disabled };

struct PostgresSettings {
    std::string conninfo;
    std::string slot_name = "outbox_router";
    std::string publication_name = "outbox_router";
    PublicationAutocreate publication_autocreate = PublicationAutocreate::filtered;
    // publish.via.partition.root; unset: true when an outbox table is partitioned.
    std::optional<bool> publish_via_partition_root;
    std::vector<TableName> tables{{"public", "outbox"}};
    // slot.failover: the slot is synchronized to standbys (PostgreSQL 17 and later); unset: true
    // where the server supports it.
    std::optional<bool> slot_failover;
    // slot.recreate.when.lost: a slot gone while the router runs (dropped, or a failover to a
    // server without it) is logged and created anew, instead of stopping the router.
    bool slot_recreate_when_lost = false;
    int status_update_interval_ms = 1000;
    int receive_timeout_ms = 30000;  // 0: off
    int heartbeat_interval_ms = 0;  // 0: off
    std::string heartbeat_action_query = "SELECT pg_logical_emit_message(true, 'outbox-router-heartbeat', '')";
    int reconnect_backoff_max_ms = 30000;
    Location conninfo_location;
};

// One item of table.fields.additional.placement: `column:placement[:alias]`.
enum class Placement { header, envelope, partition };
struct AdditionalField {
    std::string column;
    Placement placement = Placement::header;
    std::string alias;  // the column name when not given; unused for partition
    bool operator==(const AdditionalField&) const = default;
};

enum class MissingFieldBehavior { error, ignore };        // table.field.additional.missing
enum class InvalidOpBehavior { warn, error, fatal };      // table.op.invalid.behavior
enum class JsonNullBehavior { ignore, optional_bytes };   // table.json.payload.null.behavior
enum class JsonEmptyArrayBehavior { ignore, optional_string };  // table.json.payload.empty.array.behavior

struct OutboxTableOverride;

// One message.key.columns item: the columns of the record key (instead of the replica identity)
// of the tables whose schema.table the pattern (a Java regex) matches.
struct MessageKeyColumns {
    std::string table_pattern;
    std::vector<std::string> columns;
};

// Debezium Outbox Event Router option names and defaults.
struct OutboxSettings {
    std::string route_by_field = "aggregatetype";
    std::string route_topic_regex = "(?<routedByValue>.*)";
    std::string route_topic_replacement = "outbox.event.${routedByValue}";
    bool route_tombstone_on_empty_payload = false;
    std::string field_event_id = "id";
    std::string field_event_key = "aggregateid";
    std::string field_event_payload = "payload";
    std::string field_event_timestamp;  // empty: the transaction's commit time
    std::string tracing_span_context_field = "tracingspancontext";
    std::string field_event_schema_version;  // an integer column: the envelope schema's version
    std::vector<AdditionalField> additional_fields;
    MissingFieldBehavior additional_missing = MissingFieldBehavior::error;
    InvalidOpBehavior op_invalid_behavior = InvalidOpBehavior::warn;
    bool expand_json_payload = false;
    JsonNullBehavior json_null_behavior = JsonNullBehavior::ignore;
    JsonEmptyArrayBehavior json_empty_array_behavior = JsonEmptyArrayBehavior::ignore;
    Location route_topic_regex_location;
    Location route_topic_replacement_location;

    // Set on Config::outbox only (they are not per table).
    std::vector<std::string> message_prefixes;  // message.prefix.include.list; empty: messages are off
    std::vector<MessageKeyColumns> message_key_columns;  // message.key.columns
    std::vector<OutboxTableOverride> table_overrides;

    // The settings in force for `table`: its table.overrides block, else these.
    const OutboxSettings& for_table(const TableName& table) const;
};

// One table.overrides entry: the shared settings with the block's keys replacing theirs.
struct OutboxTableOverride {
    TableName table;
    OutboxSettings settings;
    Location location;
};

// A librdkafka property passed through unchanged.
struct KafkaProperty {
    std::string name;
    std::string value;
    Location location;
};

struct KafkaSettings {
    std::vector<KafkaProperty> properties;  // includes bootstrap.servers when given
    int embedded_brokers = 0;               // >0: start an in-process librdkafka mock cluster
};

// What happens to an event that cannot be delivered (Kafka Connect's errors.tolerance).
enum class ErrorTolerance {
    none,  // a definite error: the router stops without confirming past it
    all,   // dead-lettered (errors.deadletterqueue.topic.name) or skipped and counted
};

// The HTTP endpoint for /metrics, /healthz and /readyz.
struct MetricsSettings {
    std::string listen;  // "host:port" as written; empty: no endpoint
    std::string host;    // without the brackets of an IPv6 address
    std::uint16_t port = 0;
    Location listen_location;
};

struct LogSettings {
    log::Level level = log::Level::info;
    log::Format format = log::Format::text;
    int progress_interval_ms = 30000;  // how often the progress line is logged
};

enum class DeliveryGuarantee {
    at_least_once,  // idempotent producer; duplicates only after a crash
    exactly_once,   // Kafka transactions with the position stored in the offsets topic
};

// The Kafka Connect converter whose bytes the router writes for keys or values.
enum class Converter {
    string,  // StringConverter (the default): text as is; a structure as compact JSON
    json,    // JsonConverter with schemas.enable=false: every value as JSON
    bytes,   // ByteArrayConverter (or Debezium's BinaryDataConverter): bytea columns' raw bytes only
    avro,    // Confluent's (or Apicurio's) AvroConverter: Avro in Confluent's wire format, schemas in a registry
};

// Which registry subject a schema goes under (Confluent's *.subject.name.strategy): the topic's
// "<topic>-key"/"<topic>-value", the record's full name, or "<topic>-<record name>".
enum class SubjectNameStrategy { topic, record, topic_record };

// Debezium's schema.name.adjustment.mode and field.name.adjustment.mode.
enum class NameAdjustmentMode { none, avro, avro_unicode };

// A Confluent AvroConverter's settings (key.converter.* or value.converter.*), with its defaults;
// or those of Apicurio's AvroConverter (apicurio.registry.*) in its default wire format, which is
// Confluent's with Apicurio's content ids, read through Apicurio's Confluent-compatible API.
struct AvroConverterSettings {
    bool apicurio = false;                   // io.apicurio.registry.utils.converter.AvroConverter
    std::vector<std::string> registry_urls;  // schema.registry.url: tried in order, the next on failure
    std::string user_info;                   // basic.auth.user.info (user:password), a secret
    std::string bearer_token;                // bearer.auth.token, a secret
    std::string ca_location;                 // schema.registry.ssl.truststore.location (PEM)
    std::string certificate_location;        // schema.registry.ssl.keystore.location (PEM: certificate and key)
    std::string key_password;                // schema.registry.ssl.key.password, a secret
    bool auto_register = true;               // auto.register.schemas (Apicurio: apicurio.registry.auto-register)
    // use.latest.version (Apicurio: apicurio.registry.find-latest), with auto_register false: the
    // subject's latest version and its id, which must encode as the record's schema does.
    bool use_latest_version = false;
    bool latest_compatibility_strict = true;  // latest.compatibility.strict
    SubjectNameStrategy subject_strategy = SubjectNameStrategy::topic;
    bool connect_meta_data = true;         // connect.meta.data
    bool enhanced_schema_support = false;  // enhanced.avro.schema.support
    int request_timeout_ms = 10000;        // schema.registry.request.timeout.ms (bounds each request)
    int cache_capacity = 1000;             // schemas.cache.config: distinct schemas remembered
    Location location;                     // where the converter was named
    // The first setting only Confluent's converter reads, and the first of Apicurio's
    // (apicurio.registry.*): the one foreign to the converter named is refused.
    std::optional<std::pair<Location, std::string>> confluent_setting;
    std::optional<std::pair<Location, std::string>> apicurio_setting;
    std::optional<bool> apicurio_auto_register;  // apicurio.registry.auto-register (its default false)
    std::string apicurio_username;               // apicurio.registry.auth.username
    std::string apicurio_password;               // apicurio.registry.auth.password, a secret
};

// How Debezium's PostgreSQL connector represents temporal, numeric and bytea columns: its
// time.precision.mode, decimal.handling.mode and binary.handling.mode, with its defaults.
enum class TimePrecisionMode { adaptive, adaptive_time_microseconds, connect, isostring };
enum class DecimalHandlingMode { precise, as_double, as_string };
enum class BinaryHandlingMode { bytes, base64, base64_url_safe, hex };
enum class IntervalHandlingMode { numeric, string };  // MicroDuration or io.debezium.time.Interval
enum class HStoreHandlingMode { json, map };          // io.debezium.data.Json text or a Connect map
struct ValueModes {
    TimePrecisionMode time = TimePrecisionMode::adaptive;
    DecimalHandlingMode decimal = DecimalHandlingMode::precise;
    BinaryHandlingMode binary = BinaryHandlingMode::bytes;
    IntervalHandlingMode interval = IntervalHandlingMode::numeric;
    HStoreHandlingMode hstore = HStoreHandlingMode::json;
    int money_fraction_digits = 2;  // money.fraction.digits: a money Decimal's scale
    // unavailable.value.placeholder: what Debezium writes for an unchanged TOASTed value (one
    // stored out of line that an UPDATE did not change, so pgoutput does not send it).
    std::string unavailable_placeholder = "__debezium_unavailable_value";
};

// Debezium's CloudEventsConverter as value.converter (io.debezium.converters.CloudEventsConverter),
// with JSON events and JSON data; its settings under value.converter.*.
enum class CloudEventsMode {
    structured,  // the event as a JSON envelope in the record's value: Debezium's bytes
    binary,      // ce_* headers and the data as the value (the Kafka protocol binding): the router's own
};
struct CloudEventsSettings {
    bool enabled = false;
    CloudEventsMode mode = CloudEventsMode::structured;  // value.converter.cloudevents.mode
    // metadata.source's id and type: from the outbox's `id` header and the `type` header placement
    // (header), or Debezium's generated type (io.debezium.connector.postgresql.DataChangeEvent).
    bool type_generated = false;
    // json.schemas.enable (Debezium's default true): data as {"schema":…,"payload":…}.
    bool data_schemas = true;
    // extension.attributes.enable (Debezium's default true): iodebeziumop and Debezium's source
    // block as iodebezium* attributes, with `database` (postgres.conninfo's dbname) as its db.
    bool extension_attributes = true;
    std::string database;
    Location location;  // of value.converter
};

// What Kafka Connect adds to the EventRouter's record: its converters and Debezium's context
// headers (extended.headers.enabled).
struct RecordFormat {
    Converter key = Converter::string;
    Converter value = Converter::string;
    // value.converter set to StringConverter: a structure (envelope, expanded payload) as Connect's
    // Struct.toString(), Debezium's bytes. Unset: as compact JSON, which consumers can read.
    bool value_struct_text = false;
    Converter header = Converter::string;  // SimpleHeaderConverter's text, or JsonConverter's JSON
    // Connect schemas: JsonConverter's schemas.enable (its default true): {"schema": ..., "payload": ...};
    // always with AvroConverter.
    bool key_schemas = false;
    bool value_schemas = false;
    bool header_schemas = false;
    bool context_headers = false;
    std::string topic_prefix;  // topic.prefix: the context headers' connectorLogicalName
    ValueModes modes;
    AvroConverterSettings key_avro;  // with Converter::avro
    AvroConverterSettings value_avro;
    NameAdjustmentMode schema_names = NameAdjustmentMode::none;  // schema.name.adjustment.mode
    NameAdjustmentMode field_names = NameAdjustmentMode::none;   // field.name.adjustment.mode
    CloudEventsSettings cloud_events;  // on: the value (JSON, as `value` writes it) is the events' data
};

// One of Kafka Connect's topic creation groups (KIP-158): which topics it takes (Java regexes
// matched against the whole name; the default group takes every topic) and how they are made.
struct TopicCreationGroup {
    std::string name;  // "default" for the default group
    std::vector<std::string> include;
    std::vector<std::string> exclude;
    int partitions = -1;          // -1: the broker's num.partitions
    int replication_factor = -1;  // -1: the broker's default.replication.factor
    std::vector<std::pair<std::string, std::string>> configs;  // topic configs, e.g. cleanup.policy
    Location location;
};

// Kafka Connect's `topic.creation.*`: on when the default group's partitions and replication
// factor are both given (and topic.creation.enable is not false). Named groups in
// topic.creation.groups order, then the default group.
struct TopicCreation {
    bool enabled = false;
    std::vector<TopicCreationGroup> groups;
};

struct Config {
    std::string source_file;
    PostgresSettings postgres;
    OutboxSettings outbox;
    KafkaSettings kafka;
    int shutdown_timeout_ms = 30000;
    // While the newest transaction reached the router within this many ms of its commit, the
    // router sends what it handed to librdkafka as soon as it has read all the server sent,
    // instead of letting it wait linger.ms for company. 0: records always wait linger.ms.
    int caught_up_lag_ms = 20;
    // Bounds on events handed to Kafka and not yet acknowledged; when reached, the router stops
    // reading WAL (the walsender waits) but keeps serving acknowledgements and status updates.
    long max_inflight_messages = 100000;
    long max_inflight_bytes = 64L * 1024 * 1024;
    ErrorTolerance errors_tolerance = ErrorTolerance::none;
    std::string dead_letter_topic;  // empty: skip and count (with errors.tolerance all)
    DeliveryGuarantee delivery_guarantee = DeliveryGuarantee::at_least_once;
    // exactly-once: where positions are stored, and when a Kafka transaction is committed (at
    // the first PostgreSQL commit after any limit is reached).
    std::string offsets_topic = "outbox-router-offsets";
    long transaction_max_events = 50000;
    long transaction_max_bytes = 16L * 1024 * 1024;
    int transaction_max_ms = 500;
    TopicCreation topic_creation;  // Kafka Connect's topic.creation.*
    RecordFormat format;           // key.converter, value.converter, extended.headers.enabled
    MetricsSettings metrics;
    LogSettings log;
};

// Reads and validates a YAML config file. ${env:NAME} anywhere in a scalar value is replaced
// from the environment, ${file:PATH:KEY} from a properties file (references.hpp; unset or
// missing → ConfigError naming it); other ${...} are kept as written.
// Unknown keys, wrong types and bad values throw ConfigError whose message starts "file:line: ".
Config load_config(const std::string& path);

// Same, from text already in memory; `file_name` is used in messages.
Config parse_config(const std::string& yaml_text, const std::string& file_name);

}  // namespace outbox::config
