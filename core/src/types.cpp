#include "locus/types.hpp"

namespace locus {

std::string_view to_string(Backend backend) {
    return backend == Backend::cuda ? "cuda" : "cpu";
}

std::string_view to_string(Pivot pivot) { return pivot == Pivot::best ? "best" : "first"; }

} // namespace locus
