#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace outbox::avro {

// A schema text that is not a schema: not JSON, or a type without its required attributes.
class AvroSchemaTextError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The Parsing Canonical Form of an Avro schema (the Avro specification's [PRIMITIVES],
// [FULLNAMES], [STRIP], [ORDER], [STRINGS], [INTEGERS], [WHITESPACE] transformations): two schemas
// with the same form write every value in the same bytes, whatever their docs, defaults, aliases,
// logical types and other properties. Throws AvroSchemaTextError.
std::string parsing_canonical_form(std::string_view schema_json);

}  // namespace outbox::avro
