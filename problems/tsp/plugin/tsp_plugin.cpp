// Entry point of the TSP problem plugin.

#include "locus/plugin.hpp"
#include "locus/tsp/tsp_problem.hpp"

LOCUS_PLUGIN("tsp",
             "Travelling salesman problem: TSPLIB reader, 2-opt / Or-opt / swap on CPU and CUDA",
             locus::tsp::register_tsp_components)
