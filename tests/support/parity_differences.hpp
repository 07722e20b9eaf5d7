#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace outbox::test {

// The differences between the router's bytes and Debezium's that docs/configuration.md documents,
// each recognised by what it is, for the differential fuzzer (tests/parity/test_parity_fuzz.cpp):
// anything else is a failure.

// Java 17 (the test's Connect JVM) writes some floats and doubles with more digits than the
// shortest text that reads back the same, which the router writes (as Java 19 and later do).
inline constexpr std::string_view kJava17Number =
    "a float or double Java 17 writes longer (the router writes the shortest text, as Java 19+)";
// Objects merged inside an expanded array list their fields in order of first appearance;
// Debezium in its hash set's order (and its schema's struct fields likewise).
inline constexpr std::string_view kMergedFieldOrder = "merged object fields in another order (Debezium: a hash set's order)";
// As JSON without schemas the router expands an array mixing types; Debezium keeps the string.
inline constexpr std::string_view kMixedArrayExpanded =
    "an array mixing types expanded as JSON without schemas (Debezium keeps the payload's text)";
// Debezium's task fails on the expanded payload (its record skipped under errors.tolerance all).
inline constexpr std::string_view kBigInteger = "Debezium's task fails on an integer beyond 64 bits in an expanded payload";
inline constexpr std::string_view kTopLevelArray = "Debezium's task fails on a top-level array it infers a schema for";
inline constexpr std::string_view kEmptyArrayEnvelope =
    "Debezium's task fails on a top-level [] (no schema) with envelope fields";
inline constexpr std::string_view kMergedMisfit = "Debezium's task fails on values that do not fit its merged array schema";

// What decides which differences can occur.
struct ParityContext {
    bool value_json = false;     // value.converter JsonConverter
    bool value_schemas = false;  // ... with schemas.enable
    bool expand = false;         // table.expand.json.payload
};

// The documented differences that together turn `theirs` (Debezium's bytes of a key, value or
// header) into `ours`, or nothing when some part of the difference is not documented. Empty
// when the bytes are the same.
std::optional<std::set<std::string_view>> documented_differences(std::string_view ours, std::string_view theirs,
                                                                 const ParityContext& context);

// Why Debezium's task fails on expanding `payload` (as PostgreSQL stores it), as documented, or
// nothing; `envelope`: the record has envelope fields; `keep_nulls`:
// table.json.payload.null.behavior optional_bytes, under which nulls have a schema.
std::optional<std::string_view> documented_task_failure(std::string_view payload, bool envelope, bool keep_nulls);

}  // namespace outbox::test
