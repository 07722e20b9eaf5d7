// One outbox row routed end to end (columns to topic, key, value, headers, partition,
// timestamp), with JSON expansion, an envelope, header and partition placements and a topic
// regex: the input is the row's column texts separated by NUL bytes ("\x01" alone is NULL).
// The whole input is also routed as a logical-message outbox event.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "outbox/config/config.hpp"
#include "outbox/connect/column_value.hpp"
#include "outbox/router/outbox_router.hpp"

namespace {

using namespace outbox;

const config::Config& settings() {
    static const config::Config config = config::parse_config(
        "postgres:\n"
        "  conninfo: \"host=localhost\"\n"
        "outbox:\n"
        "  table.expand.json.payload: true\n"
        "  table.field.event.timestamp: created_at\n"
        "  table.fields.additional.placement: \"type:header:eventType,shard:partition,aggregateid:envelope:agg,"
        "created_at:header\"\n"
        "  route.topic.regex: \"(?<kind>[A-Za-z]+)(.*)\"\n"
        "  route.topic.replacement: \"outbox.${kind}.$2\"\n"
        "  message.prefix.include.list: outbox\n"
        "kafka:\n"
        "  bootstrap.servers: \"localhost:9092\"\n",
        "fuzz.yaml");
    return config;
}

const std::vector<pgoutput::RelationColumn> kColumns = {
    {0, "id", router::pg_oid::kUuid, -1},          {0, "aggregatetype", router::pg_oid::kText, -1},
    {0, "aggregateid", router::pg_oid::kText, -1}, {0, "type", router::pg_oid::kText, -1},
    {0, "payload", router::pg_oid::kText, -1},     {0, "shard", 23, -1},
    {0, "created_at", router::pg_oid::kTimestamptz, -1}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static router::OutboxRouter router(settings());
    static const std::shared_ptr<const router::BoundTable> table =
        router.bind({16384, "public", "outbox", 'd', kColumns});
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    std::vector<pgoutput::ColumnValue> values;
    std::size_t start = 0;
    while (values.size() < kColumns.size()) {
        const auto end = input.find('\0', start);
        const std::string_view text = input.substr(start, end == std::string_view::npos ? end : end - start);
        values.push_back(text == "\x01" ? pgoutput::ColumnValue{pgoutput::ValueKind::null, {}}
                                        : pgoutput::ColumnValue{pgoutput::ValueKind::text, text});
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    while (values.size() < kColumns.size()) values.push_back({pgoutput::ValueKind::null, {}});
    const router::TransactionContext txn{0x16B3748, 1700000000000, 42};
    try {
        router.route_insert(*table, values, txn);
    } catch (const DefiniteError&) {
    }
    try {
        router.route_message({true, 0x16B3700, "outbox", input}, txn);
    } catch (const DefiniteError&) {
    }
    return 0;
}
