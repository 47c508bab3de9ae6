// Integer token streams (QAPLIB files).

#include "locus/formats/token_stream.hpp"

#include <charconv>
#include <utility>

#include <fmt/format.h>

#include "locus/search_context.hpp"

#include "locus/text.hpp"

namespace locus::formats {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

} // namespace

TokenStream::TokenStream(std::string_view text, std::string source)
    : text_(text), source_(std::move(source)) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3; // a UTF-8 byte-order mark
}

std::optional<std::int64_t> TokenStream::next() {
    // The stop flag every 2^20 tokens (two QAP matrices of n = 2,000 are 8·10^6).
    if ((++tokens_ & 0xFFFFF) == 0) throw_if_stopped();
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

InstanceError TokenStream::error(std::string_view message) const {
    return InstanceError(fmt::format("{}:{}: {}", source_, token_line_, message));
}

} // namespace locus::formats
