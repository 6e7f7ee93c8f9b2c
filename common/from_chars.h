// std::from_chars for floating point, which libc++ (clang++ -stdlib=libc++, and a Mac's Xcode)
// does not have in the versions that students' machines run. There, the same parse by strtod,
// whose grammar is from_chars's but for three things it takes more: leading spaces and a '+',
// which from_chars refuses, and hex after "0x", where from_chars stops at the 'x'. Neither reads
// the locale: the programs never set one.
#pragma once
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <string>
#include <system_error>
#include <type_traits>

template <class T>
std::from_chars_result floating_from_chars(const char* first, const char* last, T& value) {
#ifdef __cpp_lib_to_chars
    return std::from_chars(first, last, value);
#else
    const std::string text(first, last);
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])) || text[0] == '+')
        return {first, std::errc::invalid_argument};
    const size_t sign = text[0] == '-' ? 1 : 0;
    const bool hex = text.compare(sign, 2, "0x") == 0 || text.compare(sign, 2, "0X") == 0;
    const std::string grammar = hex ? text.substr(0, sign + 1) : text;
    char* end = nullptr;
    errno = 0;
    T parsed;
    if constexpr (std::is_same_v<T, float>)
        parsed = std::strtof(grammar.c_str(), &end);
    else if constexpr (std::is_same_v<T, double>)
        parsed = std::strtod(grammar.c_str(), &end);
    else
        parsed = std::strtold(grammar.c_str(), &end);
    if (end == grammar.c_str()) return {first, std::errc::invalid_argument};
    const char* stop = first + (end - grammar.c_str());
    if (errno == ERANGE) return {stop, std::errc::result_out_of_range};
    value = parsed;
    return {stop, std::errc()};
#endif
}
