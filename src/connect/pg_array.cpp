#include "outbox/connect/pg_array.hpp"

namespace outbox::connect {
namespace {

// PostgreSQL's MAXDIM.
constexpr int kMaxDimensions = 6;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

class ArrayParser {
public:
    ArrayParser(std::string_view text, char delimiter) : text_(text), delimiter_(delimiter) {}

    std::optional<std::vector<PgArrayElement>> parse() {
        skip_space();
        if (!skip_dimensions()) return std::nullopt;
        skip_space();
        PgArrayElement top;
        if (!parse_array(top, 1)) return std::nullopt;
        skip_space();
        if (at_ != text_.size()) return std::nullopt;
        if (!rectangular(top.elements)) return std::nullopt;
        return std::move(top.elements);
    }

private:
    // "[l:u][l:u]=": the bounds are checked for form only; the braces carry the elements.
    bool skip_dimensions() {
        if (at_ >= text_.size() || text_[at_] != '[') return true;
        int dimensions = 0;
        while (at_ < text_.size() && text_[at_] == '[') {
            if (++dimensions > kMaxDimensions) return false;
            ++at_;
            if (!skip_bound()) return false;
            if (at_ < text_.size() && text_[at_] == ':') {
                ++at_;
                if (!skip_bound()) return false;
            }
            if (at_ >= text_.size() || text_[at_] != ']') return false;
            ++at_;
        }
        if (at_ >= text_.size() || text_[at_] != '=') return false;
        ++at_;
        return true;
    }

    bool skip_bound() {
        if (at_ < text_.size() && (text_[at_] == '-' || text_[at_] == '+')) ++at_;
        const std::size_t start = at_;
        while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
        return at_ > start;
    }

    bool parse_array(PgArrayElement& array, int depth) {
        if (depth > kMaxDimensions || at_ >= text_.size() || text_[at_] != '{') return false;
        const std::size_t start = at_++;
        array.kind = PgArrayElement::Kind::array;
        skip_space();
        if (at_ < text_.size() && text_[at_] == '}') {
            ++at_;
            array.source = text_.substr(start, at_ - start);
            return true;
        }
        for (;;) {
            skip_space();
            PgArrayElement element;
            if (at_ < text_.size() && text_[at_] == '{') {
                if (!parse_array(element, depth + 1) || element.elements.empty()) return false;
            } else if (!parse_scalar(element)) {
                return false;
            }
            array.elements.push_back(std::move(element));
            skip_space();
            if (at_ >= text_.size()) return false;
            if (text_[at_] == '}') {
                ++at_;
                array.source = text_.substr(start, at_ - start);
                return true;
            }
            if (text_[at_] != delimiter_) return false;
            ++at_;
        }
    }

    bool parse_scalar(PgArrayElement& element) {
        if (at_ >= text_.size()) return false;
        element.kind = PgArrayElement::Kind::text;
        if (text_[at_] == '"') {
            ++at_;
            for (;;) {
                if (at_ >= text_.size()) return false;
                const char c = text_[at_++];
                if (c == '"') return true;
                if (c == '\\') {
                    if (at_ >= text_.size()) return false;
                    element.text += text_[at_++];
                } else {
                    element.text += c;
                }
            }
        }
        // A bare element ends at the delimiter or the closing brace; trailing whitespace is not
        // part of it, and an escaped character is (array_in's rules). NULL in any case, unquoted
        // and unescaped, is the null element; "NULL" and \NULL are text.
        std::size_t kept = 0;  // the text's length up to its last non-space or escaped character
        bool escaped = false;
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == delimiter_ || c == '}') break;
            if (c == '{' || c == '"') return false;
            ++at_;
            if (c == '\\') {
                if (at_ >= text_.size()) return false;
                element.text += text_[at_++];
                kept = element.text.size();
                escaped = true;
            } else {
                element.text += c;
                if (!is_space(c)) kept = element.text.size();
            }
        }
        element.text.resize(kept);
        if (element.text.empty()) return false;
        if (!escaped && element.text.size() == 4) {
            static constexpr char kNull[] = "null";
            bool null = true;
            for (std::size_t i = 0; i < 4; ++i) null = null && (element.text[i] | 0x20) == kNull[i];
            if (null) {
                element.kind = PgArrayElement::Kind::null;
                element.text.clear();
            }
        }
        return true;
    }

    // Every sub-array of a level has the same length and depth, and a level holds sub-arrays
    // only or elements only.
    static bool rectangular(const std::vector<PgArrayElement>& elements) {
        if (elements.empty()) return true;
        const bool nested = elements.front().kind == PgArrayElement::Kind::array;
        for (const auto& element : elements) {
            if ((element.kind == PgArrayElement::Kind::array) != nested) return false;
            if (nested && (element.elements.size() != elements.front().elements.size() || !rectangular(element.elements)))
                return false;
        }
        if (nested)
            for (std::size_t i = 0; i < elements.front().elements.size(); ++i)
                for (const auto& element : elements)
                    if ((element.elements[i].kind == PgArrayElement::Kind::array) !=
                        (elements.front().elements[i].kind == PgArrayElement::Kind::array))
                        return false;
        return true;
    }

    void skip_space() {
        while (at_ < text_.size() && is_space(text_[at_])) ++at_;
    }

    std::string_view text_;
    char delimiter_;
    std::size_t at_ = 0;
};

}  // namespace

std::optional<std::vector<PgArrayElement>> parse_pg_array(std::string_view text, char delimiter) {
    return ArrayParser(text, delimiter).parse();
}

}  // namespace outbox::connect
