#include "outbox_source.hpp"

#include "harness.hpp"

namespace outbox::test {

OutboxSource outbox_source(const std::string& prefix) {
    OutboxSource source{create_outbox_database(prefix), nullptr};
    source.sql = std::make_unique<Sql>(postgres().conninfo(source.db));
    source.sql->exec("CREATE PUBLICATION " + source.db + " FOR TABLE outbox");
    source.sql->exec("SELECT pg_create_logical_replication_slot('" + source.db + "', 'pgoutput')");
    return source;
}

std::string padded_rows_sql(int count, int pad_bytes) {
    return "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload) SELECT gen_random_uuid(), 'Order', "
           "'key-' || (s % 7), 'Created', jsonb_build_object('seq', s, 'pad', repeat('x', " +
           std::to_string(pad_bytes) + ")) FROM generate_series(1, " + std::to_string(count) + ") s";
}

}  // namespace outbox::test
