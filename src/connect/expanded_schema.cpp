#include "outbox/connect/expanded_schema.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "outbox/connect/column_value.hpp"
#include "outbox/connect/java_text.hpp"

namespace outbox::connect {
namespace {

using Inferred = ExpandedSchema;
using InferredPtr = std::shared_ptr<const ExpandedSchema>;
using Type = ExpandedSchema::Type;

std::shared_ptr<Inferred> leaf(Type type) {
    auto schema = std::make_shared<Inferred>();
    schema->type = type;
    return schema;
}

// The number schema Jackson's node gives: an int, a long, or anything else (a double, or an
// integer past 64 bits, a BigInteger) a double.
Type number_type(const OrderedJson& value) {
    if (value.is_number_float()) return Type::float64;
    if (value.is_number_unsigned()) {
        const auto n = value.get<std::uint64_t>();
        if (n <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) return Type::int32;
        return n <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? Type::int64 : Type::float64;
    }
    const auto n = value.get<std::int64_t>();
    return n >= std::numeric_limits<std::int32_t>::min() && n <= std::numeric_limits<std::int32_t>::max() ? Type::int32
                                                                                                          : Type::int64;
}

// An integer Jackson holds as a BigInteger, which no schema takes as a value.
bool big_integer(const OrderedJson& value) {
    return value.is_number_unsigned() &&
           value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
}

std::string kind_of(const OrderedJson& value) { return value.is_number() ? "number" : value.type_name(); }

class Inference {
public:
    Inference(config::JsonNullBehavior nulls, config::JsonEmptyArrayBehavior empty_arrays)
        : nulls_(nulls), empty_arrays_(empty_arrays) {}

    // nullptr where the value has no schema (and its field is left out).
    InferredPtr infer(const std::optional<std::string>& key, const OrderedJson& value) const {
        switch (value.type()) {
            case OrderedJson::value_t::string: return leaf(Type::string);
            case OrderedJson::value_t::boolean: return leaf(Type::boolean);
            case OrderedJson::value_t::number_integer:
            case OrderedJson::value_t::number_unsigned:
            case OrderedJson::value_t::number_float: return leaf(number_type(value));
            case OrderedJson::value_t::array: {
                if (value.empty()) {
                    if (empty_arrays_ == config::JsonEmptyArrayBehavior::ignore) return nullptr;
                    auto schema = leaf(Type::array);
                    schema->items = leaf(Type::string);
                    return schema;
                }
                auto schema = leaf(Type::array);
                schema->items = element_schema(key, value);
                return schema;
            }
            case OrderedJson::value_t::object: {
                auto schema = leaf(Type::structure);
                schema->name = key;
                for (const auto& [field, field_value] : value.items()) {
                    const std::string field_key = (key && !key->empty() ? *key + "." : std::string()) + field;
                    auto field_schema = infer(field_key, field_value);
                    if (field_schema && std::none_of(schema->fields.begin(), schema->fields.end(),
                                                     [&field = field](const auto& f) { return f.first == field; }))
                        schema->fields.emplace_back(field, std::move(field_schema));
                }
                return schema;
            }
            case OrderedJson::value_t::null:
                return nulls_ == config::JsonNullBehavior::optional_bytes ? leaf(Type::bytes) : nullptr;
            default: return nullptr;
        }
    }

private:
    // The first non-null element decides; the others must be of its kind (numbers of its schema).
    InferredPtr element_schema(const std::optional<std::string>& key, const OrderedJson& array) const {
        const OrderedJson* sample = nullptr;
        for (const auto& element : array) {
            if (element.is_null()) continue;
            if (!sample) sample = &element;
            const bool same_kind = element.is_number() ? sample->is_number() : element.type() == sample->type();
            if (!same_kind)
                throw SchemaInferenceError("an array mixes JSON kinds (" + kind_of(*sample) + " and " + kind_of(element) + ")",
                                           true);
            if (element.is_number() && number_type(element) != number_type(*sample))
                throw SchemaInferenceError("an array mixes number types (" + sample->dump() + " and " + element.dump() + ")",
                                           true);
        }
        if (sample && sample->is_object()) {
            std::vector<InferredPtr> distinct;
            for (const auto& element : array) {
                if (!element.is_object()) continue;
                auto schema = infer(key, element);
                if (std::none_of(distinct.begin(), distinct.end(), [&](const InferredPtr& s) { return *s == *schema; }))
                    distinct.push_back(std::move(schema));
            }
            InferredPtr merged;
            for (const auto& schema : distinct) merged = merge(merged, schema);
            return merged;
        }
        auto schema = infer(std::nullopt, sample ? *sample : OrderedJson());
        if (!schema)
            throw SchemaInferenceError(sample ? "an array's first element is an empty array, which has no schema"
                                              : "an array holds only nulls, which have no schema",
                                       false);
        return schema;
    }

    // Fields of `right` that `left` lacks are appended; a bytes placeholder (a null) gives way to
    // a real type. The result is required: Debezium copies the name but not the optionality.
    static InferredPtr merge(const InferredPtr& left, const InferredPtr& right) {
        if (!left) return right;
        auto merged = std::make_shared<Inferred>(*left);
        merged->optional = false;
        for (const auto& [name, schema] : right->fields) {
            const auto found = std::find_if(merged->fields.begin(), merged->fields.end(),
                                            [&name = name](const auto& f) { return f.first == name; });
            if (found == merged->fields.end())
                merged->fields.emplace_back(name, schema);
            else if (found->second->type == Type::bytes && schema->type != Type::bytes)
                found->second = schema;
        }
        return merged;
    }

    config::JsonNullBehavior nulls_;
    config::JsonEmptyArrayBehavior empty_arrays_;
};

const char* type_name(Type type) {
    switch (type) {
        case Type::string: return "string";
        case Type::boolean: return "boolean";
        case Type::int32: return "int32";
        case Type::int64: return "int64";
        case Type::float64: return "double";
        case Type::bytes: return "bytes";
        case Type::array: return "array";
        case Type::structure: return "struct";
    }
    return "?";
}

}  // namespace

bool ExpandedSchema::operator==(const ExpandedSchema& other) const {
    if (type != other.type || optional != other.optional || name != other.name || fields.size() != other.fields.size())
        return false;
    if ((items == nullptr) != (other.items == nullptr) || (items && !(*items == *other.items))) return false;
    for (std::size_t i = 0; i < fields.size(); ++i)
        if (fields[i].first != other.fields[i].first || !(*fields[i].second == *other.fields[i].second)) return false;
    return true;
}

std::shared_ptr<const ExpandedSchema> infer_expanded_schema(const OrderedJson& document, std::string_view name,
                                                            config::JsonNullBehavior nulls,
                                                            config::JsonEmptyArrayBehavior empty_arrays) {
    return Inference(nulls, empty_arrays).infer(std::string(name), document);
}

std::optional<std::string> expanded_value_misfit(const ExpandedSchema& schema, const OrderedJson& value) {
    const auto refused = [&] {
        return std::optional<std::string>(std::string("a ") + kind_of(value) + " where the inferred schema is " +
                                          type_name(schema.type));
    };
    switch (value.type()) {
        case OrderedJson::value_t::null:
            if (schema.optional) return std::nullopt;
            return "a null where the inferred schema (objects of several shapes merged) is required";
        case OrderedJson::value_t::string: return schema.type == Type::string ? std::nullopt : refused();
        case OrderedJson::value_t::boolean: return schema.type == Type::boolean ? std::nullopt : refused();
        case OrderedJson::value_t::number_integer:
        case OrderedJson::value_t::number_unsigned:
        case OrderedJson::value_t::number_float:
            if (big_integer(value)) return "an integer past 64 bits, which no inferred schema takes";
            return number_type(value) == schema.type ? std::nullopt : refused();
        case OrderedJson::value_t::array:
            if (schema.type != Type::array) return refused();
            for (const auto& element : value)
                if (auto misfit = expanded_value_misfit(*schema.items, element)) return misfit;
            return std::nullopt;
        case OrderedJson::value_t::object:
            if (schema.type != Type::structure) return refused();
            for (const auto& [field, field_schema] : schema.fields)
                if (const auto found = value.find(field); found != value.end())
                    if (auto misfit = expanded_value_misfit(*field_schema, *found)) return misfit;
            return std::nullopt;
        default: return refused();
    }
}

void append_expanded_value(std::string& out, const ExpandedSchema& schema, const OrderedJson& value) {
    switch (value.type()) {
        case OrderedJson::value_t::null: out += "null"; return;
        case OrderedJson::value_t::string: append_json_string(out, value.get_ref<const std::string&>()); return;
        case OrderedJson::value_t::number_float: append_jackson_double(out, value.get<double>()); return;
        case OrderedJson::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& element : value) {
                if (!std::exchange(first, false)) out += ',';
                append_expanded_value(out, *schema.items, element);
            }
            out += ']';
            return;
        }
        case OrderedJson::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [field, field_schema] : schema.fields) {
                if (!std::exchange(first, false)) out += ',';
                append_json_string(out, field);
                out += ':';
                const auto found = value.find(field);
                if (found == value.end())
                    out += "null";
                else
                    append_expanded_value(out, *field_schema, *found);
            }
            out += '}';
            return;
        }
        default: out += value.dump(); return;
    }
}

SchemaPtr connect_schema_of(const ExpandedSchema& schema) {
    auto connect = std::make_shared<connect::Schema>();
    switch (schema.type) {
        case Type::string: connect->type = connect::Schema::Type::string; break;
        case Type::boolean: connect->type = connect::Schema::Type::boolean; break;
        case Type::int32: connect->type = connect::Schema::Type::int32; break;
        case Type::int64: connect->type = connect::Schema::Type::int64; break;
        case Type::float64: connect->type = connect::Schema::Type::float64; break;
        case Type::bytes: connect->type = connect::Schema::Type::bytes; break;
        case Type::array:
            connect->type = connect::Schema::Type::array;
            connect->items = connect_schema_of(*schema.items);
            break;
        case Type::structure:
            connect->type = connect::Schema::Type::structure;
            for (const auto& [field, field_schema] : schema.fields)
                connect->fields.push_back({field, connect_schema_of(*field_schema)});
            break;
    }
    connect->optional = schema.optional;
    connect->name = schema.name;
    return connect;
}

Value expanded_connect_value(const ExpandedSchema& schema, const OrderedJson& value) {
    switch (value.type()) {
        case OrderedJson::value_t::null: return Value::null();
        case OrderedJson::value_t::string: return Value::of_string(value.get<std::string>());
        case OrderedJson::value_t::boolean: return Value::of_boolean(value.get<bool>());
        case OrderedJson::value_t::number_integer:
        case OrderedJson::value_t::number_unsigned:
        case OrderedJson::value_t::number_float:
            if (schema.type == Type::float64) return Value::of_floating(Value::Kind::float64, value.get<double>());
            return Value::of_integer(schema.type == Type::int32 ? Value::Kind::int32 : Value::Kind::int64,
                                     value.get<std::int64_t>());
        case OrderedJson::value_t::array: {
            std::vector<Value> items;
            items.reserve(value.size());
            for (const auto& element : value) items.push_back(expanded_connect_value(*schema.items, element));
            return Value::of_array(std::move(items));
        }
        case OrderedJson::value_t::object: {
            std::vector<Value> fields;
            fields.reserve(schema.fields.size());
            for (const auto& [field, field_schema] : schema.fields) {
                const auto found = value.find(field);
                fields.push_back(found == value.end() ? Value::null() : expanded_connect_value(*field_schema, *found));
            }
            return Value::of_struct(std::move(fields));
        }
        default: return Value::null();
    }
}

}  // namespace outbox::connect
