#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace outbox::connect {

// An hstore's pairs; a value is nullopt for NULL.
using HstorePairs = std::vector<std::pair<std::string, std::optional<std::string>>>;

// An hstore column's text output ("\"a\"=>\"1\", \"b\"=>NULL", with '"' and '\' escaped by a
// backslash) as its pairs, in the order of the map Debezium makes of it: PostgreSQL's JDBC driver
// reads the pairs into a java.util.HashMap, whose iteration order Kafka Connect's converters
// keep. nullopt for text that is not hstore's output.
std::optional<HstorePairs> parse_hstore(std::string_view text);

// The pairs in a java.util.HashMap's iteration order after inserting them in this order (a
// repeated key keeps its first place and takes the last value): by bucket of String.hashCode()
// in the table the map has grown to, then by insertion. Bins that Java would turn into trees
// (more than eight keys in one bucket of a table of 64 or more) keep insertion order here.
HstorePairs java_hash_map_order(const HstorePairs& pairs);

// java.lang.String.hashCode() of UTF-8 text, over its UTF-16 code units.
std::int32_t java_string_hash(std::string_view utf8);

// hstore.handling.mode json: the map as Debezium's Jackson generator writes it to a String
// ({"a":"1","b":null}; only quotes, backslashes and control characters escaped).
std::string hstore_json(const HstorePairs& pairs);

// hstore.handling.mode map as SimpleHeaderConverter writes a map (Kafka's Values): like JSON, but
// strings escape only '"' and '\'.
std::string hstore_header_text(const HstorePairs& pairs);

// A map's pairs as an object, {key:value,...}, each key and value written by `append_string`
// (JsonConverter's, Jackson's generator's, Kafka Values' quoting), a NULL value bare.
void append_pairs_object(std::string& out, const HstorePairs& pairs,
                         void (*append_string)(std::string&, std::string_view));

// The hstore text of one pair (the unavailable-value placeholder Debezium puts in a map).
std::string hstore_text(std::string_view key, std::string_view value);

}  // namespace outbox::connect
