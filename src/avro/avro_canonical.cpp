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

const json& attribute(const json& schema, const char* name) {
    const auto found = schema.find(name);
    if (found == schema.end()) throw AvroSchemaTextError(std::string("a schema without its \"") + name + "\": " + schema.dump());
    return *found;
}

// Each canonical object is written as text, its attributes in the specification's order.
void append(std::string& out, const json& schema, const std::string& enclosing_namespace) {
    if (schema.is_string()) {
        const auto& name = schema.get_ref<const std::string&>();
        out += json(is_primitive(name) ? name : full_name(name, enclosing_namespace)).dump();
        return;
    }
    if (schema.is_array()) {
        out += '[';
        for (std::size_t i = 0; i < schema.size(); ++i) {
            if (i) out += ',';
            append(out, schema[i], enclosing_namespace);
        }
        out += ']';
        return;
    }
    if (!schema.is_object()) throw AvroSchemaTextError("not a schema: " + schema.dump());
    const json& type = attribute(schema, "type");
    if (!type.is_string()) return append(out, type, enclosing_namespace);  // {"type": {...}} or a union
    const auto& kind = type.get_ref<const std::string&>();
    if (is_primitive(kind)) {
        out += json(kind).dump();
        return;
    }
    if (kind == "array") {
        out += R"({"type":"array","items":)";
        append(out, attribute(schema, "items"), enclosing_namespace);
        out += '}';
        return;
    }
    if (kind == "map") {
        out += R"({"type":"map","values":)";
        append(out, attribute(schema, "values"), enclosing_namespace);
        out += '}';
        return;
    }
    if (kind != "record" && kind != "error" && kind != "enum" && kind != "fixed") {
        // A reference to a named type, written as {"type": "Name"}.
        out += json(full_name(kind, enclosing_namespace)).dump();
        return;
    }
    const json& short_name = attribute(schema, "name");
    if (!short_name.is_string()) throw AvroSchemaTextError("a name that is not a string: " + schema.dump());
    std::string scope = enclosing_namespace;
    if (const auto ns = schema.find("namespace"); ns != schema.end() && ns->is_string()) scope = ns->get<std::string>();
    const std::string name = full_name(short_name.get<std::string>(), scope);
    out += R"({"name":)" + json(name).dump() + R"(,"type":)" + json(kind == "error" ? "record" : kind).dump();
    if (kind == "enum") {
        out += R"(,"symbols":)" + attribute(schema, "symbols").dump();
    } else if (kind == "fixed") {
        out += R"(,"size":)" + attribute(schema, "size").dump();
    } else {
        out += R"(,"fields":[)";
        const json& fields = attribute(schema, "fields");
        if (!fields.is_array()) throw AvroSchemaTextError("fields that are not a list: " + schema.dump());
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i) out += ',';
            out += R"({"name":)" + attribute(fields[i], "name").dump() + R"(,"type":)";
            append(out, attribute(fields[i], "type"), namespace_of(name));
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
    append(out, schema, "");
    return out;
}

}  // namespace outbox::avro
