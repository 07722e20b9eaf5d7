// Side-by-side cases for array columns and domains (issue 37): included by
// test_debezium_side_by_side.cpp inside its namespace, after Case and the connector helpers.
// Each case's `setup` creates its domains in the case's schema before the table.

// Arrays of the element types Debezium maps, with NULL elements, empty arrays and (for element
// types whose converter reads numbers) two-dimensional arrays, whose sub-arrays Debezium's element
// converter finds no number in (null). The key is an array (partitioned by its List text).
inline std::string array_columns() {
    return "id text, aggregatetype text, aggregateid int4[], payload int8[], ta text[], ba boolean[], "
           "i2a int2[] DEFAULT '{1}', fa float8[], f4a real[], na numeric[], n2a numeric(10, 2)[], ua uuid[], da date[], "
           "tsa timestamp[], ts3a timestamp(3)[], tza timestamptz[], ta_time time[], bya bytea[], ja jsonb[], "
           "jsa json[], va varchar[]";
}

inline const char* const kArrayFields[] = {"ta", "ba", "i2a", "fa", "f4a", "na", "n2a", "ua", "da", "tsa", "ts3a",
                                           "tza", "ta_time", "bya", "ja", "jsa", "va"};

inline std::vector<std::string> array_rows(const std::string& table) {
    const std::string insert = "INSERT INTO " + table + " VALUES ";
    return {insert + "('a1', 'x', '{1,2,NULL,-3}', '{9000000000,NULL}', '{\"a b\",\"c\\\"d\",NULL,\"\",\"NULL\"}', "
                     "'{t,f,NULL}', '{-32768,32767}', '{1.5,-0,NaN,Infinity,1e300}', '{0.1,NULL}', '{12.5,NaN,-0.001}', "
                     "'{12.50,-0.01}', '{4d47e190-0402-4048-bc2c-89dd54343cdc,NULL}', '{2024-01-02,1969-12-31,NULL}', "
                     "'{\"2024-01-02 03:04:05.123456\",NULL}', '{\"2024-01-02 03:04:05.123\"}', "
                     "'{\"2024-01-02 03:04:05.5+00\",NULL}', '{03:04:05.25,NULL}', '{\"\\\\x00ff\",NULL}', "
                     "'{\"{\\\"a\\\": 1}\",NULL}', '{\"[1, 2]\"}', '{x,NULL}')",
            insert + "('a2', 'x', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', "
                     "'{}', '{}', '{}', '{}', '{}')",
            insert + "('a3', 'x', '{{1,2},{3,4}}', '[0:1]={5,6}', NULL, '{{t},{f}}', NULL, '{{1.5},{2.5}}', NULL, NULL, "
                     "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"};
}

// Placements of every array column, as headers and (under JSON) envelope fields too.
inline std::string array_placements(bool envelope) {
    std::string placements;
    for (const char* field : kArrayFields)
        placements += std::string(placements.empty() ? "" : ", ") + field + ":header" +
                      (envelope ? std::string(", ") + field + ":envelope" : "");
    return placements;
}

// Domains over the scalar types Debezium maps, a domain over a domain (with a column default,
// which Debezium's schema leaves out for a domain, as for an array), one NOT NULL, and one over an
// array; the key is a domain over integer, the event timestamp a domain over timestamp(3).
inline std::string domain_setup(const std::string& schema) {
    std::string sql;
    for (const auto& [name, base] : std::vector<std::pair<std::string, std::string>>{
             {"pos", "integer CHECK (VALUE > -100)"}, {"pos2", schema + ".pos"}, {"flag", "boolean"}, {"money2", "numeric(10, 2)"},
             {"num", "numeric"}, {"ts3", "timestamp(3)"}, {"tstz", "timestamptz"}, {"day", "date"},
             {"blob", "bytea"}, {"dbl", "float8"}, {"ints", "integer[]"}, {"big_nn", "bigint NOT NULL"},
             {"tag", "text"}})
        sql += "CREATE DOMAIN " + schema + "." + name + " AS " + base + "; ";
    return sql;
}

inline std::string domain_columns(const std::string& schema) {
    const auto d = [&](const char* name) { return schema + "." + name; };
    return "id text, aggregatetype text, aggregateid " + d("pos") + ", payload text, at " + d("ts3") + ", flag " +
           d("flag") + ", m2 " + d("money2") + ", n " + d("num") + ", tz " + d("tstz") + ", day " + d("day") +
           ", blob " + d("blob") + ", dbl " + d("dbl") + ", ints " + d("ints") + ", p2 " + d("pos2") + " DEFAULT 5, big " +
           d("big_nn") + ", tag " + d("tag");
}

inline const char* const kDomainFields[] = {"flag", "m2", "n", "tz", "day", "blob", "dbl", "ints", "p2", "big", "tag", "at"};

inline std::vector<std::string> domain_rows(const std::string& table) {
    const std::string insert = "INSERT INTO " + table + " VALUES ";
    return {insert + "('d1', 'x', 42, 'p', '2024-01-02 03:04:05.123', true, 12.50, 3.14159, "
                     "'2024-01-02 08:34:05.5+05:30', '2024-01-02', '\\x00ff', 1.5, '{1,NULL,-3}', 7, 9000000000, 't')",
            insert + "('d2', 'x', -7, 'p', '1999-12-31 23:59:59.999', false, -0.01, 0, '1969-12-31 23:59:59.999999+00', "
                     "'1960-01-01', '\\x', -0.0, '{}', -1, -1, '')",
            insert + "('d3', 'x', 0, NULL, '2000-01-01 00:00:00', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                     "0, NULL)"};
}

inline std::string domain_placements(bool envelope, bool key_header) {
    std::string placements = key_header ? "aggregateid:header:key_copy" : "";
    for (const char* field : kDomainFields)
        placements += std::string(placements.empty() ? "" : ", ") + field + ":header" +
                      (envelope ? std::string(", ") + field + ":envelope" : "");
    return placements;
}

// Arrays of the extensions' hstore, citext and ltree and of timetz (issue 37): elements needing
// quotes, NULL elements, empty elements and arrays, and (where Debezium's element converter finds
// no value in a sub-array: null) two-dimensional arrays. An ltree[] holding a NULL element is null
// in Debezium's record (its ltree[] converter fails on the null, and the default
// event.converting.failure.handling.mode leaves the column null). A timetz[] element is a
// java.sql.Time for Debezium: whole seconds of the day in UTC.
inline const std::string kExtArrayColumns =
    "id text, aggregatetype text, aggregateid text, payload text, ha hstore[], ca citext[], la ltree[], "
    "tta timetz[], tt3a timetz(3)[]";

inline const char* const kExtArrayFields[] = {"ha", "ca", "la", "tta", "tt3a"};

inline std::vector<std::string> ext_array_rows(const std::string& table) {
    const std::string insert = "INSERT INTO " + table + " VALUES ";
    return {insert + "('e1', 'x', 'k1', 'p', ARRAY['\"a\"=>\"1\", \"b\"=>NULL, \"zz\"=>\"x\"'::hstore, "
                     "hstore('k,1 x', 'v \"q\" => \\y'), NULL, ''::hstore, hstore('é😀', '{}')], "
                     "ARRAY['MiXeD Case', 'a,b', ' lead', 'q\"uote', 'back\\slash', NULL, '', 'NULL', '{br}', "
                     "'é😀']::citext[], ARRAY['Top.Science.Astronomy', 'a.b_c.d1', '', 'X_1']::ltree[], "
                     "ARRAY['03:04:05.25+02', '23:59:59.999999-03:30', '00:00:00+00', '24:00:00+00', NULL, "
                     "'12:00:00.5+05:45', '01:02:03.000001-14', '10:00:00+01:02:03', '00:30:00.75+01']::timetz[], "
                     "ARRAY['03:04:05.1239+02', NULL]::timetz(3)[])",
            insert + "('e2', 'x', 'k2', 'p', '{}', '{}', '{}', '{}', '{}')",
            insert + "('e3', 'x', 'k3', 'p', ARRAY[ARRAY['a=>1'::hstore], ARRAY['b=>2'::hstore]], "
                     "ARRAY[ARRAY['a', 'b'], ARRAY['c', NULL]]::citext[], ARRAY['a', NULL]::ltree[], "
                     "ARRAY[ARRAY['01:02:03+00'], ARRAY['04:05:06-01']]::timetz[], NULL)",
            insert + "('e4', 'x', 'k4', 'p', '{NULL}', '{NULL}', '{NULL}', '{NULL}', NULL)"};
}

inline std::string ext_array_placements(bool envelope, bool header) {
    std::string placements;
    for (const char* field : kExtArrayFields) {
        if (header) placements += std::string(placements.empty() ? "" : ", ") + field + ":header";
        if (envelope) placements += std::string(placements.empty() ? "" : ", ") + field + ":envelope";
    }
    return placements;
}

// Under each connector, with an array of each kind as the key (never the ltree[], which is null
// for the rows holding a NULL element: a null key lands on another partition in each producer).
inline std::vector<Case> ext_array_cases() {
    struct Kind {
        const char* name;
        Connector connector;
        const char* key;
        bool envelope;
        bool header;
    };
    const Kind kinds[] = {{"ext_arrays_string", Connector::string, "ca", false, true},
                          {"ext_arrays_struct", Connector::string, "tta", true, false},
                          {"ext_arrays_json", Connector::json, "tta", true, true},
                          {"ext_arrays_modes", Connector::string_modes, "ha", false, true},
                          {"ext_arrays_json_modes", Connector::json_modes, "ha", true, true},
                          {"ext_arrays_schemas", Connector::json_schemas, "ca", true, true}};
    std::vector<Case> cases;
    for (const auto& kind : kinds)
        cases.push_back({kind.name,
                         kExtArrayColumns,
                         {{"table.fields.additional.placement", ext_array_placements(kind.envelope, kind.header)},
                          {"table.field.event.key", kind.key},
                          {"route.topic.replacement", std::string("sbs.") + kind.name}},
                         kind.connector,
                         ext_array_rows(std::string(kind.name) + ".outbox"),
                         {{std::string("sbs.") + kind.name, 4}}});
    return cases;
}

// A primary-key UPDATE of a row whose arrays are stored out of line and unchanged: Debezium's
// placeholder list for text[], jsonb[], int4[], int8[], date[] (an io.debezium.time.Date only),
// bytea[] (bytes only) and uuid[] (the placeholder's name UUID), null for the others (hstore[],
// citext[], ltree[], timetz[], smallint[], a domain over text[]), also as the key.
inline const char* const kToastArrayFields[] = {"ha", "ca", "la", "tta", "ta", "ja", "ia", "i8a", "da", "ya", "ua", "sa", "dta"};

inline Case toast_array_case(const std::string& name, Connector connector) {
    const std::string table = name + ".outbox";
    std::string placements, storage;
    for (const char* field : kToastArrayFields) {
        placements += std::string(placements.empty() ? "" : ", ") + field + ":header" +
                      (writes_json(connector) ? std::string(", ") + field + ":envelope" : "");
        storage += std::string(storage.empty() ? "" : ", ") + "ALTER COLUMN " + field + " SET STORAGE EXTERNAL";
    }
    return {name,
            "id text PRIMARY KEY, aggregatetype text, aggregateid text, payload text, ha hstore[], ca citext[], "
            "la ltree[], tta timetz[], ta text[], ja jsonb[], ia int4[], i8a int8[], da date[], ya bytea[], ua uuid[], "
            "sa smallint[], dta " + name + ".texts",
            {{"table.fields.additional.placement", placements},
             {"table.field.event.key", "ta"},
             {"route.topic.replacement", "sbs." + name}},
            connector,
            {"ALTER TABLE " + table + " " + storage,
             "INSERT INTO " + table + " VALUES ('t1', 'x', 'k1', 'p', ARRAY[hstore('big', repeat('h', 3000))], "
                                      "ARRAY[repeat('C', 3000)]::citext[], "
                                      "ARRAY[array_to_string(array_fill('l'::text, ARRAY[1500]), '.')]::ltree[], "
                                      "array_fill('01:02:03+00'::timetz, ARRAY[300]), ARRAY[repeat('t', 3000)], "
                                      "ARRAY[to_jsonb(repeat('j', 3000))], array_fill(7, ARRAY[1000]), "
                                      "array_fill(7::int8, ARRAY[500]), array_fill('2024-01-02'::date, ARRAY[1000]), "
                                      "ARRAY[decode(repeat('ab', 3000), 'hex')], "
                                      "array_fill('4d47e190-0402-4048-bc2c-89dd54343cdc'::uuid, ARRAY[200]), "
                                      "array_fill(7::int2, ARRAY[2000]), ARRAY[repeat('d', 3000)])",
             "UPDATE " + table + " SET id = 't2' WHERE id = 't1'"},
            {{"sbs." + name, 2}}};
}

// Two- and three-dimensional arrays of the types whose converters find no value in a Java
// sub-array, in every mode (also where their schema is a string: isostring dates and times,
// decimal.handling.mode string, Base64 bytes, timestamptz): nulls.
inline const char* const kMultiDimensionalFields[] = {"da", "tma", "tsa", "ts3a", "tza", "na", "n2a", "bya"};

inline Case multi_dimensional_case(const std::string& name, Connector connector) {
    std::string placements;
    for (const char* field : kMultiDimensionalFields)
        placements += std::string(placements.empty() ? "" : ", ") + field + ":header" +
                      (writes_json(connector) ? std::string(", ") + field + ":envelope" : "");
    const std::string insert = "INSERT INTO " + name + ".outbox VALUES ";
    return {name,
            "id text, aggregatetype text, aggregateid text, payload text, da date[], tma time[], tsa timestamp[], "
            "ts3a timestamp(3)[], tza timestamptz[], na numeric[], n2a numeric(10, 2)[], bya bytea[]",
            {{"table.fields.additional.placement", placements}, {"route.topic.replacement", "sbs." + name}},
            connector,
            {insert + "('m1', 'x', 'k1', 'p', '{{2024-01-02},{2024-01-03}}', '{{03:04:05},{04:05:06.5}}', "
                      "'{{\"2024-01-02 03:04:05\"},{\"2024-01-02 03:04:06\"}}', '{{\"2024-01-02 03:04:05.1\",NULL}}', "
                      "'{{\"2024-01-02 03:04:05+00\"},{\"2024-01-02 03:04:06+02\"}}', '{{1.5},{2.5}}', '{{12.50}}', "
                      "'{{\"\\\\x01\"},{\"\\\\x02\"}}')",
             insert + "('m2', 'x', 'k2', 'p', '{{{2024-01-02}}}', '{{{03:04:05}}}', NULL, NULL, "
                      "'{{{\"2024-01-02 03:04:05+00\"}}}', '{{{1}}}', NULL, '{{{\"\\\\x\"}}}')"},
            {{"sbs." + name, 2}}};
}

// An enum (labels with a blank, a quote and a comma) and an array of it: io.debezium.data.Enum
// with its labels, an array of required Enums, so one holding a NULL element is null.
inline Case enum_case(const std::string& name, Connector connector) {
    std::string placements = "e:header, ea:header";
    if (writes_json(connector) || connector == Connector::string) placements += ", e:envelope, ea:envelope";
    const std::string insert = "INSERT INTO " + name + ".outbox VALUES ";
    Case c{name,
           "id text, aggregatetype text, aggregateid text, payload text, e " + name + ".mood, ea " + name + ".mood[]",
           {{"table.fields.additional.placement", placements},
            {"table.field.event.key", "e"},
            {"route.topic.replacement", "sbs." + name}},
           connector,
           {insert + "('n1', 'x', 'k1', 'p', 'happy', '{sad,happy,\"so so\",\"x\\\"y\",\"a,b\"}'), "
                     "('n2', 'x', 'k2', 'p', 'so so', '{sad,NULL}'), ('n3', 'x', 'k3', 'p', 'a,b', '{}'), "
                     "('n4', 'x', 'k4', 'p', 'x\"y', NULL)"},
           {{"sbs." + name, 4}}};
    c.setup = "CREATE TYPE " + name + ".mood AS ENUM ('sad', 'ok', 'happy', 'so so', 'x\"y', 'a,b'); ";
    return c;
}

inline std::vector<Case> array_domain_cases() {
    std::vector<Case> cases;
    const std::pair<const char*, Connector> array_connectors[] = {{"arrays_string", Connector::string},
                                                                  {"arrays_json", Connector::json},
                                                                  {"arrays_modes", Connector::string_modes},
                                                                  {"arrays_json_modes", Connector::json_modes},
                                                                  {"arrays_schemas", Connector::json_schemas}};
    for (const auto& [name, connector] : array_connectors) {
        Case c{name, array_columns(),
               {{"table.fields.additional.placement", array_placements(writes_json(connector))},
                {"route.topic.replacement", std::string("sbs.") + name}},
               connector, array_rows(std::string(name) + ".outbox"), {{std::string("sbs.") + name, 3}}};
        cases.push_back(std::move(c));
    }
    const std::pair<const char*, Connector> domain_connectors[] = {{"domains_string", Connector::string},
                                                                   {"domains_json", Connector::json},
                                                                   {"domains_modes", Connector::string_modes},
                                                                   {"domains_json_modes", Connector::json_modes},
                                                                   {"domains_schemas", Connector::json_schemas}};
    for (const auto& [name, connector] : domain_connectors) {
        // Debezium's EventRouter reads table.field.event.timestamp as an int64 (the adaptive
        // modes): under connect and isostring its task fails on any timestamp column.
        const bool adaptive = column_modes(connector).empty();
        Case c{name, domain_columns(name),
               {{"table.fields.additional.placement", domain_placements(writes_json(connector), true)},
                {"route.topic.replacement", std::string("sbs.") + name}},
               connector, domain_rows(std::string(name) + ".outbox"), {{std::string("sbs.") + name, 3}}, adaptive};
        if (adaptive) c.options.push_back({"table.field.event.timestamp", "at"});
        c.setup = domain_setup(name);
        cases.push_back(std::move(c));
    }
    // A domain over an array as the payload, and a domain over bytea as the key.
    Case payload{"domain_payload", "id text, aggregatetype text, aggregateid domain_payload.blob, "
                                   "payload domain_payload.ints",
                 {{"route.topic.replacement", "sbs.domain_payload"}},
                 Connector::json,
                 {"INSERT INTO domain_payload.outbox VALUES ('q1', 'x', '\\x0102', '{1,2,NULL}'), "
                  "('q2', 'x', '\\x', '{}')"},
                 {{"sbs.domain_payload", 2}}};
    payload.setup = domain_setup("domain_payload");
    cases.push_back(std::move(payload));
    for (auto& c : ext_array_cases()) cases.push_back(std::move(c));
    for (const auto& [name, connector] : std::vector<std::pair<std::string, Connector>>{
             {"arrays_2d_json", Connector::json},
             {"arrays_2d_modes", Connector::string_modes},
             {"arrays_2d_json_modes", Connector::json_modes},
             {"arrays_2d_schemas", Connector::json_schemas}})
        cases.push_back(multi_dimensional_case(name, connector));
    for (const auto& [name, connector] : std::vector<std::pair<std::string, Connector>>{
             {"enums_string", Connector::string}, {"enums_json", Connector::json}, {"enums_schemas", Connector::json_schemas}})
        cases.push_back(enum_case(name, connector));
    const std::pair<const char*, Connector> toast_connectors[] = {{"toast_arrays_string", Connector::string},
                                                                  {"toast_arrays_json", Connector::json},
                                                                  {"toast_arrays_modes", Connector::string_modes},
                                                                  {"toast_arrays_json_modes", Connector::json_modes},
                                                                  {"toast_arrays_schemas", Connector::json_schemas}};
    for (const auto& [name, connector] : toast_connectors) {
        cases.push_back(toast_array_case(name, connector));
        cases.back().setup = "CREATE DOMAIN " + std::string(name) + ".texts AS text[]; ";
    }
    return cases;
}
