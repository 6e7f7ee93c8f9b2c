// A small JSON reader for the tests of --figure-data: objects, arrays, numbers, strings, true,
// false and null, read strictly (a stray character, a missing comma or trailing text is an
// error). It is the tests' own, apart from common/json_writer.h, so that a writer's mistake
// cannot be mirrored by its reader.
#pragma once
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct Json {
    enum class Kind { null, boolean, number, text, array, object } kind = Kind::null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<Json> items;
    std::map<std::string, Json> fields;

    const Json& operator[](const std::string& name) const {
        const auto found = fields.find(name);
        if (kind != Kind::object || found == fields.end())
            throw std::runtime_error("JSON: no field \"" + name + "\"");
        return found->second;
    }
    const Json& operator[](size_t i) const {
        if (kind != Kind::array || i >= items.size())
            throw std::runtime_error("JSON: no item " + std::to_string(i));
        return items[i];
    }
    bool has(const std::string& name) const { return fields.count(name) > 0; }
    size_t size() const { return kind == Kind::object ? fields.size() : items.size(); }
    long long whole() const {
        if (kind != Kind::number || number != static_cast<double>(static_cast<long long>(number)))
            throw std::runtime_error("JSON: not a whole number");
        return static_cast<long long>(number);
    }
    // An array of whole numbers, as a vector of T.
    template <class T>
    std::vector<T> wholes() const {
        std::vector<T> out;
        for (const Json& item : items) out.push_back(static_cast<T>(item.whole()));
        return out;
    }
};

class JsonReader {
public:
    explicit JsonReader(const std::string& text) : s_(text) {}

    Json document() {
        Json value = read_value();
        skip_space();
        if (at_ != s_.size()) fail("text after the value");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("JSON at offset " + std::to_string(at_) + ": " + what);
    }
    void skip_space() {
        while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
    }
    bool take(char c) {
        skip_space();
        if (at_ < s_.size() && s_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!take(c)) fail(std::string("expected '") + c + "'");
    }
    bool take_word(const std::string& word) {
        if (s_.compare(at_, word.size(), word) != 0) return false;
        at_ += word.size();
        return true;
    }

    std::string read_string() {
        expect('"');
        std::string out;
        while (at_ < s_.size() && s_[at_] != '"') {
            char c = s_[at_++];
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
            if (c == '\\') {
                if (at_ >= s_.size()) fail("an unfinished escape");
                const char e = s_[at_++];
                if (e == 'u') {
                    if (at_ + 4 > s_.size()) fail("an unfinished \\u escape");
                    c = static_cast<char>(std::stoi(s_.substr(at_, 4), nullptr, 16));
                    at_ += 4;
                } else if (e == 'n') {
                    c = '\n';
                } else if (e == 't') {
                    c = '\t';
                } else if (e == '"' || e == '\\' || e == '/') {
                    c = e;
                } else {
                    fail("an unknown escape");
                }
            }
            out += c;
        }
        expect('"');
        return out;
    }

    Json read_value() {
        skip_space();
        if (at_ >= s_.size()) fail("expected a value");
        Json v;
        const char c = s_[at_];
        if (c == '{') {
            v.kind = Json::Kind::object;
            ++at_;
            if (take('}')) return v;
            do {
                skip_space();
                const std::string name = read_string();
                expect(':');
                if (!v.fields.emplace(name, read_value()).second) fail("a repeated key " + name);
            } while (take(','));
            expect('}');
        } else if (c == '[') {
            v.kind = Json::Kind::array;
            ++at_;
            if (take(']')) return v;
            do v.items.push_back(read_value());
            while (take(','));
            expect(']');
        } else if (c == '"') {
            v.kind = Json::Kind::text;
            v.text = read_string();
        } else if (take_word("true")) {
            v.kind = Json::Kind::boolean;
            v.boolean = true;
        } else if (take_word("false")) {
            v.kind = Json::Kind::boolean;
        } else if (take_word("null")) {
            v.kind = Json::Kind::null;
        } else {
            const size_t start = at_;
            while (at_ < s_.size() &&
                   std::string("-+.eE0123456789").find(s_[at_]) != std::string::npos)
                ++at_;
            if (at_ == start) fail("expected a value");
            char* end = nullptr;
            const std::string digits = s_.substr(start, at_ - start);
            v.kind = Json::Kind::number;
            v.number = std::strtod(digits.c_str(), &end);
            if (end != digits.c_str() + digits.size()) fail("a malformed number " + digits);
        }
        return v;
    }

    const std::string& s_;
    size_t at_ = 0;
};

inline Json read_json(const std::string& text) {
    return JsonReader(text).document();
}
