#include "outbox/avro/avro_canonical.hpp"

#include <array>
#include <nlohmann/json.hpp>

namespace outbox::avro {
namespace {

using nlohmann::json;

bool is_primitive(const std::string& name) {
    static const std::array<std::string, 8> primitives = {"null",  "boolean", "int",   "long",
                                                          "float", "double",  "bytes", "string"};
    for (const auto& p : primitives)
        if (p == name) return true;
    return false;
}

// A name as its full name: a dotted name is one already, a short one takes the namespace in scope.
std::string full_name(const std::string& name, const std::string& enclosing_namespace) {
    if (name.find('.') != std::string::npos || enclosing_namespace.empty()) return name;
    return enclosing_namespace + "." + name;
}

std::string namespace_of(const std::string& name) {
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

// Deeper than any schema a converter makes; bounds the recursion on outside input.
constexpr int kDeepest = 64;

// (Messages name what is missing, not the schema: dumping outside input recurses as deep as it is.)
const json& attribute(const json& schema, const char* name) {
    const auto found = schema.find(name);
    if (found == schema.end()) throw AvroSchemaTextError(std::string("a schema without its \"") + name + "\"");
    return *found;
}

// Each canonical object is written as text, its attributes in the specification's order.
void append(std::string& out, const json& schema, const std::string& enclosing_namespace, int depth) {
    if (depth > kDeepest) throw AvroSchemaTextError("a schema nested deeper than " + std::to_string(kDeepest) + " levels");
    if (schema.is_string()) {
        const auto& name = schema.get_ref<const std::string&>();
        out += json(is_primitive(name) ? name : full_name(name, enclosing_namespace)).dump();
        return;
    }
    if (schema.is_array()) {
        out += '[';
        for (std::size_t i = 0; i < schema.size(); ++i) {
            if (i) out += ',';
            append(out, schema[i], enclosing_namespace, depth + 1);
        }
        out += ']';
        return;
    }
    if (!schema.is_object()) throw AvroSchemaTextError(std::string("not a schema: a JSON ") + schema.type_name());
    const json& type = attribute(schema, "type");
    if (!type.is_string()) return append(out, type, enclosing_namespace, depth + 1);  // {"type": {...}} or a union
    const auto& kind = type.get_ref<const std::string&>();
    if (is_primitive(kind)) {
        out += json(kind).dump();
        return;
    }
    if (kind == "array") {
        out += R"({"type":"array","items":)";
        append(out, attribute(schema, "items"), enclosing_namespace, depth + 1);
        out += '}';
        return;
    }
    if (kind == "map") {
        out += R"({"type":"map","values":)";
        append(out, attribute(schema, "values"), enclosing_namespace, depth + 1);
        out += '}';
        return;
    }
    if (kind != "record" && kind != "error" && kind != "enum" && kind != "fixed") {
        // A reference to a named type, written as {"type": "Name"}.
        out += json(full_name(kind, enclosing_namespace)).dump();
        return;
    }
    const json& short_name = attribute(schema, "name");
    if (!short_name.is_string()) throw AvroSchemaTextError("a name that is not a string");
    std::string scope = enclosing_namespace;
    if (const auto ns = schema.find("namespace"); ns != schema.end() && ns->is_string()) scope = ns->get<std::string>();
    const std::string name = full_name(short_name.get<std::string>(), scope);
    out += R"({"name":)" + json(name).dump() + R"(,"type":)" + json(kind == "error" ? "record" : kind).dump();
    if (kind == "enum") {
        const json& symbols = attribute(schema, "symbols");
        if (!symbols.is_array()) throw AvroSchemaTextError("enum " + name + ": symbols that are not a list");
        for (const auto& symbol : symbols)
            if (!symbol.is_string()) throw AvroSchemaTextError("enum " + name + ": a symbol that is not a string");
        out += R"(,"symbols":)" + symbols.dump();
    } else if (kind == "fixed") {
        const json& size = attribute(schema, "size");
        if (!size.is_number_integer()) throw AvroSchemaTextError("fixed " + name + ": a size that is not an integer");
        out += R"(,"size":)" + size.dump();
    } else {
        out += R"(,"fields":[)";
        const json& fields = attribute(schema, "fields");
        if (!fields.is_array()) throw AvroSchemaTextError("record " + name + ": fields that are not a list");
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i) out += ',';
            if (!fields[i].is_object()) throw AvroSchemaTextError("record " + name + ": a field that is not an object");
            const json& field_name = attribute(fields[i], "name");
            if (!field_name.is_string()) throw AvroSchemaTextError("record " + name + ": a field name that is not a string");
            out += R"({"name":)" + field_name.dump() + R"(,"type":)";
            append(out, attribute(fields[i], "type"), namespace_of(name), depth + 1);
            out += '}';
        }
        out += ']';
    }
    out += '}';
}

}  // namespace

std::string parsing_canonical_form(std::string_view schema_json) {
    json schema;
    try {
        schema = json::parse(schema_json);
    } catch (const json::exception& e) {
        throw AvroSchemaTextError(std::string("a schema that is not JSON: ") + e.what());
    }
    std::string out;
    append(out, schema, "", 0);
    return out;
}

}  // namespace outbox::avro
