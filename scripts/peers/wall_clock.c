/* clock() reading the monotonic wall clock, preloaded by locus_peer.py into the peers that
 * limit their time with clock() (HGS-CVRP's timeLimit, LKH-3's TIME_LIMIT): they then stop on
 * wall-clock time, as locus runs and the other peers do, whatever else the machine runs.
 * Built by scripts/peers/install into the peers' environment. */
#include <time.h>

clock_t clock(void) {
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return (clock_t)-1;
    return (clock_t)now.tv_sec * CLOCKS_PER_SEC +
           (clock_t)(now.tv_nsec / (1000000000L / CLOCKS_PER_SEC));
}
