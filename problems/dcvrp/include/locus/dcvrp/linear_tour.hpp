#pragma once
/// \file
/// Linear tours: the form in which the giant-tour neighborhoods read a solution. A solution row
/// (giant_tour.hpp: a cycle of width W = 2 (n - 1) with n - 1 depot markers) becomes a closed
/// tour of L positions, t[0] = t[L-1] = depot, holding every customer and L - (n - 1) depot
/// copies: the row is read from its first marker, and empty routes are dropped from the end
/// until the count fits. A move keeps the customers and the depot copies of a linear tour, so
/// the descent works at one L; writing the tour back as its first L - 1 entries followed by
/// markers gives a row whose linear tour is the same tour again. Host-device code: the CPU
/// twin and the kernels read and write solutions with these functions.

#include <cstdint>

#include "locus/hd.hpp"

namespace locus::dcvrp {

/// Non-empty routes of a row of `width` entries (a route: the customers between two markers,
/// read cyclically).
LOCUS_HD_INLINE std::int32_t row_routes(const std::int32_t* row, std::int32_t width) {
    std::int32_t routes = 0;
    for (std::int32_t k = 0; k < width; ++k)
        routes += row[k] != 0 && row[k + 1 == width ? 0 : k + 1] == 0 ? 1 : 0;
    return routes;
}

/// The linear tour of `row` (width W, n - 1 = W / 2 customers) at `length` positions (W / 2 +
/// routes + 1 <= length <= W + 1) into `out`. Empty routes are dropped latest first: scanning
/// the row from its first marker backwards, a marker followed by a marker is skipped while
/// more markers remain than fit.
LOCUS_HD_INLINE void linearize(const std::int32_t* row, std::int32_t width, std::int32_t length,
                               std::int32_t* out) {
    std::int32_t start = 0;
    while (start < width && row[start] != 0)
        ++start;
    const std::int32_t customers = width / 2;
    // Markers of the row plus the closing copy, less the copies the tour holds.
    std::int32_t surplus = (width - customers + 1) - (length - customers);
    out[length - 1] = 0;
    std::int32_t position = length - 2;
    std::int32_t next = 0; // the entry after k (the closing copy for the last one)
    for (std::int32_t k = width - 1; k >= 0; --k) {
        std::int32_t at = start + k;
        at = at >= width ? at - width : at;
        const std::int32_t v = row[at];
        if (v == 0 && next == 0 && surplus > 0) {
            --surplus;
        } else {
            out[position--] = v;
        }
        next = v;
    }
}

/// Writes a linear tour of `length` positions back into a row of `width`: its first length - 1
/// entries, then markers.
LOCUS_HD_INLINE void write_row(const std::int32_t* tour, std::int32_t length, std::int32_t* row,
                               std::int32_t width) {
    for (std::int32_t k = 0; k < width; ++k)
        row[k] = k < length - 1 ? tour[k] : 0;
}

} // namespace locus::dcvrp
