#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace outbox::connect {

struct PointValue {
    double x = 0;
    double y = 0;
};

// A point column's text ("(1.5,-2)", "(Infinity,NaN)") as PostgreSQL's JDBC driver's PGpoint
// reads it. nullopt for anything else.
std::optional<PointValue> parse_point(std::string_view text);

// The point as Debezium's io.debezium.data.geometry.Point carries it in `wkb`: well-known
// binary, 21 bytes: a byte-order byte 1, then in little-endian order the type 1 (a 2D point)
// as 4 bytes and x and y as IEEE doubles.
std::string point_wkb(const PointValue& point);

}  // namespace outbox::connect
