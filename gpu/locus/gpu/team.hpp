#pragma once
/// \file
/// The team layer: one concept for the threads that serve one unit of work (a search, a chain,
/// a state), in three forms — SerialTeam (one thread; the CPU twins), WarpTeam and BlockTeam
/// (team.cuh, on CUB). Routines written once over a Team run on both backends and make the same
/// decisions, because every collective is defined by value and index only.
///
/// A Team t offers (every thread of the team calls a collective, with the same arguments where
/// it says so; collectives return the same value to every thread unless noted):
///   t.rank(), t.size()               this thread's rank in [0, size) and the team size
///   t.lane(), t.lanes()              rank within the thread's group (a warp) and its width
///   t.group(), t.groups()            the thread's group and the number of groups
///   t.sync()                         barrier over the team (memory visible to the team)
///   t.argmin(value, index)           in place: the smallest value, ties to the lowest index
///   t.min(x), t.sum(x)               minimum and sum (integers: exact, order-free)
///   t.reduce(x, op)                  op must be associative and commutative
///   t.exclusive_sum(x, total)        prefix over ranks before this one; total = team sum
///   t.inclusive_sum(x, total)        prefix including this rank
///   t.group_inclusive_sum(x, total)  the same within the thread's group
/// Every collective starts and ends without pending reads of the team's storage, so that it can
/// be called again at once. On top of them, this file defines stream compaction (compact) and an
/// in-place prefix sum over an array (scan_in_place), written once for every team.

#include <cstdint>
#include <type_traits>

#include "locus/hd.hpp"

namespace locus::gpu {

/// True when (va, ia) precedes (vb, ib) for argmin: smaller value, then lower index.
template <class V, class I>
LOCUS_HD_INLINE bool argmin_precedes(const V& va, const I& ia, const V& vb, const I& ib) {
    return va < vb || (!(vb < va) && ia < ib);
}

/// The team of one thread: the CPU twins (and one device thread per unit of work). Every
/// collective is the identity.
struct SerialTeam {
    LOCUS_HD_INLINE static constexpr std::uint32_t rank() { return 0; }
    LOCUS_HD_INLINE static constexpr std::uint32_t size() { return 1; }
    LOCUS_HD_INLINE static constexpr std::uint32_t lane() { return 0; }
    LOCUS_HD_INLINE static constexpr std::uint32_t lanes() { return 1; }
    LOCUS_HD_INLINE static constexpr std::uint32_t group() { return 0; }
    LOCUS_HD_INLINE static constexpr std::uint32_t groups() { return 1; }
    LOCUS_HD_INLINE static void sync() {}
    template <class V, class I>
    LOCUS_HD_INLINE static void argmin(V&, I&) {}
    template <class T>
    LOCUS_HD_INLINE static T min(T value) {
        return value;
    }
    template <class T>
    LOCUS_HD_INLINE static T sum(T value) {
        return value;
    }
    template <class T, class Op>
    LOCUS_HD_INLINE static T reduce(T value, Op) {
        return value;
    }
    template <class T>
    LOCUS_HD_INLINE static T exclusive_sum(T value, T& total) {
        total = value;
        return T(0);
    }
    template <class T>
    LOCUS_HD_INLINE static T inclusive_sum(T value, T& total) {
        total = value;
        return value;
    }
    template <class T>
    LOCUS_HD_INLINE static T group_inclusive_sum(T value, T& total) {
        total = value;
        return value;
    }
};

/// Whether `flag` (null: never) is raised, with the same answer on every rank: rank 0 reads it
/// (a halt flag in host memory, or mapped host memory read from a kernel) and the team agrees,
/// so that every thread of a team leaves a loop together.
template <class Team>
LOCUS_HD_INLINE bool raised(const Team& team, const volatile std::uint8_t* flag) {
    if (flag == nullptr) return false;
    const std::uint32_t mine = team.rank() == 0 ? static_cast<std::uint32_t>(*flag) : 0u;
    return team.sum(mine) != 0u;
}

/// Stream compaction over a team: for i in [0, count), the items with keep(i) are written in
/// increasing i order, the k-th kept one by store(k, load(i)); returns the number kept (on every
/// thread). In place is allowed (store writing the array load reads): every item is loaded
/// before any item of its round is stored, and stores only go to positions below the round's
/// items. Rounds of size() items; ends synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class Load, class Keep, class Store>
LOCUS_HD std::uint32_t compact(const Team& team, std::uint32_t count, Load&& load, Keep&& keep,
                               Store&& store) {
    std::uint32_t base = 0;
    for (std::uint32_t start = 0; start < count; start += team.size()) {
        const std::uint32_t i = start + team.rank();
        const bool kept = i < count && keep(i);
        decltype(load(i)) value{};
        if (kept)
            value = load(i);
        std::uint32_t total = 0;
        const std::uint32_t offset = team.exclusive_sum(kept ? 1u : 0u, total);
        if (kept)
            store(base + offset, value);
        base += total;
        team.sync();
    }
    return base;
}

/// Replaces data[0, count) by its inclusive prefix sums (integers): every thread sums a
/// contiguous chunk, the chunk sums are scanned over the team, the chunks are rewritten. Ends
/// synchronised.
LOCUS_EXEC_CHECK_DISABLE
template <class Team, class T>
LOCUS_HD void scan_in_place(const Team& team, T* data, std::uint32_t count) {
    const std::uint32_t per = (count + team.size() - 1) / team.size();
    const std::uint32_t begin = team.rank() * per < count ? team.rank() * per : count;
    const std::uint32_t end = begin + per < count ? begin + per : count;
    T local = 0;
    for (std::uint32_t i = begin; i < end; ++i)
        local += data[i];
    T total = 0;
    T running = team.exclusive_sum(local, total);
    for (std::uint32_t i = begin; i < end; ++i) {
        running += data[i];
        data[i] = running;
    }
    team.sync();
}

} // namespace locus::gpu
