#pragma once

#include "outbox/router/connect_model.hpp"

#include <array>
#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/router/avro_records.hpp"
#include "outbox/router/cloud_event.hpp"
#include "outbox/router/envelope_schemas.hpp"
#include "outbox/connect/json_expansion.hpp"
#include "outbox/router/outbox_router.hpp"
#include "outbox/router/outbox_table.hpp"
#include "outbox/router/topic_router.hpp"
#include "outbox/router/trace_context.hpp"

namespace outbox::router {

// Debezium's EventRouter for one block of settings (the shared one or a table override): an
// outbox row becomes topic, partition, key, value, headers and timestamp. Keeps the scratch
// storage the records point into, so routing a row allocates nothing in the common case.
class EventRouter {
public:
    // Throws ConfigError for an invalid route.topic.regex or route.topic.replacement. `run_id`
    // is the context headers' runId (one per process, as Debezium's is one per task run).
    EventRouter(const config::OutboxSettings& settings, const config::RecordFormat& format, std::string run_id);
    EventRouter(const EventRouter&) = delete;
    EventRouter& operator=(const EventRouter&) = delete;

    const config::OutboxSettings& settings() const { return settings_; }

    // Routes one INSERTed row (or message) of `table`, which was bound with these settings.
    // Throws InvalidRowError naming the source, column, commit LSN and cause when it cannot be
    // routed. The record's views stay valid until the next call.
    OutboxRecord route(const OutboxTable& table, pgoutput::Tuple row, const TransactionContext& txn);
    // An UPDATE that changed the row's key, which Debezium emits as a delete and a create: the
    // create, routed as an insert of the new row, with the old key first as header
    // __debezium.oldkey.
    OutboxRecord route_key_change(const OutboxTable& table, pgoutput::Tuple old_key, pgoutput::Tuple row,
                                  const TransactionContext& txn);

private:
    struct Row;
    std::optional<std::string_view> converted(const Row& row, const BoundColumn& column, std::string_view option,
                                              std::string& scratch) const;
    std::int64_t event_timestamp(const Row& row) const;
    void append_payload_json(const Row& row, std::optional<std::string_view> payload_text);
    void append_payload_struct_field(const Row& row, std::string_view payload_text);
    std::optional<std::string_view> headers_only_value(const Row& row, std::optional<std::string_view> payload_text);
    bool expanded(const Row& row, std::string_view payload_text);
    void append_trace_headers(const Row& row);
    void require_bytes(const Row& row, const BoundColumn& column, std::string_view option,
                       std::string_view converter) const;
    std::optional<std::string_view> formatted(const Row& row, const BoundColumn& column, std::string_view option,
                                              config::Converter converter, std::optional<std::string_view> text,
                                              std::string& scratch);
    std::optional<std::string_view> header_value(const Row& row, const BoundColumn& column, std::string_view option,
                                                 std::string& scratch) const;
    std::string header_string(std::string_view text) const;
    void append_with_schema(std::string& out, const Row& row, const BoundColumn& column, std::string_view option,
                            std::optional<std::string_view> text) const;
    const EnvelopeSchemas::Envelope& envelope_schema(const Row& row, std::string_view route_by);
    std::optional<std::string_view> avro_key(const Row& row, const std::string& topic);
    std::optional<std::string_view> avro_value(const Row& row, const std::string& topic, std::string_view route_by,
                                               std::optional<std::string_view> payload_text, bool envelope);
    std::string old_key_header(const OutboxTable& table, pgoutput::Tuple old_key) const;
    void as_cloud_event(const Row& row, OutboxRecord& record);

    const config::OutboxSettings& settings_;
    const config::RecordFormat& format_;
    ConnectValueWriter values_;
    EnvelopeSchemas envelope_schemas_;
    std::unique_ptr<AvroRecordSide> avro_key_;    // key.converter AvroConverter
    std::unique_ptr<AvroRecordSide> avro_value_;  // value.converter AvroConverter
    std::string avro_key_scratch_;
    std::string avro_value_scratch_;
    SchemaPtr expanded_schema_;                   // with value schemas: the expanded payload's
    bool payload_expanded_ = false;               // this row's envelope payload was expanded
    const std::string run_id_;
    TopicRouter topics_;
    JsonExpansion expansion_;
    bool envelope_ = false;                   // some field has placement envelope
    std::vector<std::string> envelope_keys_;  // `,"alias":` per additional field
    std::string route_scratch_;
    std::string key_scratch_;
    std::string key_json_scratch_;
    std::string value_json_scratch_;
    std::string id_scratch_;
    std::string payload_scratch_;
    std::string value_scratch_;
    std::string expanded_scratch_;
    std::vector<std::string> header_scratch_;  // per additional field
    const std::array<std::string, 4> context_values_;  // Debezium's context headers, as header.converter writes them
    std::vector<KafkaHeader> headers_;
    std::optional<TraceContext> trace_;  // the row's, which its trace headers point into
    std::string old_key_;                // route_key_change's header value
    bool key_change_ = false;
    const std::string cloud_event_source_;     // "/debezium/postgresql/<topic.prefix>"
    std::optional<std::size_t> type_field_;    // the additional field placed as header `type`
    std::string cloud_event_scratch_;
    std::string cloud_event_data_;  // with data schemas: the data Debezium's converter writes
    BinaryHeaders cloud_event_headers_;

};

}  // namespace outbox::router
