#pragma once

#include <optional>
#include <string>

#include "outbox/config/config.hpp"
#include "outbox/connect/connect_value.hpp"

namespace outbox::connect {

// An array column whose value is unchanged and stored out of line (the INSERT of a primary-key
// UPDATE: pgoutput does not send it) as Debezium's PostgreSQL connector writes it. Its
// UnchangedToastedReplicationMessageColumn picks a placeholder by the array type's name:
// text[], varchar[], bpchar[], json[] and jsonb[] a list of the placeholder text, bytea[] a list
// of its bytes, int4[] and date[] (int8[]) a list of its bytes as signed ints (longs), uuid[] a
// list of Java's UUID.nameUUIDFromBytes of them. Any other array (a domain over an array too, and
// a list whose elements the array's schema refuses in the configured mode) fails the column's
// conversion, which event.converting.failure.handling.mode warn (its default) turns into null.
// Returns PostgreSQL array text that the router converts to that list, or nullopt for null.
std::optional<std::string> unavailable_array_text(const ColumnType& type, const config::ValueModes& modes);

// Java's UUID.nameUUIDFromBytes: a version 3 UUID of the bytes' MD5, as lower-case text.
std::string name_uuid_from_bytes(const std::string& bytes);

}  // namespace outbox::connect
