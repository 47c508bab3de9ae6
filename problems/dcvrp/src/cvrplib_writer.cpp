// The .vrp text of an instance with coordinates (format_cvrplib).

#include <iterator>

#include <fmt/format.h>

#include "locus/dcvrp/cvrplib.hpp"
#include "locus/error.hpp"

namespace locus::dcvrp {

std::string format_cvrplib(const Instance& instance) {
    if (instance.x.empty())
        throw InstanceError(
            fmt::format("{}: cannot write an EXPLICIT instance as EUC_2D", instance.name));
    std::string text = fmt::format("NAME : {}\nTYPE : {}\nDIMENSION : {}\nCAPACITY : {}\n",
                                   instance.name,
                                   instance.has_time_windows()     ? "VRPTW"
                                   : instance.has_duration_limit() ? "DCVRP"
                                                                   : "CVRP",
                                   instance.n, instance.capacity);
    auto out = std::back_inserter(text);
    if (instance.has_duration_limit())
        fmt::format_to(out, "DISTANCE : {}\n", instance.max_duration);
    if (instance.service_time != 0.0)
        fmt::format_to(out, "SERVICE_TIME : {}\n", instance.service_time);
    if (instance.vehicles > 0) fmt::format_to(out, "VEHICLES : {}\n", instance.vehicles);
    text += "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n";
    const auto n = static_cast<std::size_t>(instance.n);
    for (std::size_t v = 0; v < n; ++v)
        fmt::format_to(out, "{} {} {}\n", v + 1, instance.x[v], instance.y[v]);
    text += "DEMAND_SECTION\n";
    for (std::size_t v = 0; v < n; ++v)
        fmt::format_to(out, "{} {}\n", v + 1, instance.demand[v]);
    if (instance.has_time_windows()) {
        text += "TIME_WINDOW_SECTION\n";
        for (std::size_t v = 0; v < n; ++v)
            fmt::format_to(out, "{} {} {}\n", v + 1, instance.ready[v], instance.due[v]);
    }
    text += "DEPOT_SECTION\n1\n-1\nEOF\n";
    return text;
}

} // namespace locus::dcvrp
