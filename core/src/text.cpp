// Reading whole instance and solution files.

#include "locus/text.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "locus/error.hpp"

namespace locus {

std::string escaped(std::string_view text, std::size_t max_bytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    const std::size_t shown = std::min(text.size(), max_bytes);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\\') {
            out += "\\\\";
        } else if (c < 0x20 || c >= 0x7f) {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    if (shown < text.size()) out += "...(" + std::to_string(text.size()) + " bytes)";
    return out;
}

namespace {

/// Length of the valid UTF-8 sequence at the start of `text` (1-4), or 0 when it is not one
/// (overlong forms, surrogates and code points above U+10FFFF are not valid).
std::size_t utf8_sequence(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned min_second = 0x80, max_second = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        if (lead == 0xe0) min_second = 0xa0; // overlong
        if (lead == 0xed) max_second = 0x9f; // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        if (lead == 0xf0) min_second = 0x90; // overlong
        if (lead == 0xf4) max_second = 0x8f; // above U+10FFFF
    } else {
        return 0;
    }
    if (text.size() < length) return 0;
    if (byte(1) < min_second || byte(1) > max_second) return 0;
    for (std::size_t i = 2; i < length; ++i)
        if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
    return length;
}

void append_hex(std::string& out, unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
}

} // namespace

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const std::size_t length = utf8_sequence(text);
        const auto c = static_cast<unsigned char>(text.front());
        if (length == 0 || (length == 1 && (c < 0x20 || c == 0x7f))) {
            append_hex(out, c);
            text.remove_prefix(1);
        } else {
            out.append(text.substr(0, length));
            text.remove_prefix(length);
        }
    }
    return out;
}

std::string message_line(std::string_view text, std::size_t max_bytes) {
    std::string line = printable(text);
    if (line.size() <= max_bytes) return line;
    const std::string tail = "...(" + std::to_string(text.size()) + " bytes)";
    std::size_t keep = max_bytes > tail.size() ? max_bytes - tail.size() : 0;
    // NOTE: cut before a UTF-8 continuation byte's sequence, never inside a character.
    while (keep > 0 && (static_cast<unsigned char>(line[keep]) & 0xc0) == 0x80)
        --keep;
    line.resize(keep);
    return line + tail;
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
    // NOTE: the largest file read, by what it is: configs and experiment specs (and the small
    // JSON files an experiment keeps beside its runs) are written by hand and stay far below
    // 16 MiB; instances and solutions stay below 1 GiB (a TSPLIB file of 10 million cities or
    // an EXPLICIT matrix of a few thousand nodes is a few hundred MB). A larger file is refused
    // before it is read; a pipe, or a file that grows while read, at the bound. Devices are
    // refused unopened: /dev/zero and /dev/urandom never end, a disk is not a text file.
    constexpr std::uint64_t kLargestDataFile = std::uint64_t{1} << 30;   // 1 GiB
    constexpr std::uint64_t kLargestSmallFile = std::uint64_t{16} << 20; // 16 MiB
    const bool small = what == "config" || what == "experiment spec" ||
                       what == "experiment stamp" || what == "peer summary";
    const std::uint64_t largest = small ? kLargestSmallFile : kLargestDataFile;
    const auto refuse_size = [&] {
        return InstanceError(fmt::format("{} file '{}' exceeds {} bytes (the largest {} file read)",
                                         what, path.string(), largest, what));
    };
    const auto refuse_kind = [&](mode_t mode) {
        const char* kind = S_ISCHR(mode)    ? "a character device"
                           : S_ISBLK(mode)  ? "a block device"
                           : S_ISSOCK(mode) ? "a socket"
                                            : "not a file";
        return InstanceError(fmt::format("{} file '{}' is not a regular file or a pipe ({})", what,
                                         path.string(), kind));
    };
    const auto readable = [](mode_t mode) {
        return S_ISREG(mode) || S_ISFIFO(mode) || S_ISDIR(mode); // a directory: EISDIR below
    };
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && !readable(info.st_mode))
        throw refuse_kind(info.st_mode);
    // NOTE: a pipe is opened as before, waiting for its writer (an instance may come from one).
    int fd = -1;
    do {
        errno = 0;
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        throw InstanceError(
            fmt::format("cannot open {} file '{}': {}", what, path.string(), std::strerror(errno)));
    const std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { ::close(*f); });
    if (::fstat(fd, &info) != 0)
        throw InstanceError(
            fmt::format("cannot read {} file '{}': {}", what, path.string(), std::strerror(errno)));
    if (S_ISDIR(info.st_mode))
        throw InstanceError(fmt::format("cannot read {} file '{}': {}", what, path.string(),
                                        std::strerror(EISDIR)));
    if (!readable(info.st_mode)) throw refuse_kind(info.st_mode);
    if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) > largest)
        throw refuse_size();
    std::string text;
    if (S_ISREG(info.st_mode)) text.reserve(static_cast<std::size_t>(info.st_size));
    char buffer[1 << 16];
    for (;;) {
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            throw InstanceError(fmt::format("cannot read {} file '{}': {}", what, path.string(),
                                            std::strerror(errno)));
        }
        if (text.size() + static_cast<std::size_t>(got) > largest) throw refuse_size();
        text.append(buffer, static_cast<std::size_t>(got));
    }
    return text;
}

std::optional<double> parse_number(std::string_view word) {
    if (word.starts_with('+')) word.remove_prefix(1);
    double value = 0.0;
    const char* end = word.data() + word.size();
    const auto [ptr, ec] = std::from_chars(word.data(), end, value);
    if (word.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<std::int64_t> parse_integer(std::string_view word) {
    if (word.starts_with('+')) word.remove_prefix(1);
    std::int64_t value = 0;
    const char* end = word.data() + word.size();
    const auto [ptr, ec] = std::from_chars(word.data(), end, value);
    if (word.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

} // namespace locus
