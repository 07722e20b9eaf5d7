#include "outbox/avro/avro_schema.hpp"

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/java_text.hpp"

namespace outbox::avro {

using connect::Schema;
using connect::Value;

namespace {

constexpr const char* kDecimal = "org.apache.kafka.connect.data.Decimal";
constexpr const char* kDate = "org.apache.kafka.connect.data.Date";
constexpr const char* kTime = "org.apache.kafka.connect.data.Time";
constexpr const char* kTimestamp = "org.apache.kafka.connect.data.Timestamp";
constexpr const char* kConnectNamespace = "io.confluent.connect.avro";

void append_string(std::string& out, std::string_view text) { connect::append_json_string(out, text); }

// A Java String of ISO-8859-1 characters, one per byte, in UTF-8: how AvroData writes a bytes default.
std::string latin1_text(std::string_view bytes) {
    std::string text;
    for (const char c : bytes) {
        const auto b = static_cast<unsigned char>(c);
        if (b < 0x80) {
            text += c;
        } else {
            text += static_cast<char>(0xC0 | b >> 6);
            text += static_cast<char>(0x80 | (b & 0x3F));
        }
    }
    return text;
}

void append_floating(std::string& out, const std::string& java_text, double value) {
    if (value == value && value - value == 0) out += java_text;
    else append_string(out, java_text);
}

struct FullName {
    std::optional<std::string> space;
    std::string name;
    std::string full() const { return space ? *space + "." + name : name; }
};

FullName split(const std::string& full) {
    const auto dot = full.rfind('.');
    if (dot == std::string::npos) return {std::nullopt, full};
    return {full.substr(0, dot), full.substr(dot + 1)};
}

class SchemaWriter {
public:
    SchemaWriter(std::string& out, const AvroDataOptions& options) : out_(out), options_(options) {}

    void write(const Schema& schema) {
        if (schema.type == Schema::Type::structure) {
            if (schema.optional) {
                Schema required = schema;
                required.optional = false;
                out_ += "[\"null\",";
                record(required);
                out_ += ']';
                return;
            }
            record(schema);
            return;
        }
        const bool union_with_null = schema.optional;
        if (union_with_null) out_ += schema.default_value ? "[" : "[\"null\",";
        base(schema);
        if (union_with_null) out_ += schema.default_value ? ",\"null\"]" : "]";
    }

    // AvroData's defaultValueFromConnect, as Jackson writes the node.
    void default_value(const Schema& schema, const Value& value) {
        switch (value.kind) {
            case Value::Kind::null: out_ += "null"; return;
            case Value::Kind::boolean: out_ += value.boolean ? "true" : "false"; return;
            case Value::Kind::int8:
            case Value::Kind::int16:
            case Value::Kind::int32:
            case Value::Kind::int64: out_ += std::to_string(value.integer); return;
            case Value::Kind::float32:
                append_floating(out_, connect::java_float_text(static_cast<float>(value.floating)), value.floating);
                return;
            case Value::Kind::float64:
                append_floating(out_, connect::java_double_text(value.floating), value.floating);
                return;
            case Value::Kind::string: append_string(out_, value.text); return;
            case Value::Kind::bytes: append_string(out_, latin1_text(value.text)); return;
            case Value::Kind::array: {
                out_ += '[';
                for (std::size_t i = 0; i < value.elements.size(); ++i) {
                    if (i > 0) out_ += ',';
                    default_value(*schema.items, value.elements[i]);
                }
                out_ += ']';
                return;
            }
            case Value::Kind::map: {
                const bool object = string_keys(schema);
                out_ += object ? '{' : '[';
                for (std::size_t i = 0; i < value.entries.size(); ++i) {
                    if (i > 0) out_ += ',';
                    const auto& [key, entry] = value.entries[i];
                    if (object) {
                        append_string(out_, key.text);
                        out_ += ':';
                    } else {
                        out_ += '[';
                        default_value(*schema.keys, key);
                        out_ += ',';
                    }
                    default_value(*schema.values, entry);
                    if (!object) out_ += ']';
                }
                out_ += object ? '}' : ']';
                return;
            }
            case Value::Kind::structure: {
                out_ += '{';
                for (std::size_t i = 0; i < schema.fields.size(); ++i) {
                    if (i > 0) out_ += ',';
                    append_string(out_, field_name(schema.fields[i].name));
                    out_ += ':';
                    if (i < value.elements.size()) default_value(*schema.fields[i].schema, value.elements[i]);
                    else out_ += "null";
                }
                out_ += '}';
                return;
            }
        }
    }

private:
    static bool string_keys(const Schema& map) {
        return map.keys->type == Schema::Type::string && !map.keys->optional;
    }

    std::string field_name(const std::string& name) const {
        return adjusted_name(name, options_.field_names, "field name");
    }

    // Avro's Name.writeName: the namespace only where it differs from the enclosing one.
    void write_name(const FullName& name) {
        out_ += ",\"name\":";
        append_string(out_, name.name);
        if (name.space) {
            if (name.space != space_) {
                out_ += ",\"namespace\":";
                append_string(out_, *name.space);
            }
        } else if (space_) {
            out_ += ",\"namespace\":\"\"";
        }
    }

    // A named type already written: its name, qualified unless in the enclosing namespace.
    bool reference(const FullName& name) {
        if (!written_.count(name.full())) return false;
        append_string(out_, name.space && name.space != space_ ? name.full() : name.name);
        return true;
    }

    FullName record_name(const Schema& schema) {
        if (schema.name) return split(adjusted_full_name(*schema.name, options_.schema_names, "schema name"));
        for (const auto& [seen, name] : unnamed_)
            if (seen == schema) return name;
        ++unnamed_count_;
        FullName name{kConnectNamespace,
                      "ConnectDefault" + (unnamed_count_ > 1 ? std::to_string(unnamed_count_) : std::string())};
        unnamed_.emplace_back(schema, name);
        return name;
    }

    void record(const Schema& schema) { record_named(record_name(schema), schema, true); }

    // A record's definition, or a reference to it once written; `with_properties`: its connect.* ones.
    void record_named(const FullName& name, const Schema& schema, bool with_properties) {
        if (reference(name)) return;
        written_.insert(name.full());
        out_ += "{\"type\":\"record\"";
        write_name(name);
        const auto saved_space = std::exchange(space_, name.space);
        out_ += ",\"fields\":[";
        for (std::size_t i = 0; i < schema.fields.size(); ++i) {
            if (i > 0) out_ += ',';
            field(schema.fields[i]);
        }
        out_ += ']';
        space_ = saved_space;
        if (with_properties) properties(schema);
        out_ += '}';
    }

    // AvroData's addAvroRecordField: the field's default, else null where it is optional. A
    // default Avro would refuse (a non-null one for a struct's null-first union) is left out.
    void field(const Schema::Field& field) {
        const Schema& schema = *field.schema;
        out_ += "{\"name\":";
        append_string(out_, field_name(field.name));
        out_ += ",\"type\":";
        write(schema);
        if (schema.default_value && !(schema.optional && schema.type == Schema::Type::structure &&
                                      schema.default_value->kind != Value::Kind::null)) {
            out_ += ",\"default\":";
            default_value(schema, *schema.default_value);
        } else if (schema.optional && !schema.default_value) {
            out_ += ",\"default\":null";
        }
        out_ += '}';
    }

    // The type without its optionality: a primitive (with properties, an object), array or map.
    void base(const Schema& schema) {
        const char* type = nullptr;
        switch (schema.type) {
            case Schema::Type::int8:
            case Schema::Type::int16:
            case Schema::Type::int32: type = "int"; break;
            case Schema::Type::int64: type = "long"; break;
            case Schema::Type::float32: type = "float"; break;
            case Schema::Type::float64: type = "double"; break;
            case Schema::Type::boolean: type = "boolean"; break;
            case Schema::Type::string: type = "string"; break;
            case Schema::Type::bytes: type = "bytes"; break;
            case Schema::Type::array:
                out_ += "{\"type\":\"array\",\"items\":";
                write(*schema.items);
                properties(schema);
                out_ += '}';
                return;
            case Schema::Type::map:
                if (string_keys(schema)) {
                    out_ += "{\"type\":\"map\",\"values\":";
                    write(*schema.values);
                } else {
                    // Avro maps have string keys: an array of key/value records instead.
                    auto entry = std::make_shared<Schema>();
                    entry->type = Schema::Type::structure;
                    entry->name = std::string(kConnectNamespace) + ".MapEntry";
                    entry->fields = {{"key", schema.keys}, {"value", schema.values}};
                    out_ += "{\"type\":\"array\",\"items\":";
                    record_named(split(*entry->name), *entry, false);
                }
                properties(schema);
                out_ += '}';
                return;
            case Schema::Type::structure: return;  // record()
        }
        const std::size_t start = out_.size();
        out_ += "{\"type\":\"";
        out_ += type;
        out_ += '"';
        const std::size_t before = out_.size();
        properties(schema);
        if (out_.size() == before) {
            out_.resize(start);
            out_ += '"';
            out_ += type;
            out_ += '"';
            return;
        }
        out_ += '}';
    }

    void property(const char* key) {
        out_ += ",\"";
        out_ += key;
        out_ += "\":";
    }

    // The properties AvroData adds, in its order.
    void properties(const Schema& schema) {
        const bool decimal = schema.name == kDecimal;
        std::string precision = "38";
        if (decimal) {
            const std::string* scale = schema.parameter("scale");
            if (const std::string* declared = schema.parameter("connect.decimal.precision")) precision = *declared;
            if (schema.type == Schema::Type::bytes) {
                property("scale");
                out_ += scale ? *scale : "0";
                property("precision");
                out_ += precision;
            }
        }
        if (options_.connect_meta_data) {
            if (schema.doc) {
                property("connect.doc");
                append_string(out_, *schema.doc);
            }
            if (schema.version) {
                property("connect.version");
                out_ += std::to_string(*schema.version);
            }
            if (!schema.parameters.empty()) {
                property("connect.parameters");
                out_ += '{';
                for (std::size_t i = 0; i < schema.parameters.size(); ++i) {
                    if (i > 0) out_ += ',';
                    append_string(out_, schema.parameters[i].first);
                    out_ += ':';
                    append_string(out_, schema.parameters[i].second);
                }
                out_ += '}';
            }
            if (schema.default_value) {
                property("connect.default");
                default_value(schema, *schema.default_value);
            }
            if (schema.name) {
                property("connect.name");
                append_string(out_, schema.type == Schema::Type::structure
                                        ? adjusted_full_name(*schema.name, options_.schema_names, "schema name")
                                        : *schema.name);
            }
            if (schema.type == Schema::Type::int8 || schema.type == Schema::Type::int16) {
                property("connect.type");
                out_ += schema.type == Schema::Type::int8 ? "\"int8\"" : "\"int16\"";
            }
        }
        const char* logical = decimal                      ? "decimal"
                              : schema.name == kDate      ? "date"
                              : schema.name == kTime      ? "time-millis"
                              : schema.name == kTimestamp ? "timestamp-millis"
                                                          : nullptr;
        if (logical) {
            property("logicalType");
            append_string(out_, logical);
        }
        for (const auto& [key, value] : schema.parameters)
            if (key.starts_with("avro")) {
                out_ += ',';
                append_string(out_, key);
                out_ += ':';
                append_string(out_, value);
            }
    }

    std::string& out_;
    const AvroDataOptions& options_;
    std::optional<std::string> space_;
    std::set<std::string> written_;
    std::vector<std::pair<Schema, FullName>> unnamed_;
    int unnamed_count_ = 0;
};

}  // namespace

std::string avro_schema_json(const Schema& schema, const AvroDataOptions& options) {
    std::string out;
    SchemaWriter(out, options).write(schema);
    return out;
}

}  // namespace outbox::avro
