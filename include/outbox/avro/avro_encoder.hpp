#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "outbox/connect/connect_data.hpp"

namespace outbox::avro {

// A value that does not fit its schema (a null where it is required, a kind of another type).
class AvroEncodingError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Appends the value in Avro's binary encoding under the schema avro_schema_json() makes of
// `schema`: ints and longs as zig-zag varints, floats and doubles little-endian, strings and
// bytes length-prefixed, arrays and maps as one block and an empty one, optional values as the
// union's branch index (null's place follows the default, as the schema's union does), records
// field by field. Throws AvroEncodingError.
void append_avro_binary(std::string& out, const connect::Schema& schema, const connect::Value& value);

// Confluent's wire format: the magic byte 0 and the schema id (4 bytes, big-endian), before the body.
void append_confluent_header(std::string& out, std::int32_t schema_id);

}  // namespace outbox::avro
