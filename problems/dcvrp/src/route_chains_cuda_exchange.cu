// The DCVRP route chains on CUDA: the recombination and merge kernels, compiled apart from the
// runner (route_chains_cuda.cu) so that the build compiles the kernel groups in parallel.

#include "locus/dcvrp/route_chains.hpp"
#include "locus/gpu/chain_engine.cuh"

template struct locus::gpu::ChainExchangeLaunch<locus::dcvrp::RouteChainPolicy>;
