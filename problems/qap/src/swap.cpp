#include "locus/qap/swap.hpp"

#include <cstddef>

namespace locus::qap {

std::int64_t swap_delta(const Instance& instance, std::span<const std::int32_t> p, std::int32_t r,
                        std::int32_t s) {
    return swap_delta(instance.a.data(), instance.b.data(), instance.n, p.data(), r, s);
}

void init_delta_table(const Instance& instance, std::span<const std::int32_t> p,
                      DeltaTable& table) {
    const std::int32_t n = instance.n;
    table.n = n;
    table.d.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
    for (std::int32_t r = 0; r < n; ++r)
        for (std::int32_t s = r + 1; s < n; ++s)
            table.d[static_cast<std::size_t>(r) * static_cast<std::size_t>(n) +
                    static_cast<std::size_t>(s)] = swap_delta(instance, p, r, s);
}

void update_delta_table(const Instance& instance, std::span<const std::int32_t> p_after,
                        std::int32_t u, std::int32_t v, DeltaTable& table) {
    const std::int32_t n = instance.n;
    const std::int64_t* a = instance.a.data();
    const std::int64_t* b = instance.b.data();
    for (std::int32_t r = 0; r < n; ++r) {
        for (std::int32_t s = r + 1; s < n; ++s) {
            std::int64_t& entry =
                table.d[static_cast<std::size_t>(r) * static_cast<std::size_t>(n) +
                        static_cast<std::size_t>(s)];
            if (r == u || r == v || s == u || s == v)
                entry = swap_delta(a, b, n, p_after.data(), r, s);
            else
                entry = updated_swap_delta(a, b, n, p_after.data(), entry, r, s, u, v);
        }
    }
}

} // namespace locus::qap
