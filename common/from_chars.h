// std::from_chars for floating point, which libc++ (clang++ -stdlib=libc++, and a Mac's Xcode)
// does not have in the versions that students' machines run. There, the same parse by strtod,
// held to from_chars's grammar: an optional '-', digits with one '.', an optional exponent. The
// rest of what strtod takes (leading spaces, a '+', hex, inf, nan) stops the parse where
// from_chars would stop it. Neither reads the locale: the programs never set one.
#pragma once
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
    const std::string grammar = text.substr(0, text.find_first_not_of("0123456789.eE+-"));
    if (grammar.empty() || grammar[0] == '+') return {first, std::errc::invalid_argument};
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
