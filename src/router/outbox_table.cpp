#include "outbox/router/outbox_table.hpp"

#include <algorithm>

#include "outbox/util/errors.hpp"

namespace outbox::router {
namespace {

struct RequiredColumn {
    const std::string config::OutboxSettings::*column;
    BoundColumn OutboxTable::*slot;
    const char* option;
};

constexpr RequiredColumn kRequired[] = {
    {&config::OutboxSettings::field_event_id, &OutboxTable::id, "outbox.table.field.event.id"},
    {&config::OutboxSettings::field_event_key, &OutboxTable::key, "outbox.table.field.event.key"},
    {&config::OutboxSettings::field_event_payload, &OutboxTable::payload, "outbox.table.field.event.payload"},
    {&config::OutboxSettings::route_by_field, &OutboxTable::route_by, "outbox.route.by.field"},
};

}  // namespace

OutboxTable bind_outbox_table(const config::TableName& name, const pgoutput::Relation& relation,
                              const config::OutboxSettings& settings) {
    OutboxTable table{.name = name, .id = {}, .key = {}, .payload = {}, .route_by = {}};
    for (const auto& required : kRequired) {
        const std::string& wanted = settings.*required.column;
        const auto found = std::find_if(relation.columns.begin(), relation.columns.end(),
                                        [&](const pgoutput::RelationColumn& c) { return c.name == wanted; });
        if (found == relation.columns.end())
            throw DefiniteError("outbox table " + name.qualified() + " has no column \"" + wanted + "\" (" +
                                required.option + "); the table was altered or the setting is wrong: " +
                                "restore the column or change the setting, then restart");
        table.*required.slot = {wanted, static_cast<std::size_t>(found - relation.columns.begin()), found->type_oid};
    }
    return table;
}

std::vector<std::string> missing_outbox_columns(const std::vector<std::string>& columns,
                                                const config::OutboxSettings& settings) {
    std::vector<std::string> missing;
    for (const auto& required : kRequired) {
        const std::string& wanted = settings.*required.column;
        if (std::find(columns.begin(), columns.end(), wanted) == columns.end())
            missing.push_back("\"" + wanted + "\" (" + required.option + ")");
    }
    return missing;
}

}  // namespace outbox::router
