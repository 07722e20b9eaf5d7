#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace outbox::connect {

// One element of a PostgreSQL array as its text output writes it: NULL, an element's own text
// (unquoted and unescaped), or, in a multi-dimensional array, a sub-array.
struct PgArrayElement {
    enum class Kind { null, text, array };
    Kind kind = Kind::null;
    std::string text;                       // Kind::text
    std::vector<PgArrayElement> elements;   // Kind::array
    std::string_view source;                // Kind::array: the sub-array's text, braces included (a view of the parsed text)
};

// An array's text output (array_out): an optional dimension decoration ("[0:1]={...}", written when
// a lower bound is not 1, which the elements do not depend on), then braces holding elements
// separated by `delimiter` (',' for every type but box's ';'): NULL, a bare element, or a quoted
// one with backslash escapes; a multi-dimensional array nests braces, every sub-array of a level
// the same length. "{}" is the empty array. Whitespace around elements is skipped, as array_in
// does. The top level's elements, or nullopt for text that is not such an array (unbalanced,
// ragged, a stray quote or character).
std::optional<std::vector<PgArrayElement>> parse_pg_array(std::string_view text, char delimiter = ',');

}  // namespace outbox::connect
