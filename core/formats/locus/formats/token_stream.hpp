#pragma once
/// \file
/// Whitespace-separated integer tokens with their line numbers: the reader of files that are
/// plain number streams (QAPLIB .dat and .sln), where rows may wrap over lines at will.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "locus/error.hpp"

namespace locus::formats {

/// Reads integer tokens one at a time from `text` (which must outlive the stream); a leading
/// UTF-8 byte-order mark is skipped. Errors name "<source>:<line>".
class TokenStream {
public:
    TokenStream(std::string_view text, std::string source);

    /// The next token as an integer, or nullopt at the end of the text. Throws InstanceError
    /// "<source>:<line>: '<token>' is not an integer" or "... does not fit in 64 bits" (the
    /// token escaped() and cut to 64 bytes). Throws Stopped when the stop flag is raised (read
    /// every 2^20 tokens).
    std::optional<std::int64_t> next();

    /// The last token read and its 1-based line.
    std::string_view token() const { return token_; }
    std::size_t token_line() const { return token_line_; }

    /// InstanceError "<source>:<line of the last token>: <message>".
    InstanceError error(std::string_view message) const;

private:
    std::string_view text_;
    std::string source_;
    std::size_t pos_ = 0;
    std::size_t line_ = 1;
    std::string_view token_;
    std::size_t token_line_ = 1;
    std::size_t tokens_ = 0; ///< tokens asked for, for the stop flag's reads
};

} // namespace locus::formats
