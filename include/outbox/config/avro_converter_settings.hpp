#pragma once

#include <string_view>

#include "outbox/config/config.hpp"
#include "outbox/config/yaml_entries.hpp"

namespace outbox::config {

// Whether `name` ("value.converter.schema.registry.url") is an AvroConverter setting of the key
// or value converter; `setting` is then the part after the converter's prefix.
bool is_converter_setting(std::string_view name, std::string_view& side, std::string_view& setting);

// Reads one AvroConverter setting (schema.registry.url, basic.auth.*, bearer.auth.*,
// schema.registry.ssl.*, auto.register.schemas, use.latest.version, *.subject.name.strategy,
// connect.meta.data, enhanced.avro.schema.support, ...). Throws ConfigError naming the key.
void read_avro_converter_setting(const Entry& e, std::string_view setting, AvroConverterSettings& avro);

// Once every key is read: a converter named AvroConverter needs its registry, and takes only its
// own family's settings (Confluent's, or Apicurio's apicurio.registry.*); Apicurio's defaults and
// credentials are settled.
void check_avro_converter(AvroConverterSettings& avro, std::string_view side);

NameAdjustmentMode name_adjustment_mode(const Entry& e);

}  // namespace outbox::config
