#define BOOST_TEST_MODULE pg_types
#include <boost/test/unit_test.hpp>

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/pg_type_resolver.hpp"

using namespace outbox::connect;

namespace {

CatalogType domain(std::uint32_t oid, std::string name, std::uint32_t base, std::int32_t base_modifier = -1) {
    return {oid, std::move(name), "public", 'd', 'N', base, base_modifier, 0};
}

CatalogType array_type(std::uint32_t oid, std::string name, std::uint32_t element) {
    return {oid, std::move(name), "public", 'b', 'A', 0, -1, element};
}

CatalogType extension_type(std::uint32_t oid, std::string name) { return {oid, std::move(name), "public", 'b', 'U', 0, -1, 0}; }

}  // namespace

BOOST_AUTO_TEST_CASE(builtin_types_resolve_without_the_catalog) {
    const PgTypeResolver types;
    const ColumnType int4 = types.resolve(pg_oid::kInt4, -1);
    BOOST_TEST((int4.kind == ValueType::integer));
    BOOST_TEST(int4.oid == pg_oid::kInt4);
    BOOST_TEST(!int4.element);
    BOOST_TEST(int4.name.empty());
    // numeric(10,2)[]: the array's modifier is its elements'.
    const std::int32_t numeric_10_2 = (10 << 16 | 2) + 4;
    const ColumnType numerics = types.resolve(1231, numeric_10_2);
    BOOST_TEST((numerics.kind == ValueType::array));
    BOOST_REQUIRE(numerics.element);
    BOOST_TEST((numerics.element->kind == ValueType::numeric));
    BOOST_TEST(numerics.element->numeric_scale() == 2);
    BOOST_TEST(numerics.element->numeric_precision() == 10);
    for (const auto [array, element] : {std::pair{1000u, pg_oid::kBool}, {1001u, pg_oid::kBytea}, {1005u, pg_oid::kInt2},
                                        {1007u, pg_oid::kInt4}, {1009u, pg_oid::kText}, {1016u, pg_oid::kInt8},
                                        {1021u, pg_oid::kFloat4}, {1022u, pg_oid::kFloat8}, {1115u, pg_oid::kTimestamp},
                                        {1182u, pg_oid::kDate}, {1183u, pg_oid::kTime}, {1185u, pg_oid::kTimestamptz},
                                        {1231u, pg_oid::kNumeric}, {2951u, pg_oid::kUuid}, {3807u, pg_oid::kJsonb},
                                        {199u, pg_oid::kJson}, {1015u, pg_oid::kVarchar}, {1270u, pg_oid::kTimetz}}) {
        BOOST_TEST(builtin_array_element(array) == element);
        BOOST_TEST((types.resolve(array, -1).element->kind == value_type(element)));
    }
    BOOST_TEST(builtin_array_element(pg_oid::kInt4) == 0u);
    BOOST_TEST(builtin_type(16383));
    BOOST_TEST(!builtin_type(kFirstNormalObjectId));
    // An OID only the catalog explains, without it: text, as before.
    BOOST_TEST((types.resolve(16500, -1).kind == ValueType::text));
}

BOOST_AUTO_TEST_CASE(domains_resolve_to_their_base_type_with_the_domain_modifier) {
    const std::int32_t numeric_10_2 = (10 << 16 | 2) + 4;
    const PgTypeResolver types({domain(16400, "positive", pg_oid::kInt4), domain(16401, "money2", pg_oid::kNumeric, numeric_10_2),
                                domain(16402, "event_time", pg_oid::kTimestamp, 3),
                                domain(16403, "strictly_positive", 16400),  // a domain over a domain
                                domain(16404, "int_list", 1007),            // a domain over int4[]
                                array_type(16405, "_positive", 16400),      // positive[]
                                domain(16406, "cycle_a", 16407), domain(16407, "cycle_b", 16406)});
    const ColumnType positive = types.resolve(16400, -1);
    BOOST_TEST((positive.kind == ValueType::integer));
    BOOST_TEST(positive.oid == pg_oid::kInt4);
    BOOST_TEST(positive.name.empty());
    const ColumnType money2 = types.resolve(16401, -1);
    BOOST_TEST((money2.kind == ValueType::numeric));
    BOOST_TEST(money2.numeric_has_scale());
    BOOST_TEST(money2.numeric_scale() == 2);
    const ColumnType event_time = types.resolve(16402, -1);
    BOOST_TEST((event_time.kind == ValueType::timestamp));
    BOOST_TEST(event_time.fractional_digits() == 3);
    BOOST_TEST(types.resolve(16403, -1).oid == pg_oid::kInt4);
    const ColumnType int_list = types.resolve(16404, -1);
    BOOST_TEST((int_list.kind == ValueType::array));
    BOOST_TEST(int_list.element->oid == pg_oid::kInt4);
    const ColumnType positives = types.resolve(16405, -1);
    BOOST_TEST((positives.kind == ValueType::array));
    BOOST_TEST(positives.name == "_positive");
    BOOST_TEST((positives.element->kind == ValueType::integer));
    BOOST_TEST(positives.element->oid == pg_oid::kInt4);
    // A catalog that loops is read as text, never followed forever.
    BOOST_TEST((types.resolve(16406, -1).kind == ValueType::text));
}

BOOST_AUTO_TEST_CASE(extension_types_carry_their_name_and_schema) {
    const PgTypeResolver types({extension_type(16600, "hstore"), array_type(16605, "_hstore", 16600),
                                {16610, "mood", "app", 'e', 'E', 0, -1, 0}});
    const ColumnType hstore = types.resolve(16600, -1);
    BOOST_TEST((hstore.kind == ValueType::text));
    BOOST_TEST(hstore.name == "hstore");
    BOOST_TEST(hstore.schema == "public");
    const ColumnType hstores = types.resolve(16605, -1);
    BOOST_TEST((hstores.kind == ValueType::array));
    BOOST_TEST(hstores.element->name == "hstore");
    BOOST_TEST(types.resolve(16610, -1).schema == "app");
}
