#include "outbox/config/conninfo.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "outbox/config/references.hpp"
#include "outbox/config/yaml_entries.hpp"

namespace outbox::config {
namespace {

// What libpq's conninfo parser takes for a blank (isspace in the C locale).
bool blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

struct ConninfoOptionsFree {
    void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};
using ConninfoOptions = std::unique_ptr<PQconninfoOption, ConninfoOptionsFree>;

// libpq's verdict on `text`; its message is dropped because it quotes the text.
ConninfoOptions parsed(const std::string& text) {
    char* message = nullptr;
    ConninfoOptions options(PQconninfoParse(text.c_str(), &message));
    PQfreemem(message);
    return options;
}

// Asked of libpq itself, so that the keywords are those of the libpq the router runs with.
bool libpq_knows(const std::string& keyword) {
    return !keyword.empty() && parsed(keyword + "=''") != nullptr;
}

// Why libpq could not read a conninfo, in words that quote none of it.
struct Unreadable {
    std::string problem;
};

struct Setting {
    std::string keyword;
    std::string value;
};

// A keyword already accepted is safe to name; the text after it may be part of a badly quoted value.
std::string setting_after(const std::vector<Setting>& settings) {
    return settings.empty() ? "the first setting" : "the setting after " + settings.back().keyword + "=...";
}

// Key/value form as libpq's conninfo_parse reads it: blanks between settings, blanks allowed
// around '=', a value in single quotes or up to the next blank, a backslash taking the next
// character as is in both.
std::vector<Setting> key_values(std::string_view text) {
    std::vector<Setting> settings;
    std::size_t pos = 0;
    const auto skip_blanks = [&] {
        while (pos < text.size() && blank(text[pos])) ++pos;
    };
    const auto take_escaped = [&](std::string& value) {
        if (++pos < text.size()) value += text[pos++];
    };
    for (;;) {
        skip_blanks();
        if (pos == text.size()) return settings;
        const std::size_t start = pos;
        while (pos < text.size() && text[pos] != '=' && !blank(text[pos])) ++pos;
        std::string keyword(text.substr(start, pos - start));
        skip_blanks();
        if (pos == text.size() || text[pos] != '=') {
            if (keyword.starts_with("${"))
                throw Unreadable{setting_after(settings) +
                                 " is a reference where a keyword belongs: a reference stands for one value "
                                 "(password=${env:NAME}) or for the whole conninfo"};
            throw Unreadable{setting_after(settings) +
                             " is not keyword=value (a value holding blanks goes in single quotes, with \\' and "
                             "\\\\ for a quote and a backslash in it)"};
        }
        if (!libpq_knows(keyword))
            throw Unreadable{setting_after(settings) +
                             " names no libpq connection option (or the value before it holds a blank and needs "
                             "single quotes)"};
        ++pos;
        skip_blanks();
        std::string value;
        if (pos < text.size() && text[pos] == '\'') {
            for (++pos;;) {
                if (pos == text.size()) throw Unreadable{"the quoted value of " + keyword + " has no closing quote"};
                if (text[pos] == '\\') {
                    take_escaped(value);
                } else if (text[pos] == '\'') {
                    ++pos;
                    break;
                } else {
                    value += text[pos++];
                }
            }
        } else {
            while (pos < text.size() && !blank(text[pos])) {
                if (text[pos] == '\\') take_escaped(value);
                else value += text[pos++];
            }
        }
        settings.push_back({std::move(keyword), std::move(value)});
    }
}

// A database name holding "://" or "@" is most likely a connection URL libpq does not read (only
// postgresql:// and postgres:// are its own), and the server's "database ... does not exist"
// would echo it, password included.
void check_database_name(std::string_view name, const std::string& what) {
    if (name.find("://") == std::string_view::npos && name.find('@') == std::string_view::npos) return;
    throw Unreadable{what + " holds \"://\" or \"@\", as a connection URL does: libpq reads only postgresql:// "
                     "and postgres:// URLs (not, e.g., SQLAlchemy's postgresql+psycopg2://) and would take this one "
                     "for a database name; write it as postgresql://... or as host=... dbname=... settings"};
}

void check_no_nul(std::string_view value, const std::string& what) {
    if (value.find('\0') != std::string_view::npos)
        throw Unreadable{what + " holds a NUL character, which libpq cannot take"};
}

// `text` as libpq would read it, each reference (when `expand`) standing for exactly its value.
std::string normalized(const std::string& text, bool expand, const std::string& key, const Location& where) {
    check_no_nul(text, "it");
    if (is_conninfo_uri(text)) {
        const std::string uri = !expand ? text : expand_references(text, key, where, [](std::string_view value) {
            check_no_nul(value, "a reference's value");
            return uri_encoded(value);
        });
        if (!parsed(uri))
            throw Unreadable{"libpq cannot read this connection URI (its message is left out: it quotes the URI, "
                             "password included); check the percent-encoding (%XX), the port and the brackets "
                             "around an IPv6 address"};
        return uri;
    }
    // As libpq: text without '=' is a database name.
    if (text.find('=') == std::string::npos) {
        const std::string name = expand ? expand_references(text, key, where) : text;
        check_no_nul(name, "the database name");
        check_database_name(name, "the text (without '=', so a database name to libpq)");
        return "dbname=" + conninfo_value(name);
    }
    std::string conninfo;
    for (const auto& [keyword, value] : key_values(text)) {
        const std::string expanded = expand ? expand_references(value, key, where) : value;
        check_no_nul(expanded, "the value of " + keyword);
        if (keyword == "dbname") check_database_name(expanded, "the value of dbname");
        conninfo += (conninfo.empty() ? "" : " ") + keyword + "=" + conninfo_value(expanded);
    }
    if (!parsed(conninfo)) throw Unreadable{"libpq cannot read it"};
    return conninfo;
}

}  // namespace

std::string quoted_conninfo_value(std::string_view value) {
    std::string quoted = "'";
    for (const char c : value) {
        if (c == '\'' || c == '\\') quoted += '\\';
        quoted += c;
    }
    return quoted + "'";
}

std::string conninfo_value(std::string_view value) {
    const bool plain = !value.empty() && std::none_of(value.begin(), value.end(), [](char c) {
        return blank(c) || c == '\'' || c == '\\';
    });
    return plain ? std::string(value) : quoted_conninfo_value(value);
}

std::string uri_encoded(std::string_view value) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string encoded;
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') || (byte >= '0' && byte <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~') {
            encoded += c;
        } else {
            encoded.append(1, '%').append(1, kHex[byte >> 4]).append(1, kHex[byte & 0xF]);
        }
    }
    return encoded;
}

bool is_conninfo_uri(std::string_view conninfo) {
    return conninfo.starts_with("postgresql://") || conninfo.starts_with("postgres://");
}

bool libpq_reads(const std::string& conninfo) {
    const char* text = conninfo.c_str();
    if (!is_conninfo_uri(text) && std::string_view(text).find('=') == std::string_view::npos) return true;
    return parsed(text) != nullptr;
}

std::string expand_conninfo(const std::string& written, const std::string& key, const Location& where) {
    if (trim(written).empty()) fail(where, key + ": must not be empty");
    try {
        if (!is_one_reference(written)) return normalized(written, true, key, where);
        const std::string reference(trim(written));
        // The reference's value is the conninfo, taken as it is (not expanded again). Empty,
        // libpq would connect with its defaults (PGHOST, the local socket, the OS user).
        const std::string conninfo = expand_references(written, key, where);
        if (trim(conninfo).empty()) throw Unreadable{reference + " is empty"};
        try {
            return normalized(conninfo, false, key, where);
        } catch (const Unreadable& unreadable) {
            throw Unreadable{"the conninfo in " + reference + ": " + unreadable.problem};
        }
    } catch (const Unreadable& unreadable) {
        fail(where, key + ": " + unreadable.problem);
    }
}

}  // namespace outbox::config
