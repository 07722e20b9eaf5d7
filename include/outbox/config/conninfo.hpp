#pragma once

// libpq connection strings, key/value ("host=db password='x'") or URI ("postgresql://db/app"):
// reading postgres.conninfo with its ${env:}/${file:} references, and writing values into one.
// Every conninfo the router builds goes through here, so that libpq sees each value exactly as
// given, whatever characters it holds, and no libpq parse message, which quotes the text it
// could not read (a password included), is ever shown.

#include <string>
#include <string_view>

#include "outbox/config/config.hpp"

namespace outbox::config {

// A value for key/value form: as is where libpq reads it so, else in single quotes (with a
// backslash before each quote and backslash).
std::string conninfo_value(std::string_view value);
// Always in single quotes (for text that is expanded later and may then hold blanks).
std::string quoted_conninfo_value(std::string_view value);
// A value for any part of a connection URI: every byte but A-Z a-z 0-9 - . _ ~ percent-encoded.
std::string uri_encoded(std::string_view value);

bool is_conninfo_uri(std::string_view conninfo);

// Whether libpq can read `conninfo` as it takes postgres.conninfo (as dbname with expand_dbname):
// a URI or key/value text it parses, or a bare database name.
bool libpq_reads(const std::string& conninfo);

// postgres.conninfo as written in the config, references expanded so that each stands for
// exactly its value:
// - the whole text one reference: its value is the conninfo (key/value, URI or a database name);
// - key/value form: parsed as libpq parses it, references expanded inside each value, written
//   back with conninfo_value();
// - URI form: each reference's value percent-encoded;
// - no '=': the text is a database name, written back as dbname='...'.
// What libpq could not read is a ConfigError at `where` naming `key` and the setting at fault by
// its keyword or position, never quoting the text.
std::string expand_conninfo(const std::string& written, const std::string& key, const Location& where);

}  // namespace outbox::config
