#include "outbox/router/outbox_router.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include "outbox/router/event_router.hpp"
#include "outbox/router/message_row.hpp"
#include "outbox/util/log.hpp"

namespace outbox::router {
namespace {

class BoundOutboxTable final : public BoundTable {
public:
    BoundOutboxTable(OutboxTable table, EventRouter& router) : table_(std::move(table)), router_(&router) {}
    const config::TableName& name() const override { return table_.name; }
    const OutboxTable& table() const { return table_; }
    EventRouter& router() const { return *router_; }

private:
    OutboxTable table_;
    EventRouter* router_;
};

// A table.overrides entry for a table the router does not stream would silently do nothing.
void check_overrides(const config::Config& config) {
    const auto& tables = config.postgres.tables;
    for (const auto& table_override : config.outbox.table_overrides)
        if (std::find(tables.begin(), tables.end(), table_override.table) == tables.end())
            throw ConfigError(table_override.location.describe() + ": outbox.table.overrides: " +
                              table_override.table.qualified() + " is not in postgres.table.include.list");
}

// A version 4 UUID in its text form: this process run's id in Debezium's context headers.
std::string random_uuid() {
    std::random_device device;
    std::mt19937_64 generator((static_cast<std::uint64_t>(device()) << 32) ^ device());
    std::uint64_t high = generator(), low = generator();
    high = (high & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
    low = (low & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
    char text[37];
    std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                  static_cast<unsigned>((high >> 16) & 0xFFFF), static_cast<unsigned>(high & 0xFFFF),
                  static_cast<unsigned>(low >> 48), static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
    return text;
}

}  // namespace

struct OutboxRouter::Impl {
    explicit Impl(const config::Config& config)
        : config(config), run_id(random_uuid()), shared(config.outbox, config.format, run_id) {
        check_overrides(config);
        for (const auto& table_override : config.outbox.table_overrides)
            overrides.emplace_back(table_override.table,
                                   std::make_unique<EventRouter>(table_override.settings, config.format, run_id));
        for (const auto& prefix : config.outbox.message_prefixes)
            messages.push_back(OutboxTable::for_message_prefix(prefix));
    }

    EventRouter& router_for(const config::TableName& table) {
        for (auto& [name, router] : overrides)
            if (name == table) return *router;
        return shared;
    }

    bool converted_differ(const NotNullFallback& before, const ColumnType& type, std::string_view after) const {
        // Under binary.handling.mode bytes the fallback is a byte[] and a value a ByteBuffer, which
        // Struct.equals never finds equal.
        if (type.kind == ValueType::bytea && values.modes().binary == config::BinaryHandlingMode::bytes) return true;
        std::string a, b;
        try {
            values.append_json(a, before.type, before.text);
            values.append_json(b, type, after);
        } catch (const ValueError&) {
            return true;
        }
        return a != b;
    }

    OutboxTable* message_source(std::string_view prefix) {
        const auto found = std::find_if(messages.begin(), messages.end(),
                                        [&](const OutboxTable& source) { return source.name.name == prefix; });
        return found == messages.end() ? nullptr : &*found;
    }

    const config::Config& config;
    const std::string run_id;
    EventRouter shared;
    std::vector<std::pair<config::TableName, std::unique_ptr<EventRouter>>> overrides;
    std::vector<OutboxTable> messages;  // one per watched prefix, re-bound for every message
    MessageRow message_row;
    ColumnCatalog catalog;
    TypeCatalog type_catalog;
    ConnectValueWriter values{config.format.modes};  // for the catalog's defaults
};

OutboxRouter::OutboxRouter(const config::Config& config) : impl_(std::make_unique<Impl>(config)) {}
OutboxRouter::~OutboxRouter() = default;

std::shared_ptr<const BoundTable> OutboxRouter::bind(const pgoutput::Relation& relation) {
    const config::TableName name{std::string(relation.nspname), std::string(relation.relname)};
    const auto& tables = impl_->config.postgres.tables;
    if (std::find(tables.begin(), tables.end(), name) == tables.end()) return nullptr;
    EventRouter& router = impl_->router_for(name);
    const bool builtin_types = std::all_of(relation.columns.begin(), relation.columns.end(),
                                           [](const auto& column) { return builtin_type(column.type_oid); });
    const PgTypeResolver types = builtin_types || !impl_->type_catalog
                                     ? PgTypeResolver()
                                     : PgTypeResolver(impl_->type_catalog(relation.relid, name));
    OutboxTable table = bind_outbox_table(name, relation, router.settings(), types);
    const auto& format = impl_->config.format;
    const bool schemas = format.key_schemas || format.value_schemas || format.header_schemas;
    if (impl_->catalog && (schemas || table.custom_key))
        describe_columns(table, impl_->catalog(relation.relid, name), impl_->values);
    return std::make_shared<BoundOutboxTable>(std::move(table), router);
}

void OutboxRouter::set_catalog(ColumnCatalog catalog) { impl_->catalog = std::move(catalog); }

void OutboxRouter::set_type_catalog(TypeCatalog catalog) { impl_->type_catalog = std::move(catalog); }

OutboxRecord OutboxRouter::route_insert(const BoundTable& table, pgoutput::Tuple row, const TransactionContext& txn) {
    const auto& bound = static_cast<const BoundOutboxTable&>(table);
    return bound.router().route(bound.table(), row, txn);
}

void OutboxRouter::on_update(const BoundTable& table, const TransactionContext& txn) {
    const auto& bound = static_cast<const BoundOutboxTable&>(table);
    const std::string what = "UPDATE on outbox table " + table.name().qualified() +
                             " in the transaction committing at LSN " + format_lsn(txn.commit_lsn) +
                             ": outbox rows are events and are only ever inserted";
    switch (bound.router().settings().op_invalid_behavior) {
        case config::InvalidOpBehavior::warn:
            log::warn("skipping " + what + " (table.op.invalid.behavior: warn)");
            return;
        case config::InvalidOpBehavior::error:
            log::error("skipping " + what + " (table.op.invalid.behavior: error)");
            return;
        case config::InvalidOpBehavior::fatal:
            throw DefiniteError(what + "; stopping because table.op.invalid.behavior is fatal");
    }
}

bool OutboxRouter::changes_key(const BoundTable& table, const pgoutput::Update& update) const {
    const auto& bound = static_cast<const BoundOutboxTable&>(table);
    // 'O' (REPLICA IDENTITY FULL) flags every column, so only message.key.columns names the key
    // there; without an old tuple Debezium has no old key, and the UPDATE is an update.
    if (update.old_tuple_kind != 'K' && !(bound.table().custom_key && update.old_tuple_kind == 'O')) return false;
    for (const auto& column : bound.table().key_columns) {
        if (column.index >= update.old_tuple.size() || column.index >= update.new_tuple.size()) return false;
        const auto& before = update.old_tuple[column.index];
        const auto& after = update.new_tuple[column.index];
        if (after.kind == pgoutput::ValueKind::unchanged_toast) continue;
        if (before.kind != pgoutput::ValueKind::text && column.when_absent && after.kind == pgoutput::ValueKind::text) {
            // Debezium compares the old key's fallback (or default) with the new value, as values.
            if (impl_->converted_differ(*column.when_absent, column.type, after.data)) return true;
            continue;
        }
        if (before.kind != after.kind || before.data != after.data) return true;
    }
    return false;
}

OutboxRecord OutboxRouter::route_key_change(const BoundTable& table, const pgoutput::Update& update,
                                            const TransactionContext& txn) {
    const auto& bound = static_cast<const BoundOutboxTable&>(table);
    return bound.router().route_key_change(bound.table(), update.old_tuple, update.new_tuple, txn);
}

bool OutboxRouter::watches_prefix(std::string_view prefix) const { return impl_->message_source(prefix) != nullptr; }

OutboxRecord OutboxRouter::route_message(const pgoutput::LogicalMessage& message, const TransactionContext& txn) {
    OutboxTable* source = impl_->message_source(message.prefix);
    // `position` is "at LSN x" or "transaction committing at LSN x".
    const auto refuse = [&](const std::string& position, const std::string& cause) {
        return InvalidRowError(
            "logical decoding message with prefix \"" + std::string(message.prefix) + "\", " + position + ": " + cause,
            "message prefix " + std::string(message.prefix), std::nullopt, std::string(message.content), std::nullopt);
    };
    if (!source)
        throw refuse("at LSN " + format_lsn(message.lsn), "the prefix is not in outbox.message.prefix.include.list");
    if (!message.transactional)
        throw refuse("at LSN " + format_lsn(message.lsn),
                     "it is not transactional (pg_logical_emit_message(false, ...)), so it belongs to no transaction: "
                     "it would be published even if the transaction that emitted it rolled back, and no commit "
                     "confirms it. Emit outbox events with pg_logical_emit_message(true, ...)");
    const config::OutboxSettings& settings = impl_->shared.settings();
    const auto in_transaction = [&] { return "transaction committing at LSN " + format_lsn(txn.commit_lsn); };
    if (const auto malformed = impl_->message_row.parse(message.content, settings.field_event_timestamp))
        throw refuse(in_transaction(), *malformed);
    if (const auto problem = bind_columns(*source, impl_->message_row.columns(), settings))
        throw refuse(in_transaction(), "field \"" + problem->column + "\" (" + problem->option + ") " + problem->cause);
    return impl_->shared.route(*source, impl_->message_row.values(), txn);
}

}  // namespace outbox::router
