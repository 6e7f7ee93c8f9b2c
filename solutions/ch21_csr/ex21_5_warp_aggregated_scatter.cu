// Reference solution of exercise 21.5 (ch21_csr/exercises/ex21_5_warp_aggregated_scatter.cu).
// Build and run:  make exercise-solutions   (every solution, one line each), or
//                 make build/solutions/ex21_5_warp_aggregated_scatter
//                 build/solutions/ex21_5_warp_aggregated_scatter
#include "../../ch21_csr/exercises/harness/ex21_5_warp_aggregated_scatter.h"
// warp_aggregated_claim, as 123's scatter uses it: the lanes with one key found with
// __match_any_sync, the lowest of them claiming for all with one atomic, a lane's slot its rank
#include "../../ch21_csr/warp_cooperation.cuh"
