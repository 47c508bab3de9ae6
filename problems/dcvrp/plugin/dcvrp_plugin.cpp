// Entry point of the DCVRP problem plugin.

#include "locus/dcvrp/dcvrp_problem.hpp"
#include "locus/plugin.hpp"

LOCUS_PLUGIN("dcvrp",
             "Distance-constrained capacitated VRP: CVRPLIB reader and .sol files, giant-tour "
             "solutions, savings / cheapest-insertion / one-per-customer constructions",
             locus::dcvrp::register_dcvrp_components)
