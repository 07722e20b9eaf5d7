#include "outbox/router/outbox_router.hpp"

#include <algorithm>

#include "outbox/router/event_router.hpp"
#include "outbox/util/log.hpp"

namespace outbox::router {
namespace {

class BoundOutboxTable final : public BoundTable {
public:
    explicit BoundOutboxTable(OutboxTable table) : table_(std::move(table)) {}
    const config::TableName& name() const override { return table_.name; }
    const OutboxTable& table() const { return table_; }

private:
    OutboxTable table_;
};

}  // namespace

struct OutboxRouter::Impl {
    explicit Impl(const config::Config& config) : config(config), rows(config.outbox) {}
    const config::Config& config;
    EventRouter rows;
};

OutboxRouter::OutboxRouter(const config::Config& config) : impl_(std::make_unique<Impl>(config)) {}
OutboxRouter::~OutboxRouter() = default;

std::shared_ptr<const BoundTable> OutboxRouter::bind(const pgoutput::Relation& relation) {
    const config::TableName name{std::string(relation.nspname), std::string(relation.relname)};
    const auto& tables = impl_->config.postgres.tables;
    if (std::find(tables.begin(), tables.end(), name) == tables.end()) return nullptr;
    return std::make_shared<BoundOutboxTable>(bind_outbox_table(name, relation, impl_->config.outbox));
}

OutboxRecord OutboxRouter::route_insert(const BoundTable& table, pgoutput::Tuple row, const TransactionContext& txn) {
    const auto& bound = static_cast<const BoundOutboxTable&>(table);
    return impl_->rows.route({&bound.table(), txn.commit_lsn}, row, txn.commit_time_ms);
}

void OutboxRouter::on_update(const BoundTable& table, const TransactionContext& txn) {
    log::warn("skipping UPDATE on outbox table " + table.name().qualified() + " in the transaction committing at LSN " +
              format_lsn(txn.commit_lsn) + ": outbox rows are events and are only ever inserted");
}

bool OutboxRouter::watches_prefix(std::string_view) const { return false; }

OutboxRecord OutboxRouter::route_message(const pgoutput::LogicalMessage& message, const TransactionContext& txn) {
    throw InvalidRowError("logical decoding message with prefix \"" + std::string(message.prefix) + "\" at LSN " +
                              format_lsn(txn.commit_lsn) + " is not routed",
                          "message prefix " + std::string(message.prefix), std::nullopt, std::nullopt, std::nullopt);
}

}  // namespace outbox::router
