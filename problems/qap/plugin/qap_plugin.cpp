// Entry point of the QAP problem plugin.

#include "locus/plugin.hpp"
#include "locus/qap/qap_problem.hpp"

LOCUS_PLUGIN("qap",
             "Quadratic assignment problem: QAPLIB reader, swap neighborhood on CPU and CUDA",
             locus::qap::register_qap_components)
