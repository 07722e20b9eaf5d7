#pragma once

#include "outbox/router/connect_model.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/kafka/record.hpp"
#include "outbox/pgoutput/messages.hpp"
#include "outbox/util/errors.hpp"

#include "outbox/router/column_catalog.hpp"

namespace outbox::router {

using KafkaHeader = kafka::Header;

// The Kafka record an outbox row (or logical decoding message) becomes. Views point into the
// decoded message or into the router's scratch storage: valid until the next route call.
// Headers: "id" first, then header placements in config order.
struct OutboxRecord : kafka::Record {
    std::string_view partition_column;  // the column (or message field) a placed partition came from
};

// The transaction a row belongs to, for timestamps and for error messages.
struct TransactionContext {
    Lsn commit_lsn = 0;
    std::int64_t commit_time_ms = 0;
    std::uint32_t xid = 0;
    // For Debezium's source block (CloudEvents extension attributes): the commit time in
    // microseconds since the Unix epoch, the WAL position of the change being routed (0: unknown,
    // as in a replay), and where the previous transaction of this stream ended (its COMMIT
    // message's position; 0 before the first).
    std::int64_t commit_time_us = 0;
    Lsn change_lsn = 0;
    Lsn previous_commit_lsn = 0;
};

// A row or message that cannot be routed. The message names the table (schema-qualified) or the
// message prefix, the column, the commit LSN and the cause. It keeps what could be read of the
// row so a dead-letter record can carry the original key, value and id.
class InvalidRowError : public DefiniteError {
public:
    InvalidRowError(const std::string& message, std::string source, std::optional<std::string> key,
                    std::optional<std::string> value, std::optional<std::string> id)
        : DefiniteError(message), source(std::move(source)), key(std::move(key)), value(std::move(value)),
          id(std::move(id)) {}
    std::string source;  // "public.outbox" or "message prefix outbox"
    std::optional<std::string> key;
    std::optional<std::string> value;
    std::optional<std::string> id;
};

// An outbox table as the server last described it, resolved against its settings.
class BoundTable {
public:
    virtual ~BoundTable() = default;
    virtual const config::TableName& name() const = 0;
};

// Debezium's Outbox Event Router, for every configured outbox table and message prefix.
class OutboxRouter {
public:
    // Throws ConfigError for settings that cannot work (invalid regex, malformed placements).
    explicit OutboxRouter(const config::Config& config);
    ~OutboxRouter();
    OutboxRouter(const OutboxRouter&) = delete;
    OutboxRouter& operator=(const OutboxRouter&) = delete;

    // Called for every RELATION. nullptr when the relation is not an outbox table. Throws
    // DefiniteError naming table and column when a required column is missing.
    std::shared_ptr<const BoundTable> bind(const pgoutput::Relation& relation);

    // How to read a table's NOT NULL and defaults, which RELATION does not carry. Read on every
    // bind where JsonConverter writes schemas or message.key.columns names the table's key.
    void set_catalog(ColumnCatalog catalog);

    // How to read the types of a table with a column of a non-builtin type (a domain, an
    // extension's type, an array of either). Without it, such a column is text.
    void set_type_catalog(TypeCatalog catalog);

    // An INSERT into a bound outbox table. Throws InvalidRowError when it cannot be routed.
    OutboxRecord route_insert(const BoundTable& table, pgoutput::Tuple row, const TransactionContext& txn);

    // An UPDATE of an outbox row (table.op.invalid.behavior): logs and returns to skip it, or
    // throws DefiniteError under `fatal`.
    void on_update(const BoundTable& table, const TransactionContext& txn);

    // Whether an UPDATE changed the row's replica identity key (pgoutput sends the old key, 'K',
    // then): Debezium emits it as a delete and a create, and routes the create.
    bool changes_key(const BoundTable& table, const pgoutput::Update& update) const;
    // Such an UPDATE's create: the new row routed as an insert, with the old key first as header
    // __debezium.oldkey. Throws InvalidRowError as route_insert.
    OutboxRecord route_key_change(const BoundTable& table, const pgoutput::Update& update, const TransactionContext& txn);

    // Whether a logical decoding message with this prefix is an outbox event.
    bool watches_prefix(std::string_view prefix) const;

    // A logical decoding message with a watched prefix. Throws InvalidRowError for a
    // non-transactional message or malformed content.
    OutboxRecord route_message(const pgoutput::LogicalMessage& message, const TransactionContext& txn);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace outbox::router
