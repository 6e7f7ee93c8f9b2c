// A JSON text written in order, for the figure data that programs write (--figure-data) and
// that bench/figures.py draws. The writer places the commas and the quotes; the caller says where
// each object and array begins and ends. An object's fields are indented one a line, so that a
// reader can find an array by its name; an object inside an array takes one line of its own, and
// arrays of numbers stay on one line.
#pragma once
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

class JsonWriter {
public:
    JsonWriter& begin_object() {
        const bool in_array = !open_.empty() && !open_.back().is_object;
        open_value(in_array);
        if (in_array) new_line();
        text_ += '{';
        open_.push_back({true, true, in_array || (!open_.empty() && open_.back().one_line)});
        return *this;
    }
    JsonWriter& begin_array() {
        open_value();
        text_ += '[';
        open_.push_back({false, true, false});
        return *this;
    }
    JsonWriter& end() {
        if (open_.empty() || awaiting_value_) throw std::logic_error("JsonWriter: nothing to end");
        const Open closing = open_.back();
        open_.pop_back();
        if (closing.is_object && !closing.empty && !closing.one_line) new_line();
        text_ += closing.is_object ? '}' : ']';
        return *this;
    }
    // The name of the next value, inside an object.
    JsonWriter& key(const std::string& name) {
        if (open_.empty() || !open_.back().is_object || awaiting_value_)
            throw std::logic_error("JsonWriter: a key belongs inside an object, before a value");
        if (!open_.back().empty) text_ += open_.back().one_line ? ", " : ",";
        if (!open_.back().one_line) new_line();
        open_.back().empty = false;
        append_quoted(name);
        text_ += ": ";
        awaiting_value_ = true;
        return *this;
    }

    JsonWriter& value(const std::string& s) {
        open_value();
        append_quoted(s);
        return *this;
    }
    JsonWriter& value(const char* s) { return value(std::string(s)); }
    JsonWriter& value(bool b) {
        open_value();
        text_ += b ? "true" : "false";
        return *this;
    }
    // Whole numbers exactly; other numbers with 9 significant digits (a float's round trip).
    // JSON has no inf or NaN: they are written as null.
    template <class Number, std::enable_if_t<std::is_arithmetic_v<Number>, int> = 0>
    JsonWriter& value(Number n) {
        open_value();
        if constexpr (std::is_integral_v<Number>) {
            text_ += std::to_string(n);
        } else if (!std::isfinite(static_cast<double>(n))) {
            text_ += "null";
        } else {
            char digits[32];
            std::snprintf(digits, sizeof digits, "%.9g", static_cast<double>(n));
            text_ += digits;
        }
        return *this;
    }
    template <class T>
    JsonWriter& value(const std::vector<T>& items) {
        begin_array();
        for (const T& item : items) value(item);
        return end();
    }
    template <class T>
    JsonWriter& field(const std::string& name, const T& v) {
        key(name);
        return value(v);
    }

    // The whole text, once every object and array has ended.
    std::string text() const {
        if (!open_.empty() || awaiting_value_) throw std::logic_error("JsonWriter: unfinished");
        return text_ + "\n";
    }

private:
    struct Open {
        bool is_object;
        bool empty;
        bool one_line;  // an object inside an array, or inside such an object
    };

    // Before any value: inside an array, the comma (before a line break where the value takes a
    // line of its own); inside an object, the key must come first.
    void open_value(bool own_line = false) {
        if (awaiting_value_) {
            awaiting_value_ = false;
            return;
        }
        if (open_.empty()) {
            if (!text_.empty()) throw std::logic_error("JsonWriter: one top-level value only");
            return;
        }
        if (open_.back().is_object) throw std::logic_error("JsonWriter: a value needs a key here");
        if (!open_.back().empty) text_ += own_line ? "," : ", ";
        open_.back().empty = false;
    }

    void new_line() {
        text_ += '\n';
        text_.append(2 * open_.size(), ' ');
    }

    void append_quoted(const std::string& s) {
        text_ += '"';
        for (const char c : s) {
            if (c == '"' || c == '\\') {
                text_ += '\\';
                text_ += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                text_ += escaped;
            } else {
                text_ += c;
            }
        }
        text_ += '"';
    }

    std::string text_;
    std::vector<Open> open_;
    bool awaiting_value_ = false;
};
