#pragma once
/// \file
/// The resources of a DCVRP route composed from the routing library: load under the capacity
/// and duration (edges plus service times) under the limit. Every giant-tour type of the
/// plugin is the routing library's over this composition.

#include "locus/routing/duration_resource.hpp"
#include "locus/routing/giant_tour_moves.hpp"
#include "locus/routing/load_resource.hpp"
#include "locus/routing/route_segment.hpp"
#include "locus/routing/segment_table.hpp"

namespace locus::dcvrp {

/// Load and duration, composed: RouteResources{{demand, capacity}, {service, max_duration},
/// depot}.
using RouteResources = routing::SegmentResources<routing::LoadResource, routing::DurationResource>;
/// The summary of a segment of a DCVRP giant tour.
using RouteSegment = RouteResources::Segment;
using SegmentView = routing::SegmentView<RouteResources>;
using SegmentTable = routing::SegmentTable<RouteResources>;
using GiantTours = routing::GiantTours<RouteResources>;
using GiantTwoOpt = routing::GiantTwoOpt<RouteResources>;
using GiantTwoOptNear = routing::GiantTwoOptNear<RouteResources>;
using GiantThreeOpt = routing::GiantThreeOpt<RouteResources>;
using GiantThreeOptNear = routing::GiantThreeOptNear<RouteResources>;

} // namespace locus::dcvrp
