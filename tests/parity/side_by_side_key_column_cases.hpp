// Side-by-side cases for message.key.columns naming NOT NULL columns outside the replica identity
// (issue 37): a primary-key UPDATE's old key lacks them, and Debezium writes each one's default
// there, else its type's fallback, in __debezium.oldkey, and compares that old key with the new
// one. Under each header converter and column mode. Included by test_debezium_side_by_side.cpp
// after its Case, Connector and helpers.

namespace {

const std::string kKeyFallbackColumns =
    "id text PRIMARY KEY, aggregatetype text, aggregateid text, payload text, k_int integer NOT NULL, "
    "k_big bigint NOT NULL, k_f8 float8 NOT NULL, k_f4 real NOT NULL, k_bool boolean NOT NULL, k_num numeric NOT NULL, "
    "k_num2 numeric(10, 2) NOT NULL, k_text text NOT NULL, k_date date NOT NULL, "
    "k_time time NOT NULL, k_time3 time(3) NOT NULL, k_ts timestamp NOT NULL, k_ttz timetz NOT NULL, "
    "k_bytea bytea NOT NULL, k_iv interval NOT NULL, k_money money NOT NULL, k_bit bit(1) NOT NULL, "
    "k_vbit varbit(16) NOT NULL, k_arr integer[] NOT NULL, k_tarr text[] NOT NULL, k_point point NOT NULL, "
    "k_hstore hstore NOT NULL, k_citext citext NOT NULL, k_ltree ltree NOT NULL, k_def integer NOT NULL DEFAULT 7, "
    "k_defs text NOT NULL DEFAULT 'dflt', k_now timestamp NOT NULL DEFAULT now(), k_null integer";

const std::string kKeyFallbackKey =
    "k_int,k_big,k_f8,k_f4,k_bool,k_num,k_num2,k_text,k_date,k_time,k_time3,k_ts,k_ttz,k_bytea,k_iv,"
    "k_money,k_bit,k_vbit,k_arr,k_tarr,k_point,k_hstore,k_citext,k_ltree,k_def,k_defs,k_now,k_null";

// Row f1 holds other values: its primary-key UPDATE changes the key (the old key all defaults and
// fallbacks). Row f2 holds every fallback and default: its UPDATE keeps the key, an update both
// drop, but under binary.handling.mode bytes, where a bytea fallback (a byte[]) never equals a
// value (a ByteBuffer) in Debezium's comparison of the keys. A uuid, jsonb, inet, char(n) or timestamptz never equals its fallback (the empty string;
// no fractional digits): their own table.
std::vector<std::string> key_fallback_rows(const std::string& schema) {
    const std::string table = schema + ".outbox";
    return {"INSERT INTO " + table + " VALUES ('f1', 'x', 'k1', 'p', 5, 9000000000, 1.5, -2.5, true, 12.345, 7.25, 'a', "
            "'2024-01-02', '04:05:06.789', '04:05:06.789', '2024-01-02 03:04:05.123456', '04:05:06+02', "
            "'\\x0a1b', '1 day 02:00:00', '$12.50', '1', '101', '{1,NULL,3}', '{a,\"b c\"}', '(1.5,-2)', "
            "'\"a\"=>\"1\"', 'MiXeD', 'top.sci', 8, 'set', '2024-01-02 03:04:05', 1)",
            "UPDATE " + table + " SET id = 'f1-moved' WHERE id = 'f1'",
            "INSERT INTO " + table + " VALUES ('f2', 'x', 'k2', 'p', 0, 0, 0, 0, false, 0, 0, '', '1970-01-01', "
            "'00:00:00', '00:00:00', '1970-01-01 00:00:00', '00:00:00+00', '\\x', '0', '0', '0', '', '{}', '{}', "
            "'(0,0)', '', '', '', 7, 'dflt', '1970-01-01 00:00:00', NULL)",
            "UPDATE " + table + " SET id = 'f2-moved' WHERE id = 'f2'"};
}

const std::string kKeyFallbackOtherColumns =
    "id text PRIMARY KEY, aggregatetype text, aggregateid text, payload text, k_uuid uuid NOT NULL, "
    "k_tz timestamptz NOT NULL, k_tz3 timestamptz(3) NOT NULL, k_tz0 timestamptz(0) NOT NULL, "
    "k_jsonb jsonb NOT NULL, k_inet inet NOT NULL, k_char char(3) NOT NULL";

std::vector<Case> key_column_cases() {
    std::vector<Case> cases;
    const std::vector<std::pair<std::string, Connector>> fallbacks = {{"keyfall_string", Connector::string},
                                                                      {"keyfall_modes", Connector::string_modes},
                                                                      {"keyfall_json", Connector::json_modes},
                                                                      {"keyfall_schemas", Connector::json_schemas}};
    for (const auto& [name, connector] : fallbacks) {
        const bool bytes = connector == Connector::string || connector == Connector::json_schemas;
        Case c{name, kKeyFallbackColumns, {{"route.topic.replacement", "sbs." + name}}, connector,
               key_fallback_rows(name), {{"sbs." + name, bytes ? 4 : 3}}};
        c.key_columns = kKeyFallbackKey;
        cases.push_back(std::move(c));
    }
    for (const auto& [name, connector] : std::vector<std::pair<std::string, Connector>>{
             {"keyfall_other", Connector::string}, {"keyfall_other_json", Connector::json_modes}}) {
        Case c{name, kKeyFallbackOtherColumns, {{"route.topic.replacement", "sbs." + name}}, connector,
               {"INSERT INTO " + name + ".outbox VALUES ('z1', 'x', 'k1', 'p', '00000000-0000-0000-0000-000000000000', "
                "'1970-01-01 00:00:00+00', '1970-01-01 00:00:00+00', '1970-01-01 00:00:00+00', '{}', '0.0.0.0', '')",
                "UPDATE " + name + ".outbox SET id = 'z1-moved'"},
               {{"sbs." + name, 2}}};
        c.key_columns = "k_uuid,k_tz,k_tz3,k_tz0,k_jsonb,k_inet,k_char";
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace
