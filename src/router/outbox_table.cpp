#include "outbox/router/outbox_table.hpp"

#include <algorithm>
#include <iterator>

#include "outbox/config/outbox_columns.hpp"
#include "outbox/util/errors.hpp"
#include "outbox/util/java_regex.hpp"

namespace outbox::router {
namespace {

// Where each of config::kRequiredOutboxColumns is bound, in its order.
constexpr BoundColumn OutboxTable::*kRequiredSlots[] = {&OutboxTable::id, &OutboxTable::key, &OutboxTable::payload,
                                                        &OutboxTable::route_by};
static_assert(std::size(kRequiredSlots) == std::size(config::kRequiredOutboxColumns));

constexpr const char* kTimestampOption = config::kTimestampColumnOption;
constexpr const char* kPlacementOption = "outbox.table.fields.additional.placement";

std::optional<BoundColumn> find_column(std::span<const pgoutput::RelationColumn> columns, std::string_view wanted,
                                       const PgTypeResolver& types) {
    const auto found = std::find_if(columns.begin(), columns.end(),
                                    [&](const pgoutput::RelationColumn& c) { return c.name == wanted; });
    if (found == columns.end()) return std::nullopt;
    ColumnType resolved = types.resolve(found->type_oid, found->type_modifier);
    const ValueType kind = resolved.kind;
    return BoundColumn{wanted, static_cast<std::size_t>(found - columns.begin()), kind, std::move(resolved)};
}

}  // namespace

OutboxTable OutboxTable::for_table(const config::TableName& name) {
    OutboxTable table;
    table.name = name;
    table.source = name.qualified();
    table.description = "outbox table " + table.source;
    return table;
}

OutboxTable OutboxTable::for_message_prefix(std::string_view prefix) {
    OutboxTable table;
    table.name = {"", std::string(prefix)};
    table.source = "message prefix " + std::string(prefix);
    table.description = "logical decoding message with prefix \"" + std::string(prefix) + "\"";
    table.column_word = "field";
    return table;
}

std::optional<BindProblem> bind_columns(OutboxTable& table, std::span<const pgoutput::RelationColumn> columns,
                                        const config::OutboxSettings& settings, const PgTypeResolver& types) {
    for (std::size_t i = 0; i < std::size(kRequiredSlots); ++i) {
        const auto& required = config::kRequiredOutboxColumns[i];
        const std::string& wanted = settings.*required.column;
        const auto bound = find_column(columns, wanted, types);
        if (!bound) return BindProblem{BindProblem::Kind::missing, wanted, required.option, "is missing"};
        table.*kRequiredSlots[i] = *bound;
    }
    table.timestamp.reset();
    if (!settings.field_event_timestamp.empty()) {
        table.timestamp = find_column(columns, settings.field_event_timestamp, types);
        if (!table.timestamp)
            return BindProblem{BindProblem::Kind::missing, settings.field_event_timestamp, kTimestampOption,
                               "is missing"};
        const ValueType type = table.timestamp->type;
        if (type != ValueType::timestamp && type != ValueType::timestamptz && type != ValueType::integer &&
            type != ValueType::untyped)
            return BindProblem{BindProblem::Kind::unusable_type, settings.field_event_timestamp, kTimestampOption,
                               std::string("is ") + value_type_name(type) +
                                   ", not a timestamp, timestamptz or integer of epoch milliseconds"};
    }
    table.schema_version.reset();
    if (!settings.field_event_schema_version.empty()) {
        const std::string& name = settings.field_event_schema_version;
        constexpr const char* option = "outbox.table.field.event.schema.version";
        table.schema_version = find_column(columns, name, types);
        if (!table.schema_version) return BindProblem{BindProblem::Kind::missing, name, option, "is missing"};
        if (table.schema_version->type != ValueType::integer && table.schema_version->type != ValueType::untyped)
            return BindProblem{BindProblem::Kind::unusable_type, name, option,
                               std::string("is ") + value_type_name(table.schema_version->type) +
                                   ", not an integer, so it cannot be a schema version"};
    }
    // Optional: rows of a table without it carry no trace context.
    table.tracing_context = find_column(columns, settings.tracing_span_context_field, types);
    table.additional.clear();
    for (const auto& field : settings.additional_fields) {
        auto bound = find_column(columns, field.column, types);
        if (bound && field.placement == config::Placement::partition && bound->type != ValueType::integer &&
            bound->type != ValueType::untyped)
            return BindProblem{
                BindProblem::Kind::unusable_type, field.column, kPlacementOption,
                std::string("is ") + value_type_name(bound->type) + ", not an integer, so it cannot be a partition"};
        table.additional.push_back(bound);
    }
    table.key_columns.clear();
    table.custom_key = false;
    const auto key_column = [&](std::size_t i) {
        return OutboxTable::KeyColumn{std::string(columns[i].name), i,
                                      types.resolve(columns[i].type_oid, columns[i].type_modifier)};
    };
    const std::string qualified = table.name.schema + "." + table.name.name;
    for (const auto& custom : settings.message_key_columns) {
        if (table.name.schema.empty() || !JavaPattern(custom.table_pattern).matches(qualified)) continue;
        for (const auto& name : custom.columns) {
            const auto found = std::find_if(columns.begin(), columns.end(), [&](const auto& c) { return c.name == name; });
            if (found == columns.end())
                return BindProblem{BindProblem::Kind::missing, name, "outbox.message.key.columns", "is missing"};
            table.key_columns.push_back(key_column(static_cast<std::size_t>(found - columns.begin())));
        }
        table.custom_key = true;
        return std::nullopt;
    }
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].flags & 1) table.key_columns.push_back(key_column(i));
    return std::nullopt;
}

OutboxTable bind_outbox_table(const config::TableName& name, const pgoutput::Relation& relation,
                              const config::OutboxSettings& settings, const PgTypeResolver& types) {
    OutboxTable table = OutboxTable::for_table(name);
    if (const auto problem = bind_columns(table, relation.columns, settings, types)) {
        if (problem->kind == BindProblem::Kind::missing)
            throw DefiniteError("outbox table " + name.qualified() + " has no column \"" + problem->column + "\" (" +
                                problem->option + "); the table was altered or the setting is wrong: " +
                                "restore the column or change the setting, then restart");
        throw DefiniteError("outbox table " + name.qualified() + ": column \"" + problem->column + "\" (" +
                            problem->option + ") " + problem->cause +
                            "; change the column or the setting, then restart");
    }
    return table;
}

}  // namespace outbox::router
