#pragma once
// Internal: whitespace-separated integer tokens with their line numbers, shared by the .dat
// and .sln readers, and whole-file reading.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "locus/error.hpp"
#include "locus/text.hpp"

namespace locus::qap::detail {

/// Reads tokens one at a time; errors name "<source>:<line>".
class TokenStream {
public:
    TokenStream(std::string_view text, const std::string& source) : text_(text), source_(source) {
        if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3; // a UTF-8 byte-order mark
    }

    /// The next token as an integer, or nullopt at the end of the text. Throws InstanceError
    /// "<source>:<line>: '<token>' is not an integer" or "... does not fit in 64 bits".
    std::optional<std::int64_t> next() {
        while (pos_ < text_.size() && is_space(text_[pos_])) {
            if (text_[pos_] == '\n') ++line_;
            ++pos_;
        }
        if (pos_ == text_.size()) return std::nullopt;
        const std::size_t start = pos_;
        while (pos_ < text_.size() && !is_space(text_[pos_]))
            ++pos_;
        token_ = text_.substr(start, pos_ - start);
        token_line_ = line_;
        std::int64_t value = 0;
        const char* end = token_.data() + token_.size();
        const auto [ptr, ec] = std::from_chars(token_.data(), end, value);
        if (ec == std::errc::result_out_of_range && ptr == end)
            throw error(fmt::format("'{}' does not fit in 64 bits", escaped(token_)));
        if (ec != std::errc() || ptr != end)
            throw error(fmt::format("'{}' is not an integer", escaped(token_)));
        return value;
    }

    /// The last token read and its 1-based line.
    std::string_view token() const { return token_; }
    std::size_t token_line() const { return token_line_; }

    /// InstanceError "<source>:<line of the last token>: <message>".
    InstanceError error(const std::string& message) const {
        return InstanceError(fmt::format("{}:{}: {}", source_, token_line_, message));
    }

private:
    static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
    }

    std::string_view text_;
    const std::string& source_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::string_view token_;
    std::size_t token_line_ = 1;
};

} // namespace locus::qap::detail
