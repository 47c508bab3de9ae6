#pragma once
/// \file
/// Generated DCVRP instances, named by specs such as "random-cvrp:n=101,seed=3,distance=2500".

#include <cstdint>
#include <string_view>

#include "locus/dcvrp/instance.hpp"

namespace locus::dcvrp {

/// Side of the square of generated coordinates.
inline constexpr std::int32_t kGeneratorSize = 1000;
/// Largest demand of a generated customer (demands are uniform in 1..min(this, capacity)).
inline constexpr std::int64_t kGeneratorMaxDemand = 10;
/// Default capacity of generated instances.
inline constexpr std::int64_t kGeneratorCapacity = 50;

/// n nodes: the depot at the centre (500, 500) and n - 1 customers with integral coordinates
/// uniform in [0, 1000)^2 and integer demands uniform in 1..min(10, capacity); real Euclidean
/// distances; maximum route duration `max_duration` (infinity = none), no service time.
/// Deterministic: the same arguments give the same instance on every machine. The name is the
/// canonical spec "random-cvrp:n=<n>,seed=<seed>" plus ",capacity=<q>" when not the default and
/// ",distance=<l>" when limited. Throws InstanceError "<name>: <reason>" when n is outside
/// 2..kMaxNodes, capacity < 1, and the errors of validate_instance (a customer out of reach
/// within the distance: with the depot at the centre, distance >= 1415 always suffices).
Instance generate_random(std::int32_t n, std::uint64_t seed,
                         std::int64_t capacity = kGeneratorCapacity,
                         double max_duration = std::numeric_limits<double>::infinity());

/// Horizon of generated VRPTW instances: the depot's window is [0, kGeneratorHorizon].
inline constexpr double kGeneratorHorizon = 3000.0;
/// Default service time and window width of generated VRPTW instances.
inline constexpr std::int64_t kGeneratorService = 10;
inline constexpr std::int64_t kGeneratorWidth = 300;

/// generate_random's customers (the same coordinates and demands for the same n, seed and
/// capacity) with time windows: travel times are the distances truncated to one decimal (the
/// DIMACS convention, Rounding::tenths), every customer has service time `service` and a window
/// of at most `width` (whole numbers) around a centre drawn uniformly among the whole times at
/// which a vehicle leaving the depot at 0 can start serving it and still return by the horizon,
/// clipped to that range: every customer can be served alone, and the windows bind. The name
/// is "random-vrptw:n=<n>,seed=<seed>" plus ",capacity=<q>", ",service=<s>", ",width=<w>" and
/// ",distance=<d>" when not the defaults. `max_duration` (finite: a limit) bounds each route's
/// travel and service time as DISTANCE does, so that capacity, duration and windows can bind in
/// one instance. Throws InstanceError "<name>: <reason>" as generate_random.
Instance generate_random_vrptw(std::int32_t n, std::uint64_t seed,
                               std::int64_t capacity = kGeneratorCapacity,
                               std::int64_t service = kGeneratorService,
                               std::int64_t width = kGeneratorWidth,
                               double max_duration = std::numeric_limits<double>::infinity());

/// True when `text` names a generator rather than a file: "<generator>:" followed by
/// "key=value" pairs (also for unknown generator names of that shape, so that
/// generate_from_spec can say what is wrong).
bool is_generator_spec(std::string_view text);

/// Builds the instance a spec names. Grammar:
/// "random-cvrp:n=<int>[,seed=<int>][,capacity=<int>][,distance=<number>]" (any order; seed
/// defaults to 1, capacity to kGeneratorCapacity, distance to none), or
/// "random-vrptw:n=<int>[,seed=<int>][,capacity=<int>][,service=<int>][,width=<int>]
/// [,distance=<number>]" (generate_random_vrptw; service 0..1000, width 0..3000). Throws
/// InstanceError "invalid instance generator spec '<spec>': <reason>" for an unknown generator, a
/// missing n, unknown, repeated or malformed parameters and out-of-range values, and the errors of
/// generate_random.
Instance generate_from_spec(std::string_view spec);

} // namespace locus::dcvrp
