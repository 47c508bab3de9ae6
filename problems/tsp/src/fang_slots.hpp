#pragma once
// Slots of the FANG tour construction (shared by the CPU and CUDA files): position 0 holds the
// start city, every other position is an active variable.

#include <cstdint>
#include <vector>

#include "locus/gpu/successor_engine.hpp"
#include "locus/tsp/fang_construction.hpp"

namespace locus::tsp::detail {

template <class Policy>
std::vector<std::int32_t> construction_slots(const Policy& policy, const std::int32_t* starts,
                                             std::uint32_t count) {
    const gpu::SuccessorLayout layout = gpu::successor_layout(policy);
    std::vector<std::int32_t> slots(static_cast<std::size_t>(count) * layout.slot_words, 0);
    for (std::uint32_t s = 0; s < count; ++s) {
        std::int32_t* slot = slots.data() + static_cast<std::size_t>(s) * layout.slot_words;
        for (std::int32_t k = 0; k < policy.n; ++k) slot[k] = -1;
        slot[0] = starts[s];
        auto* bits = reinterpret_cast<std::uint32_t*>(slot + policy.n);
        bits[starts[s] / 32] |= 1u << (starts[s] % 32);
        for (std::uint32_t v = 0; v < policy.variables(); ++v) layout.set_active(slot, v, true);
    }
    return slots;
}

/// Copies the tours out of `count` slots.
inline void tours_from_slots(const std::int32_t* slots, const gpu::SuccessorLayout& layout,
                             std::int32_t n, std::uint32_t count, std::int32_t* tours) {
    for (std::uint32_t s = 0; s < count; ++s)
        for (std::int32_t k = 0; k < n; ++k)
            tours[static_cast<std::size_t>(s) * n + k] =
                slots[static_cast<std::size_t>(s) * layout.slot_words + k];
}

} // namespace locus::tsp::detail
