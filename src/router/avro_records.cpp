#include "outbox/router/avro_records.hpp"

#include "outbox/avro/avro_encoder.hpp"
#include "outbox/pipeline/shutdown_signal.hpp"

namespace outbox::router {
namespace {

avro::NameAdjustment adjustment(config::NameAdjustmentMode mode) {
    switch (mode) {
        case config::NameAdjustmentMode::avro: return avro::NameAdjustment::avro;
        case config::NameAdjustmentMode::avro_unicode: return avro::NameAdjustment::avro_unicode;
        case config::NameAdjustmentMode::none: break;
    }
    return avro::NameAdjustment::none;
}

const char* avro_type_name(Schema::Type type) {
    switch (type) {
        case Schema::Type::int8:
        case Schema::Type::int16:
        case Schema::Type::int32: return "int";
        case Schema::Type::int64: return "long";
        case Schema::Type::float32: return "float";
        case Schema::Type::float64: return "double";
        case Schema::Type::boolean: return "boolean";
        case Schema::Type::string: return "string";
        case Schema::Type::bytes: return "bytes";
        case Schema::Type::array: return "array";
        case Schema::Type::map: return "map";
        case Schema::Type::structure: return "record";
    }
    return "?";
}

}  // namespace

AvroRecordSide::AvroRecordSide(const config::AvroConverterSettings& settings, const config::RecordFormat& format,
                               bool key)
    : settings_(settings),
      options_{settings.connect_meta_data, settings.enhanced_schema_support, adjustment(format.schema_names),
               adjustment(format.field_names)},
      key_(key),
      // A stop (SIGTERM) ends a wait for the registry at once, as it ends every other wait.
      registry_(settings, [] { return pipeline::ShutdownSignal::requested(); }) {}

AvroRecordSide::Known& AvroRecordSide::known(const Schema& schema) {
    if (const auto found = known_.find(schema); found != known_.end()) return found->second;
    Known entry{avro::avro_schema_json(schema, options_), {}, -1};
    if (known_.size() >= static_cast<std::size_t>(settings_.cache_capacity)) known_.clear();
    // The schema's nested parts are shared, immutable pointers: the copy is shallow.
    return known_.emplace(schema, std::move(entry)).first->second;
}

// Confluent's subject name strategies; a record's name is its (adjusted) Connect name, any
// other schema's its Avro type.
std::string AvroRecordSide::subject(const std::string& topic, const Schema& schema) const {
    const auto record_name = [&] {
        if (schema.type == Schema::Type::structure)
            return schema.name ? avro::adjusted_full_name(*schema.name, options_.schema_names, "schema name")
                               : std::string("io.confluent.connect.avro.ConnectDefault");
        return std::string(avro_type_name(schema.type));
    };
    switch (settings_.subject_strategy) {
        case config::SubjectNameStrategy::record: return record_name();
        case config::SubjectNameStrategy::topic_record: return topic + "-" + record_name();
        case config::SubjectNameStrategy::topic: break;
    }
    return topic + (key_ ? "-key" : "-value");
}

std::optional<std::string_view> AvroRecordSide::write(const std::string& topic, const Schema& schema,
                                                      const Value& value, std::string& out) {
    if (value.kind == Value::Kind::null) return std::nullopt;  // as AvroConverter writes a null value
    Known& entry = known(schema);
    out.resize(5);  // the header, once the id is known
    avro::append_avro_binary(out, schema, value);
    // The subject depends on the topic and the schema only: the topic seen last names the same one.
    if (entry.id < 0 || entry.topic != topic) {
        entry.id = registry_.schema_id(subject(topic, schema), entry.avro);
        entry.topic = topic;
    }
    std::string header;
    avro::append_confluent_header(header, entry.id);
    out.replace(0, header.size(), header);
    return std::string_view(out);
}

}  // namespace outbox::router
