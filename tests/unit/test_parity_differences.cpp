#define BOOST_TEST_MODULE parity_differences
#include <boost/test/unit_test.hpp>

#include "parity_differences.hpp"

using namespace outbox::test;

// The differential fuzzer's classifier (tests/support/parity_differences.hpp), on records the
// fuzzer met: each documented difference is recognised, and what merely resembles one is not.

namespace {

using Reasons = std::set<std::string_view>;

std::optional<Reasons> classify(std::string_view ours, std::string_view theirs, ParityContext context = {}) {
    return documented_differences(ours, theirs, context);
}

std::string_view task_failure(std::string_view payload, bool envelope = false, bool keep_nulls = false) {
    return documented_task_failure(payload, envelope, keep_nulls).value_or("none");
}

const ParityContext kJsonExpanded{true, false, true};

}  // namespace

BOOST_AUTO_TEST_CASE(the_same_bytes_are_no_difference) {
    BOOST_TEST((classify("Struct{a=1}", "Struct{a=1}") == Reasons{}));
    BOOST_TEST(!classify("Struct{a=1}", "Struct{a=2}"));
    BOOST_TEST(!classify(R"({"a":1})", R"({"a":1 })"));
}

BOOST_AUTO_TEST_CASE(java_17_floats_and_doubles_are_recognised_in_text_and_json) {
    // Seed 208: a real in an envelope under StringConverter.
    BOOST_TEST((classify("Struct{payload=x,e_c0=1.1754944E-38,c2=2094-03-12Z}",
                         "Struct{payload=x,e_c0=1.17549435E-38,c2=2094-03-12Z}") == Reasons{kJava17Number}));
    // Seed 205: a double header.
    BOOST_TEST((classify("1.0E23", "9.999999999999999E22") == Reasons{kJava17Number}));
    BOOST_TEST((classify(R"({"a":1.0E23,"b":"1.0E23"})", R"({"a":9.999999999999999E22,"b":"9.999999999999999E22"})") ==
                Reasons{kJava17Number}));
    // Another value, or a double widened from a float, or a longer text on the router's side.
    // Seed 20212: a double header, a whole number below 1e17 (its plain text has all 17 digits).
    BOOST_TEST((classify("-5.712565709911951E16", "-5.7125657099119512E16") == Reasons{kJava17Number}));
    BOOST_TEST((classify("5.712565709911951E16", "5.7125657099119512E16") == Reasons{kJava17Number}));
    BOOST_TEST((classify("[-5.712565709911951E16]", "[-5.7125657099119512E16]") == Reasons{kJava17Number}));
    BOOST_TEST((classify("-1.0E23", "-9.999999999999999E22") == Reasons{kJava17Number}));
    BOOST_TEST(!classify("1.0E23", "9.999999999999997E22"));
    BOOST_TEST(!classify("0.1", "0.10000000149011612"));
    BOOST_TEST(!classify("9.999999999999999E22", "1.0E23"));
    BOOST_TEST(!classify("Struct{c1=1.5}", "Struct{c2=1.5}"));
    BOOST_TEST(!classify("2094-03-12Z", "2094-03-13Z"));
}

BOOST_AUTO_TEST_CASE(merged_fields_in_another_order_only_inside_arrays_of_objects) {
    // Seed 203.
    BOOST_TEST((classify(R"({"payload":{"f2":{},"f1'":[{"c":7,"d":null},{"c":null,"d":2}],"f3/":12.5},"c3":3405937082870})",
                         R"({"payload":{"f2":{},"f1'":[{"d":null,"c":7},{"d":2,"c":null}],"f3/":12.5},"c3":3405937082870})") ==
                Reasons{kMergedFieldOrder}));
    // Top-level fields keep their order on both sides, and values must still match.
    BOOST_TEST(!classify(R"({"a":1,"b":2})", R"({"b":2,"a":1})"));
    BOOST_TEST(!classify(R"({"o":[{"c":7,"d":null}]})", R"({"o":[{"d":null,"c":8}]})"));
    // With schemas: the merged struct's field schemas in the same other order.
    BOOST_TEST((classify(
                    R"({"schema":{"type":"array","items":{"type":"struct","fields":[{"type":"int32","optional":true,"field":"c"},{"type":"int32","optional":true,"field":"d"}]}},"payload":[{"c":7,"d":null}]})",
                    R"({"schema":{"type":"array","items":{"type":"struct","fields":[{"type":"int32","optional":true,"field":"d"},{"type":"int32","optional":true,"field":"c"}]}},"payload":[{"d":null,"c":7}]})") ==
                Reasons{kMergedFieldOrder}));
    // Seed 239: in Struct text (StringConverter), where null fields are left out.
    BOOST_TEST((classify("Struct{payload=Struct{f0=-2.25,f2a=Struct{k0=[Struct{a=0,d=3}, Struct{d=4,b=9}, Struct{c=8}]}},e_c4=1.4E-45}",
                         "Struct{payload=Struct{f0=-2.25,f2a=Struct{k0=[Struct{d=3,a=0}, Struct{d=4,b=9}, Struct{c=8}]}},e_c4=1.4E-45}") ==
                Reasons{kMergedFieldOrder}));
    BOOST_TEST(!classify("Struct{payload=Struct{a=1,b=2}}", "Struct{payload=Struct{b=2,a=1}}"));
    BOOST_TEST(!classify("Struct{k0=[Struct{a=0,d=3}]}", "Struct{k0=[Struct{d=3,a=1}]}"));
    BOOST_TEST(!classify("Struct{k0=[Struct{a=0,d=3}]}", "Struct{k0=[Struct{d=3}]}"));
    // A kept JSON payload inside Struct text is compared as it was written.
    BOOST_TEST((classify(R"(Struct{payload={"a": [{"x": 1, "y": 2}]},c=1.0E23})", R"(Struct{payload={"a": [{"x": 1, "y": 2}]},c=9.999999999999999E22})") ==
                Reasons{kJava17Number}));
    BOOST_TEST(!classify(R"(Struct{payload={"a": [{"x": 1, "y": 2}]}})", R"(Struct{payload={"a": [{"y": 2, "x": 1}]}})"));
    BOOST_TEST(!classify(R"({"type":"struct","fields":[{"type":"int32","field":"c"},{"type":"string","field":"d"}]})",
                         R"({"type":"struct","fields":[{"type":"string","field":"d"},{"type":"int32","field":"c"}]})"));
}

BOOST_AUTO_TEST_CASE(a_mixed_array_expanded_as_json_without_schemas) {
    const std::string theirs = R"("{\"f0\": -2147483649, \"f1\": {\"k2\": -144, \"k0'\": [1.5, -2.25, -1], \"k1\": []}, \"f2\": null}")";
    const std::string ours = R"({"f0":-2147483649,"f1":{"k2":-144,"k0'":[1.5,-2.25,-1]}})";
    BOOST_TEST((classify(ours, theirs, kJsonExpanded) == Reasons{kMixedArrayExpanded}));
    // Not where the router keeps it (schemas, StringConverter) or nothing is expanded.
    BOOST_TEST(!classify(ours, theirs, {true, true, true}));
    BOOST_TEST(!classify(ours, theirs, {false, false, true}));
    BOOST_TEST(!classify(ours, theirs, {true, false, false}));
    // Nor without a mixed array, nor with other contents.
    BOOST_TEST(!classify(R"({"a":[1,2]})", R"("{\"a\": [1, 2]}")", kJsonExpanded));
    BOOST_TEST(!classify(R"({"a":[1,"two"]})", R"("{\"a\": [1, \"three\"]}")", kJsonExpanded));
}

BOOST_AUTO_TEST_CASE(debezium_task_failures_are_recognised_from_the_payload) {
    BOOST_TEST(task_failure(R"({"a": {"b": 100000000000000000000}})") == kBigInteger);
    BOOST_TEST(task_failure(R"({"a": "100000000000000000000", "b": 1e30})") == "none");
    BOOST_TEST(task_failure(R"([{"a": 1}])") == kTopLevelArray);
    BOOST_TEST(task_failure(R"([null, []])") == "none");
    // Seeds 267 and 269: a top-level [] gets no schema, which fails only an envelope.
    BOOST_TEST(task_failure("[]", true) == kEmptyArrayEnvelope);
    BOOST_TEST(task_failure("[]") == "none");
    BOOST_TEST(task_failure("[null]", true) == "none");
    // Seed 347: only nulls have a schema under optional_bytes.
    BOOST_TEST(task_failure("[null, null, null]", false, true) == kTopLevelArray);
    BOOST_TEST(task_failure(R"({"o": [{"x": 1}, {"x": "s"}]})") == kMergedMisfit);
    BOOST_TEST(task_failure(R"({"o": [{"x": 1}, null, {"y": 2}]})") == kMergedMisfit);
    BOOST_TEST(task_failure(R"({"o": [{"x": 1}, {"y": 2}], "a": [1, 2]})") == "none");
}
