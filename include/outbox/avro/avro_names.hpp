#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace outbox::avro {

// Debezium's schema.name.adjustment.mode and field.name.adjustment.mode: names Avro refuses
// (a name is [A-Za-z_][A-Za-z0-9_]*, a namespace such names joined by dots) kept (`none`: the
// record then fails, as Avro fails it), or each refused character replaced by `_` (`avro`) or by
// `_u` and its four hex digits (`avro_unicode`).
enum class NameAdjustment { none, avro, avro_unicode };

// A name Avro refuses, under NameAdjustment::none.
class AvroNameError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

bool is_avro_name(std::string_view name);

// A record's or field's own name, adjusted. Throws AvroNameError under `none`.
std::string adjusted_name(std::string_view name, NameAdjustment mode, std::string_view what);

// A dotted full name, each part adjusted.
std::string adjusted_full_name(std::string_view full_name, NameAdjustment mode, std::string_view what);

}  // namespace outbox::avro
