#include "outbox/connect/hstore_value.hpp"

#include <cstdint>
#include <utility>

#include "outbox/connect/column_value.hpp"

namespace outbox::connect {
namespace {

// A double-quoted string at `at` with backslash escapes; `at` moves past it.
std::optional<std::string> quoted(std::string_view text, std::size_t& at) {
    if (at >= text.size() || text[at] != '"') return std::nullopt;
    std::string out;
    for (++at; at < text.size(); ++at) {
        if (text[at] == '"') {
            ++at;
            return out;
        }
        if (text[at] == '\\') {
            if (++at == text.size()) return std::nullopt;
        }
        out.push_back(text[at]);
    }
    return std::nullopt;
}

// A JSON string as Jackson's generator writes it to a java.io.Writer (Debezium's hstore JSON):
// quotes, backslashes and control characters escaped, everything else as it is (characters past
// the Basic Multilingual Plane too, unlike Connect's UTF-8 output).
void append_writer_json_string(std::string& out, std::string_view text) {
    out += '"';
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || c == '"' || c == '\\') append_json_escape(out, u);
        else out += c;
    }
    out += '"';
}

std::uint32_t spread(std::int32_t hash) {
    // HashMap.hash(): the high half folded into the low half.
    const auto h = static_cast<std::uint32_t>(hash);
    return h ^ (h >> 16);
}

}  // namespace

std::optional<HstorePairs> parse_hstore(std::string_view text) {
    HstorePairs pairs;
    std::size_t at = 0;
    while (at < text.size()) {
        if (!pairs.empty()) {
            if (text.substr(at, 2) != ", ") return std::nullopt;
            at += 2;
        }
        auto key = quoted(text, at);
        if (!key || text.substr(at, 2) != "=>") return std::nullopt;
        at += 2;
        if (text.substr(at, 4) == "NULL") {
            at += 4;
            pairs.emplace_back(std::move(*key), std::nullopt);
            continue;
        }
        auto value = quoted(text, at);
        if (!value) return std::nullopt;
        pairs.emplace_back(std::move(*key), std::move(*value));
    }
    return pairs;
}

std::int32_t java_string_hash(std::string_view utf8) {
    std::uint32_t hash = 0;
    const auto add = [&](std::uint32_t unit) { hash = hash * 31 + unit; };
    for (std::size_t i = 0; i < utf8.size();) {
        const auto lead = static_cast<unsigned char>(utf8[i]);
        const std::size_t length = lead < 0x80 ? 1 : (lead & 0xE0) == 0xC0 ? 2 : (lead & 0xF0) == 0xE0 ? 3 : (lead & 0xF8) == 0xF0 ? 4 : 1;
        if (length == 1 || i + length > utf8.size()) {
            add(lead < 0x80 ? lead : 0xFFFD);  // a stray byte decodes to the replacement character
            ++i;
            continue;
        }
        std::uint32_t code_point = lead & (0x7F >> length);
        for (std::size_t k = 1; k < length; ++k) code_point = code_point << 6 | (static_cast<unsigned char>(utf8[i + k]) & 0x3F);
        if (code_point >= 0x10000) {
            add(0xD800 + ((code_point - 0x10000) >> 10));
            add(0xDC00 + ((code_point - 0x10000) & 0x3FF));
        } else {
            add(code_point);
        }
        i += length;
    }
    return static_cast<std::int32_t>(hash);
}

HstorePairs java_hash_map_order(const HstorePairs& pairs) {
    // Insertion into a simulated HashMap: buckets of indices into `unique`, in insertion order.
    HstorePairs unique;
    std::vector<std::uint32_t> hashes;
    std::vector<std::vector<std::size_t>> buckets(16);
    const auto rebucket = [&](std::size_t capacity) {
        std::vector<std::vector<std::size_t>> grown(capacity);
        for (const auto& bucket : buckets)
            for (const std::size_t index : bucket) grown[hashes[index] & (capacity - 1)].push_back(index);
        buckets = std::move(grown);
    };
    for (const auto& [key, value] : pairs) {
        const std::uint32_t hash = spread(java_string_hash(key));
        auto& bucket = buckets[hash & (buckets.size() - 1)];
        bool replaced = false;
        for (const std::size_t index : bucket)
            if (unique[index].first == key) {
                unique[index].second = value;
                replaced = true;
            }
        if (replaced) continue;
        const std::size_t chain = bucket.size();
        unique.emplace_back(key, value);
        hashes.push_back(hash);
        bucket.push_back(unique.size() - 1);
        // A ninth node in one bin grows a table under 64 instead of making the bin a tree.
        if (chain >= 8 && buckets.size() < 64) rebucket(buckets.size() * 2);
        if (unique.size() > buckets.size() * 3 / 4) rebucket(buckets.size() * 2);
    }
    HstorePairs ordered;
    ordered.reserve(unique.size());
    for (const auto& bucket : buckets)
        for (const std::size_t index : bucket) ordered.push_back(unique[index]);
    return ordered;
}

void append_pairs_object(std::string& out, const HstorePairs& pairs,
                         void (*append_string)(std::string&, std::string_view)) {
    out += '{';
    bool first = true;
    for (const auto& [key, value] : pairs) {
        if (!std::exchange(first, false)) out += ',';
        append_string(out, key);
        out += ':';
        if (value) append_string(out, *value);
        else out += "null";
    }
    out += '}';
}

std::string hstore_json(const HstorePairs& pairs) {
    std::string out;
    append_pairs_object(out, pairs, append_writer_json_string);
    return out;
}

std::string hstore_header_text(const HstorePairs& pairs) {
    std::string out;
    append_pairs_object(out, pairs, append_backslash_quoted);
    return out;
}

std::string hstore_text(std::string_view key, std::string_view value) {
    std::string out;
    append_backslash_quoted(out, key);
    out += "=>";
    append_backslash_quoted(out, value);
    return out;
}

}  // namespace outbox::connect
