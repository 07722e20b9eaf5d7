#include "outbox/connect/pg_type_resolver.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace outbox::connect {
namespace {

// PostgreSQL's builtin array types and their element types (pg_type.dat's array_type_oid; the
// same OIDs in every supported version), sorted by array OID.
constexpr std::pair<std::uint32_t, std::uint32_t> kBuiltinArrays[] = {
    {143, 142},  // xml
    {199, 114},  // json
    {271, 5069},  // xid8
    {629, 628},  // line
    {651, 650},  // cidr
    {719, 718},  // circle
    {775, 774},  // macaddr8
    {791, 790},  // money
    {1000, 16},  // bool
    {1001, 17},  // bytea
    {1002, 18},  // char
    {1003, 19},  // name
    {1005, 21},  // int2
    {1006, 22},  // int2vector
    {1007, 23},  // int4
    {1008, 24},  // regproc
    {1009, 25},  // text
    {1010, 27},  // tid
    {1011, 28},  // xid
    {1012, 29},  // cid
    {1013, 30},  // oidvector
    {1014, 1042},  // bpchar
    {1015, 1043},  // varchar
    {1016, 20},  // int8
    {1017, 600},  // point
    {1018, 601},  // lseg
    {1019, 602},  // path
    {1020, 603},  // box
    {1021, 700},  // float4
    {1022, 701},  // float8
    {1027, 604},  // polygon
    {1028, 26},  // oid
    {1034, 1033},  // aclitem
    {1040, 829},  // macaddr
    {1041, 869},  // inet
    {1115, 1114},  // timestamp
    {1182, 1082},  // date
    {1183, 1083},  // time
    {1185, 1184},  // timestamptz
    {1187, 1186},  // interval
    {1231, 1700},  // numeric
    {1263, 2275},  // cstring
    {1270, 1266},  // timetz
    {1561, 1560},  // bit
    {1563, 1562},  // varbit
    {2201, 1790},  // refcursor
    {2207, 2202},  // regprocedure
    {2208, 2203},  // regoper
    {2209, 2204},  // regoperator
    {2210, 2205},  // regclass
    {2211, 2206},  // regtype
    {2287, 2249},  // record
    {2949, 2970},  // txid_snapshot
    {2951, 2950},  // uuid
    {3221, 3220},  // pg_lsn
    {3643, 3614},  // tsvector
    {3644, 3642},  // gtsvector
    {3645, 3615},  // tsquery
    {3735, 3734},  // regconfig
    {3770, 3769},  // regdictionary
    {3807, 3802},  // jsonb
    {3905, 3904},  // int4range
    {3907, 3906},  // numrange
    {3909, 3908},  // tsrange
    {3911, 3910},  // tstzrange
    {3913, 3912},  // daterange
    {3927, 3926},  // int8range
    {4073, 4072},  // jsonpath
    {4090, 4089},  // regnamespace
    {4097, 4096},  // regrole
    {4192, 4191},  // regcollation
    {5039, 5038},  // pg_snapshot
    {6150, 4451},  // int4multirange
    {6151, 4532},  // nummultirange
    {6152, 4533},  // tsmultirange
    {6153, 4534},  // tstzmultirange
    {6155, 4535},  // datemultirange
    {6157, 4536},  // int8multirange
};
static_assert(std::is_sorted(std::begin(kBuiltinArrays), std::end(kBuiltinArrays)));

// Domain chains are short; a longer one is a catalog this resolver misreads, not a type.
constexpr int kMaxDepth = 32;

}  // namespace

bool builtin_type(std::uint32_t oid) { return oid < kFirstNormalObjectId; }

std::uint32_t builtin_array_element(std::uint32_t array_oid) {
    const auto found = std::lower_bound(std::begin(kBuiltinArrays), std::end(kBuiltinArrays), array_oid,
                                        [](const auto& entry, std::uint32_t oid) { return entry.first < oid; });
    return found != std::end(kBuiltinArrays) && found->first == array_oid ? found->second : 0;
}

PgTypeResolver::PgTypeResolver(const std::vector<CatalogType>& catalog) {
    for (const auto& type : catalog) types_.emplace(type.oid, type);
}

ColumnType PgTypeResolver::resolve(std::uint32_t oid, std::int32_t modifier) const { return resolve(oid, modifier, 0); }

ColumnType PgTypeResolver::resolve(std::uint32_t oid, std::int32_t modifier, int depth) const {
    const auto array_of = [&](std::uint32_t element_oid) {
        ColumnType array = ColumnType(ValueType::array, modifier, oid);
        array.element = std::make_shared<const ColumnType>(resolve(element_oid, modifier, depth + 1));
        return array;
    };
    if (depth > kMaxDepth) return ColumnType(ValueType::text, -1, oid);
    if (const std::uint32_t element = builtin_array_element(oid)) return array_of(element);
    const auto found = types_.find(oid);
    if (found == types_.end()) return ColumnType(value_type(oid), modifier, oid);
    const CatalogType& type = found->second;
    // A column of a domain type carries no modifier of its own (atttypmod is -1): the domain's is
    // the base type's, as in CREATE DOMAIN d AS numeric(10, 2).
    if (type.type_kind == 'd' && type.base_oid != 0) {
        ColumnType base = resolve(type.base_oid, type.base_modifier, depth + 1);
        base.from_domain = true;
        return base;
    }
    if (type.category == 'A' && type.element_oid != 0) {
        ColumnType array = array_of(type.element_oid);
        array.name = type.name;
        array.schema = type.schema;
        return array;
    }
    ColumnType resolved = ColumnType(builtin_type(oid) ? value_type(oid) : ValueType::text, modifier, oid);
    if (!builtin_type(oid)) {
        resolved.name = type.name;
        resolved.schema = type.schema;
        if (type.type_kind == 'e') resolved.enum_values = type.enum_values;
    }
    return resolved;
}

}  // namespace outbox::connect
