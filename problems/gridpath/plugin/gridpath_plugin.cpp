// Entry point of the grid-path problem plugin.

#include "locus/gridpath/gridpath_problem.hpp"
#include "locus/plugin.hpp"

LOCUS_PLUGIN("gridpath", "Multi-agent grid movement with FANG successor generation and beam search",
             locus::gridpath::register_gridpath_components)
