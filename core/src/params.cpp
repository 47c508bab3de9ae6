#include "locus/params.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <utility>

#include "locus/error.hpp"

namespace locus {

std::string SourceLocation::str() const {
    if (line <= 0)
        return file.empty() ? std::string("<default>") : file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

namespace {

ParamSpec make_spec(std::string name, ParamType type, std::string default_yaml, std::string doc) {
    ParamSpec spec;
    spec.name = std::move(name);
    spec.type = type;
    spec.default_yaml = std::move(default_yaml);
    spec.doc = std::move(doc);
    return spec;
}

} // namespace

ComponentSchema& ComponentSchema::integer(std::string param_name, std::string default_yaml,
                                          std::string param_doc, std::optional<double> min,
                                          std::optional<double> max) {
    ParamSpec spec = make_spec(std::move(param_name), ParamType::integer, std::move(default_yaml),
                               std::move(param_doc));
    spec.min = min;
    spec.max = max;
    params.push_back(std::move(spec));
    return *this;
}

ComponentSchema& ComponentSchema::real(std::string param_name, std::string default_yaml,
                                       std::string param_doc, std::optional<double> min,
                                       std::optional<double> max) {
    ParamSpec spec = make_spec(std::move(param_name), ParamType::real, std::move(default_yaml),
                               std::move(param_doc));
    spec.min = min;
    spec.max = max;
    params.push_back(std::move(spec));
    return *this;
}

ComponentSchema& ComponentSchema::boolean(std::string param_name, std::string default_yaml,
                                          std::string param_doc) {
    params.push_back(make_spec(std::move(param_name), ParamType::boolean, std::move(default_yaml),
                               std::move(param_doc)));
    return *this;
}

ComponentSchema& ComponentSchema::string(std::string param_name, std::string default_yaml,
                                         std::string param_doc) {
    params.push_back(make_spec(std::move(param_name), ParamType::string, std::move(default_yaml),
                               std::move(param_doc)));
    return *this;
}

ComponentSchema& ComponentSchema::choice(std::string param_name, std::string default_yaml,
                                         std::vector<std::string> choices, std::string param_doc) {
    ParamSpec spec = make_spec(std::move(param_name), ParamType::choice, std::move(default_yaml),
                               std::move(param_doc));
    spec.choices = std::move(choices);
    params.push_back(std::move(spec));
    return *this;
}

ComponentSchema& ComponentSchema::component(std::string param_name, std::string nested_kind,
                                            std::string default_yaml, std::string param_doc) {
    ParamSpec spec = make_spec(std::move(param_name), ParamType::component, std::move(default_yaml),
                               std::move(param_doc));
    spec.component_kind = std::move(nested_kind);
    params.push_back(std::move(spec));
    return *this;
}

ComponentSchema& ComponentSchema::component_list(std::string param_name, std::string nested_kind,
                                                 std::string default_yaml, std::string param_doc) {
    ParamSpec spec = make_spec(std::move(param_name), ParamType::component_list,
                               std::move(default_yaml), std::move(param_doc));
    spec.component_kind = std::move(nested_kind);
    params.push_back(std::move(spec));
    return *this;
}

ComponentSchema& ComponentSchema::required() {
    if (params.empty())
        throw Error("ComponentSchema::required(): schema '" + name + "' has no parameter yet");
    params.back().required = true;
    params.back().default_yaml.clear();
    return *this;
}

ComponentSchema& ComponentSchema::or_auto() {
    if (params.empty() || params.back().type != ParamType::integer)
        throw Error("ComponentSchema::or_auto(): schema '" + name +
                    "' has no integer parameter last");
    params.back().allows_auto = true;
    return *this;
}

const ParamSpec* ComponentSchema::find(const std::string& key) const {
    for (const ParamSpec& spec : params)
        if (spec.name == key)
            return &spec;
    return nullptr;
}

Params::Params(std::string kind, std::string name, std::string path, SourceLocation location)
    : kind_(std::move(kind)), name_(std::move(name)), path_(std::move(path)),
      location_(std::move(location)) {}

bool Params::has(const std::string& key) const {
    const auto it = values_.find(key);
    return it != values_.end() && !std::holds_alternative<std::monostate>(it->second);
}

namespace {

const char* type_name(const ParamValue& value) {
    switch (value.index()) {
    case 0:
        return "absent";
    case 1:
        return "an integer";
    case 2:
        return "a real number";
    case 3:
        return "a boolean";
    case 4:
        return "a string";
    case 5:
        return "a component";
    default:
        return "a component list";
    }
}

} // namespace

const ParamValue& Params::value(const std::string& key, const char* expected) const {
    const std::string full = path_.empty() ? key : path_ + "." + key;
    const auto it = values_.find(key);
    if (it == values_.end() || std::holds_alternative<std::monostate>(it->second))
        throw ConfigError(full + ": no value for parameter '" + key + "' of " + kind_ + " '" +
                          name_ + "' (expected " + expected + ")");
    return it->second;
}

std::int64_t Params::get_int(const std::string& key) const {
    const ParamValue& v = value(key, "an integer");
    if (const auto* i = std::get_if<std::int64_t>(&v))
        return *i;
    throw ConfigError((path_.empty() ? key : path_ + "." + key) +
                      ": expected an integer, the value is " + type_name(v));
}

double Params::get_real(const std::string& key) const {
    const ParamValue& v = value(key, "a real number");
    if (const auto* d = std::get_if<double>(&v))
        return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v))
        return static_cast<double>(*i);
    throw ConfigError((path_.empty() ? key : path_ + "." + key) +
                      ": expected a real number, the value is " + type_name(v));
}

bool Params::get_bool(const std::string& key) const {
    const ParamValue& v = value(key, "a boolean");
    if (const auto* b = std::get_if<bool>(&v))
        return *b;
    throw ConfigError((path_.empty() ? key : path_ + "." + key) +
                      ": expected a boolean, the value is " + type_name(v));
}

const std::string& Params::get_string(const std::string& key) const {
    const ParamValue& v = value(key, "a string");
    if (const auto* s = std::get_if<std::string>(&v))
        return *s;
    throw ConfigError((path_.empty() ? key : path_ + "." + key) +
                      ": expected a string, the value is " + type_name(v));
}

const Params& Params::get_component(const std::string& key) const {
    const ParamValue& v = value(key, "a component");
    if (const auto* p = std::get_if<std::shared_ptr<const Params>>(&v); p && *p)
        return **p;
    throw ConfigError((path_.empty() ? key : path_ + "." + key) +
                      ": expected a component, the value is " + type_name(v));
}

std::vector<std::shared_ptr<const Params>> Params::get_components(const std::string& key) const {
    const ParamValue& v = value(key, "a component list");
    if (const auto* list = std::get_if<std::vector<std::shared_ptr<const Params>>>(&v))
        return *list;
    throw ConfigError((path_.empty() ? key : path_ + "." + key) +
                      ": expected a component list, the value is " + type_name(v));
}

void Params::set(const std::string& key, ParamValue value, SourceLocation location) {
    values_[key] = std::move(value);
    locations_[key] = std::move(location);
    automatic_.erase(key);
}

const SourceLocation& Params::location_of(const std::string& key) const {
    const auto it = locations_.find(key);
    if (it == locations_.end() || (it->second.file.empty() && it->second.line == 0))
        return location_;
    return it->second;
}

std::vector<std::string> Params::keys() const {
    std::vector<std::string> out;
    out.reserve(values_.size());
    for (const auto& entry : values_)
        out.push_back(entry.first);
    return out;
}

namespace {

/// Shortest text that parses back to exactly `x`, always marked as a real (".0" or exponent).
std::string format_real(double x) {
    if (std::isnan(x))
        return ".nan";
    if (std::isinf(x))
        return x < 0 ? "-.inf" : ".inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
    std::string text(buffer, result.ptr);
    if (text.find_first_of(".e") == std::string::npos)
        text += ".0";
    return text;
}

std::string quote(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char hex[8];
                std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(c));
                out += hex;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

/// Appends `text` (lines ending in '\n') with every line but the first indented by `indent`.
void append_indented(std::string& out, const std::string& text, std::size_t indent) {
    bool first = true;
    std::size_t begin = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string::npos)
            end = text.size() - 1;
        if (!first)
            out.append(indent, ' ');
        out.append(text, begin, end - begin + 1);
        first = false;
        begin = end + 1;
    }
}

} // namespace

std::string Params::canonical() const {
    std::string out = "!" + kind_ + " " + name_ + "\n";
    for (const auto& [key, value] : values_) {
        if (std::holds_alternative<std::monostate>(value))
            continue;
        out += key + ":";
        std::visit(
            [&](const auto& v) {
                using T = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<T, std::monostate>) {
                    out += " ~\n";
                } else if constexpr (std::is_same_v<T, std::int64_t>) {
                    out += " " + std::to_string(v) + "\n";
                } else if constexpr (std::is_same_v<T, double>) {
                    out += " " + format_real(v) + "\n";
                } else if constexpr (std::is_same_v<T, bool>) {
                    out += v ? " true\n" : " false\n";
                } else if constexpr (std::is_same_v<T, std::string>) {
                    out += " " + quote(v) + "\n";
                } else if constexpr (std::is_same_v<T, std::shared_ptr<const Params>>) {
                    out += " ";
                    append_indented(out, v ? v->canonical() : std::string("~\n"), 2);
                } else {
                    if (v.empty()) {
                        out += " []\n";
                        return;
                    }
                    out += "\n";
                    for (const auto& item : v) {
                        out += "  - ";
                        append_indented(out, item ? item->canonical() : std::string("~\n"), 4);
                    }
                }
            },
            value);
    }
    return out;
}

} // namespace locus
