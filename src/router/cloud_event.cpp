#include "outbox/router/cloud_event.hpp"

#include <cstdio>

#include "outbox/connect/column_value.hpp"

namespace outbox::router {

namespace {

constexpr std::string_view kSpecVersion = "1.0";

bool attribute_character(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Days since 1970-01-01 as a proleptic Gregorian date (Howard Hinnant's civil_from_days).
void civil_from_days(std::int64_t days, std::int64_t& year, unsigned& month, unsigned& day) {
    days += 719468;
    const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const auto doe = static_cast<unsigned>(days - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    day = doy - (153 * mp + 2) / 5 + 1;
    month = mp < 10 ? mp + 3 : mp - 9;
    year = static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
}

void append_member(std::string& out, std::string_view name, std::string_view text) {
    out += ',';
    connect::append_json_string(out, name);
    out += ':';
    connect::append_json_string(out, text);
}

// The end of the JSON value starting at `at` (just past it), or npos when the text ends first.
std::size_t json_value_end(std::string_view text, std::size_t at) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = at; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') {
                in_string = false;
                if (depth == 0) return i + 1;
            }
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '{' || c == '[') ++depth;
        else if (c == '}' || c == ']') {
            if (depth == 0) return i;  // a scalar ended by its container
            if (--depth == 0) return i + 1;
        } else if (c == ',' && depth == 0) return i;
    }
    return depth == 0 && !in_string ? text.size() : std::string_view::npos;
}

}  // namespace

std::optional<std::string> debezium_data_with_schema(std::string_view value) {
    constexpr std::string_view schema_key = "{\"schema\":";
    constexpr std::string_view struct_start = "{\"type\":\"struct\",\"fields\":";
    constexpr std::string_view payload_key = ",\"payload\":";
    if (value.substr(0, schema_key.size()) != schema_key || value.empty() || value.back() != '}') return std::nullopt;
    const std::size_t schema_at = schema_key.size();
    const std::size_t schema_end = json_value_end(value, schema_at);
    if (schema_end == std::string_view::npos) return std::nullopt;
    if (value.substr(schema_at, struct_start.size()) != struct_start) return std::nullopt;
    const std::size_t fields_at = schema_at + struct_start.size();
    const std::size_t fields_end = json_value_end(value, fields_at);
    if (fields_end == std::string_view::npos || value[fields_at] != '[' || fields_end > schema_end) return std::nullopt;
    if (value.substr(schema_end, payload_key.size()) != payload_key) return std::nullopt;
    const std::size_t payload_at = schema_end + payload_key.size();
    std::string data = "{\"schema\":{\"type\":\"struct\",\"fields\":";
    data += value.substr(fields_at, fields_end - fields_at);
    data += ",\"optional\":false,\"name\":\"io.debezium.connector.postgresql.Data\"},\"payload\":";
    data += value.substr(payload_at, value.size() - 1 - payload_at);
    data += '}';
    return data;
}

std::string debezium_extension_name(std::string_view field) {
    std::string name = "iodebezium";
    for (const char c : field)
        if (attribute_character(c)) name += c;
    return name;
}

void append_debezium_extensions(std::vector<CloudEventExtension>& out, const DebeziumSource& source) {
    using Kind = CloudEventExtension::Kind;
    const auto add = [&](std::string_view field, Kind kind, std::string value = {}) {
        out.push_back({debezium_extension_name(field), kind, std::move(value)});
    };
    const auto text = [&](std::string_view field, std::string_view value) { add(field, Kind::string, std::string(value)); };
    const auto number = [&](std::string_view field, auto value) { add(field, Kind::string, std::to_string(value)); };
    const auto null = [&](std::string_view field) { add(field, Kind::null); };
    text("op", "c");
    text("version", source.version);
    text("connector", "postgresql");
    text("name", source.name);
    number("ts_ms", source.commit_time_us / 1000);
    text("snapshot", "false");
    text("db", source.database);
    if (source.lsn == 0) {
        null("sequence");
    } else {
        // Jackson's list of two strings: the previous commit's position, then the change's.
        const std::string previous =
            source.previous_commit_lsn == 0 ? "null" : "\"" + std::to_string(source.previous_commit_lsn) + "\"";
        text("sequence", "[" + previous + ",\"" + std::to_string(source.lsn) + "\"]");
    }
    number("ts_us", source.commit_time_us);
    number("ts_ns", source.commit_time_us * 1000);
    text("schema", source.schema);
    text("table", source.table);
    number("txId", source.xid);
    if (source.lsn == 0) null("lsn");
    else number("lsn", source.lsn);
    null("xmin");
    null("origin");
    null("origin_lsn");
    null("txid");
    null("txtotal_order");
    null("txdata_collection_order");
}

std::string rfc3339_millis(std::int64_t ms) {
    std::int64_t days = ms / 86400000;
    std::int64_t rest = ms % 86400000;
    if (rest < 0) {
        rest += 86400000;
        --days;
    }
    std::int64_t year = 0;
    unsigned month = 0, day = 0;
    civil_from_days(days, year, month, day);
    char text[48];
    std::snprintf(text, sizeof text, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", static_cast<long long>(year),
                  month, day, static_cast<long long>(rest / 3600000), static_cast<long long>(rest / 60000 % 60),
                  static_cast<long long>(rest / 1000 % 60), static_cast<long long>(rest % 1000));
    return text;
}

void write_structured(std::string& out, const CloudEventAttributes& event, std::string_view data_json) {
    out.assign("{\"id\":");
    connect::append_json_string(out, event.id);
    append_member(out, "source", event.source);
    append_member(out, "specversion", kSpecVersion);
    append_member(out, "type", event.type);
    append_member(out, "time", rfc3339_millis(event.time_ms));
    append_member(out, "datacontenttype", event.datacontenttype);
    for (const auto& extension : event.extensions) {
        out += ',';
        connect::append_json_string(out, extension.name);
        out += ':';
        switch (extension.kind) {
            case CloudEventExtension::Kind::string: connect::append_json_string(out, extension.value); break;
            case CloudEventExtension::Kind::integer:
            case CloudEventExtension::Kind::boolean: out += extension.value; break;
            case CloudEventExtension::Kind::null: out += "null"; break;
        }
    }
    out += ",\"data\":";
    out += data_json;
    out += '}';
}

void write_binary_headers(BinaryHeaders& out, const CloudEventAttributes& event) {
    auto& headers = out.headers;
    headers.clear();
    headers.emplace_back("ce_specversion", kSpecVersion);
    headers.emplace_back("ce_id", event.id);
    headers.emplace_back("ce_source", event.source);
    headers.emplace_back("ce_type", event.type);
    if (event.subject) headers.emplace_back("ce_subject", *event.subject);
    headers.emplace_back("ce_time", rfc3339_millis(event.time_ms));
    for (const auto& extension : event.extensions) {
        if (extension.kind == CloudEventExtension::Kind::null) continue;
        std::string name = "ce_";
        for (const char c : extension.name) name += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        headers.emplace_back(std::move(name), extension.value);
    }
    headers.emplace_back("content-type", event.datacontenttype);
}

}  // namespace outbox::router
