// The scalar keys of an experiment spec through the config validator (see spec_keys.hpp).

#include "spec_keys.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "locus/component.hpp"
#include "locus/config.hpp"
#include "locus/error.hpp"
#include "locus/params.hpp"
#include "locus/registry.hpp"

namespace locus::app {
namespace {

namespace fs = std::filesystem;

/// The spec's scalar keys, as the root schema (kind and name "job") of a registry of their own,
/// so that compose_config checks them as it checks a config's keys. `seed_item`: the schema of
/// one seed of a `seeds` list instead of the count.
void register_spec_schema(Registry& registry, bool seed_item) {
    ComponentSchema schema{"job", "job", "", "The scalar keys of an experiment spec."};
    schema.string("name", "", "the experiment's name (default: the spec file's name)");
    schema.real("time_limit", "0",
                "seconds per run, given to every run (0: each config's own limits); peers need it",
                0.0);
    if (seed_item)
        schema.integer("seeds", "1", "one seed of the list", 0.0);
    else
        schema.integer("seeds", "1", "seeds per config and instance: 1..N (or a list)", 1.0,
                       1000000.0);
    registry.add(schema, [](const Params&, BuildContext&) -> std::unique_ptr<Component> {
        throw NotImplemented("the experiment spec schema builds nothing");
    });
}

/// Where a yaml-cpp mark lies in `text`: the byte offset of its line and column.
std::size_t offset_of(const std::string& text, const YAML::Mark& mark) {
    std::size_t at = 0;
    for (int line = 0; line < mark.line && at < text.size(); ++line) {
        const std::size_t lf = text.find('\n', at);
        if (lf == std::string::npos) return text.size();
        at = lf + 1;
    }
    return std::min(text.size(), at + static_cast<std::size_t>(std::max(mark.column, 0)));
}

/// The end of the scalar written at `at` (quoted, or plain up to a line end, a comment or, in a
/// flow collection, a separator).
std::size_t scalar_end(const std::string& text, std::size_t at, bool flow) {
    const std::size_t n = text.size();
    if (at < n && (text[at] == '"' || text[at] == '\'')) {
        const char quote = text[at];
        for (std::size_t i = at + 1; i < n; ++i) {
            if (quote == '"' && text[i] == '\\') {
                ++i;
            } else if (text[i] == quote) {
                if (quote == '\'' && i + 1 < n && text[i + 1] == quote) {
                    ++i;
                    continue;
                }
                return i + 1;
            }
        }
        return n;
    }
    std::size_t i = at;
    for (; i < n; ++i) {
        const char c = text[i];
        if (c == '\n' || c == '\r' || (flow && (c == ',' || c == ']' || c == '}')) ||
            (c == '#' && i > at && (text[i - 1] == ' ' || text[i - 1] == '\t')))
            break;
    }
    return i;
}

/// `text` with every byte outside the ranges `keep` replaced by a space (line ends kept), so
/// that what is kept stays at its line and column.
std::string blanked(const std::string& text,
                    const std::vector<std::pair<std::size_t, std::size_t>>& keep) {
    std::string out(text.size(), ' ');
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n' || text[i] == '\r') out[i] = text[i];
    for (const auto& [from, to] : keep)
        for (std::size_t i = from; i < std::min(to, text.size()); ++i)
            out[i] = text[i];
    return out;
}

} // namespace

SpecKeys spec_keys(const std::string& text, const YAML::Node& root, const fs::path& file) {
    // The byte ranges of the root's entries, in the order they are written.
    struct Entry {
        std::string key;
        std::size_t begin, end;
        YAML::Node value;
    };
    std::vector<Entry> entries;
    for (const auto& item : root)
        entries.push_back(
            {item.first.Scalar(), offset_of(text, item.first.Mark()), 0, item.second});
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
    const bool flow = root.Style() == YAML::EmitterStyle::Flow;
    std::vector<std::pair<std::size_t, std::size_t>> frame; // a flow map's braces
    std::size_t end = text.size();
    if (flow) {
        const std::size_t open = offset_of(text, root.Mark());
        end = text.rfind('}');
        if (end == std::string::npos || end < open) end = text.size();
        frame = {{open, open + 1}, {end, end + 1}};
    }
    for (std::size_t k = 0; k < entries.size(); ++k)
        entries[k].end = k + 1 < entries.size() ? entries[k + 1].begin : end;

    const auto compose = [&](std::vector<std::pair<std::size_t, std::size_t>> keep,
                             bool seed_item) {
        Registry registry;
        register_spec_schema(registry, seed_item);
        keep.insert(keep.end(), frame.begin(), frame.end());
        return compose_config(blanked(text, keep), file.string(), {}, registry);
    };
    SpecKeys keys;
    std::vector<std::pair<std::size_t, std::size_t>> scalars;
    const Entry* seed_list = nullptr;
    for (const Entry& e : entries) {
        if (e.key == "seeds" && e.value.IsSequence())
            seed_list = &e;
        else if (e.key == "name" || e.key == "time_limit" || e.key == "seeds")
            scalars.push_back({e.begin, e.end});
    }
    long long count = 1;
    if (!scalars.empty()) { // NOTE: compose_config refuses an empty document
        const Params checked = compose(scalars, false);
        if (checked.has("name")) keys.name = checked.get_string("name");
        keys.time_limit = checked.get_real("time_limit");
        count = checked.get_int("seeds");
    }
    if (seed_list == nullptr) {
        for (long long s = 1; s <= count; ++s)
            keys.seeds.push_back(s);
        return keys;
    }
    const std::size_t colon = text.find(':', seed_list->begin);
    const bool flow_list = seed_list->value.Style() == YAML::EmitterStyle::Flow;
    for (const auto& seed : seed_list->value) {
        const std::size_t at = offset_of(text, seed.Mark());
        if (!seed.IsScalar()) {
            const SourceLocation where{file.string(), seed.Mark().line + 1, seed.Mark().column + 1};
            throw ConfigError(fmt::format("{}: seeds: expected an integer, got {}", where.str(),
                                          seed.IsMap() ? "a map" : "a list"));
        }
        const Params one =
            compose({{seed_list->begin, colon + 1}, {at, scalar_end(text, at, flow_list)}}, true);
        keys.seeds.push_back(one.get_int("seeds"));
    }
    if (keys.seeds.empty()) throw ConfigError(fmt::format("{}: 'seeds' is empty", file.string()));
    return keys;
}

} // namespace locus::app
