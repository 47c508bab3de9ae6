// Text helpers that make bytes from files safe to show: printable() for names, message_line()
// for error messages.

#include <doctest/doctest.h>

#include <string>

#include "locus/error.hpp"
#include "locus/text.hpp"

using namespace locus;

TEST_CASE("printable keeps valid UTF-8 and escapes control bytes and invalid sequences") {
    CHECK(printable("kroA100") == "kroA100");
    CHECK(printable("Z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x9a\x9a") ==
          "Z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x9a\x9a"); // ü, €, a 4-byte character
    CHECK(printable("t\x1b[2J\x07") == "t\\x1b[2J\\x07");
    CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
    CHECK(printable("line\nbreak\r\t\x7f") == "line\\x0abreak\\x0d\\x09\\x7f");
    CHECK(printable("\xff\xfe") == "\\xff\\xfe");
    CHECK(printable("\xac") == "\\xac");                 // a lone continuation byte
    CHECK(printable("\xc3") == "\\xc3");                 // a truncated sequence
    CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");        // an overlong '/'
    CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80"); // a surrogate
    CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80"); // past U+10FFFF
    // Backslashes stay: escaping twice changes nothing.
    const std::string once = printable("a\\b\x01");
    CHECK(once == "a\\b\\x01");
    CHECK(printable(once) == once);
}

TEST_CASE("message_line: one line of at most the limit, cut at a character boundary") {
    CHECK(message_line("short") == "short");
    const std::string huge(1000000, 'x');
    const std::string line = message_line(huge);
    CHECK(line.size() <= kMaxMessageBytes);
    CHECK(line.ends_with("...(1000000 bytes)"));
    // Multi-byte characters are not split.
    std::string euros;
    for (int i = 0; i < 1000; ++i) euros += "\xe2\x82\xac";
    const std::string cut = message_line(euros, 100);
    CHECK(cut.size() <= 100);
    CHECK(printable(cut) == cut);
    // Errors are made safe where they are thrown.
    const InstanceError error(std::string("bad name 'a\0b\x1b' ", 16) + huge);
    const std::string what = error.what();
    CHECK(what.starts_with("bad name 'a\\x00b\\x1b' "));
    CHECK(what.size() <= kMaxMessageBytes);
    CHECK(what.find('\n') == std::string::npos);
}
