#pragma once

#include <cstdint>
#include <string>

namespace outbox::connect {

// Text as the Java code between Debezium and the Kafka record writes it. Calendars are
// proleptic Gregorian and the zone is UTC (Kafka Connect workers run in UTC; java.util.Date
// switches to the Julian calendar before 1582, which these do not follow).

// Double.toString and Float.toString as Java 19 and later write them (the shortest digits that
// read back as the same value): "12.5", "1.0E20", "1.0E-4", "NaN", "-Infinity".
std::string java_double_text(double value);
// A double as Jackson writes it in JSON: Java's text, quoted where it is no JSON number
// (NaN, infinities: QUOTE_NON_NUMERIC_NUMBERS).
void append_jackson_double(std::string& out, double value);
std::string java_float_text(float value);

// java.time's ISO-8601 forms of an instant in UTC (microseconds since 1970): the date, then
// "T", the time and "Z". `fraction_digits` 1 to 6 writes exactly that many digits of the
// second's fraction (Debezium's ZonedTimestamp for a column of that precision); 0 writes only
// the digits the value needs, none for a whole second. Years past 9999 get a "+", years
// before 1 are astronomical ("-0043").
std::string iso_date_time(std::int64_t epoch_us, int fraction_digits);
// LocalDate with a UTC offset: "2024-01-02Z".
std::string iso_date(std::int64_t epoch_days);
// LocalTime with a UTC offset, fraction as needed: "03:04:05.5Z".
std::string iso_time(std::int64_t micros_of_day);

// java.util.Date.toString() in UTC: "Tue Jan 02 03:04:05 UTC 2024" (milliseconds dropped).
std::string java_date_text(std::int64_t epoch_ms);
// Kafka Connect's SimpleHeaderConverter for a java.util.Date: "HH:mm:ss.SSS'Z'" below one day
// (every instant before 1970 included), "yyyy-MM-dd" at a midnight, else
// "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'".
std::string connect_header_date_text(std::int64_t epoch_ms);

}  // namespace outbox::connect
