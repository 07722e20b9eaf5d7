#pragma once

#include <cstddef>

#include "outbox/connect/connect_data.hpp"

namespace outbox::avro {

// A hash of everything Schema::operator== compares (type, optionality, name, version, doc,
// parameters, default, fields, items, keys, values), walked without building any text: the key
// under which the Avro side remembers what it made of a Connect schema, so a record whose schema
// was seen before costs a walk and a comparison, no serialisation.
std::size_t connect_schema_hash(const connect::Schema& schema);

struct ConnectSchemaHash {
    std::size_t operator()(const connect::Schema& schema) const { return connect_schema_hash(schema); }
};

}  // namespace outbox::avro
