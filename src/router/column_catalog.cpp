#include "outbox/router/column_catalog.hpp"

#include <algorithm>
#include <cctype>

namespace outbox::router {
namespace {

// '...' with '' for a quote, then an optional ::type; or a bare number or boolean.
std::optional<std::string> literal_of(const std::string& expression) {
    std::string text = expression;
    if (text.size() >= 2 && text.front() == '(' && text.back() == ')') text = text.substr(1, text.size() - 2);
    if (!text.empty() && text.front() == '\'') {
        std::string literal;
        std::size_t i = 1;
        for (; i < text.size(); ++i) {
            if (text[i] == '\'') {
                if (i + 1 < text.size() && text[i + 1] == '\'') {
                    literal += '\'';
                    ++i;
                    continue;
                }
                break;
            }
            literal += text[i];
        }
        if (i >= text.size()) return std::nullopt;
        const std::string rest = text.substr(i + 1);
        if (!rest.empty() && !rest.starts_with("::")) return std::nullopt;
        return literal;
    }
    if (text == "true" || text == "false") return text;
    const auto digits = [](std::string_view part) {
        return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    std::string_view number(text);
    if (number.starts_with('-')) number.remove_prefix(1);
    const auto point = number.find('.');
    if (digits(number.substr(0, point)) && (point == std::string_view::npos || digits(number.substr(point + 1))))
        return text;
    return std::nullopt;
}

// name(...) (optionally in parentheses) or one of SQL's current-time keywords, as Debezium's
// PostgresDefaultValueConverter recognises a function default.
bool is_function_call(const std::string& expression) {
    std::string_view text(expression);
    if (text.starts_with('(')) text.remove_prefix(1);
    std::string upper;
    for (const char c : text.substr(0, 20)) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const char* keyword : {"CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "LOCALTIMESTAMP", "LOCALTIME"})
        if (upper.starts_with(keyword)) return true;
    const auto name_end = text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.");
    return name_end != 0 && name_end != std::string_view::npos && text[name_end] == '(' &&
           text.find(')', name_end) != std::string_view::npos;
}

// The value Debezium puts in place of a default it cannot evaluate, as PostgreSQL text.
std::optional<std::string> placeholder(const ColumnType& type) {
    switch (type.kind) {
        case ValueType::timestamptz: return "1970-01-01 00:00:00+00";
        case ValueType::timestamp: return "1970-01-01 00:00:00";
        case ValueType::date: return "1970-01-01";
        case ValueType::time: return "00:00:00";
        case ValueType::integer:
        case ValueType::numeric: return "0";
        case ValueType::text:
            if (type.oid == pg_oid::kUuid) return "00000000-0000-0000-0000-000000000000";
            return "";
        default: return std::nullopt;
    }
}

}  // namespace

std::optional<std::string> default_text(const ColumnType& type, const std::string& expression,
                                        const ConnectValueWriter& values) {
    if (expression.starts_with("NULL")) return std::nullopt;
    std::optional<std::string> text = literal_of(expression);
    if (!text && is_function_call(expression)) text = placeholder(type);
    if (!text) return std::nullopt;
    if (type.kind == ValueType::boolean) *text = *text == "true" ? "t" : *text == "false" ? "f" : *text;
    try {
        values.value(type, *text);
    } catch (const ValueError&) {
        return std::nullopt;  // Debezium warns and leaves the default out
    }
    return text;
}

std::optional<Value> default_value(const ColumnType& type, const std::string& expression,
                                  const ConnectValueWriter& values) {
    const auto text = default_text(type, expression, values);
    if (!text) return std::nullopt;
    return values.value(type, *text);
}

void describe_columns(OutboxTable& table, const std::vector<CatalogColumn>& catalog, const ConnectValueWriter& values) {
    const auto describe = [&](BoundColumn& column) {
        for (const auto& entry : catalog) {
            if (entry.name != column.name) continue;
            column.optional = !entry.not_null;
            column.default_value = entry.default_expression && !entry.domain_or_array
                                       ? default_value(column.column_type(), *entry.default_expression, values)
                                       : std::nullopt;
            return;
        }
    };
    for (BoundColumn* column : {&table.id, &table.key, &table.payload, &table.route_by}) describe(*column);
    for (auto* optional : {&table.timestamp, &table.tracing_context, &table.schema_version})
        if (*optional) describe(**optional);
    for (auto& additional : table.additional)
        if (additional) describe(*additional);
    // The key struct's field schemas carry their optionality and defaults too, and a NOT NULL
    // key column an old key lacks is written as its default or its type's fallback.
    for (auto& key : table.key_columns)
        for (const auto& entry : catalog) {
            if (entry.name != key.name) continue;
            key.optional = !entry.not_null;
            const auto text = entry.default_expression && !entry.domain_or_array
                                  ? default_text(key.type, *entry.default_expression, values)
                                  : std::nullopt;
            if (text) key.default_value = values.value(key.type, *text);
            if (entry.not_null) key.when_absent = text ? NotNullFallback{key.type, *text} : not_null_fallback(key.type, values.modes());
        }
}

}  // namespace outbox::router
