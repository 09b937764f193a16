/* What every C peer of a gclab workload shares: Boehm GC set up for
   measuring, gclab's checksum step (FNV-1a over a value's eight bytes,
   `mix` in gclab-workloads), its random number generator (xorshift64*),
   and the end of a run: the checksum line on stdout, which the sweep and
   the tests compare with gclab's, and the collector's figures on stderr,
   which the sweep reads. */
#ifndef GCLAB_PEER_H
#define GCLAB_PEER_H

#include <gc/gc.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t mix(uint64_t acc, uint64_t v) {
  uint64_t h = acc ^ 0xcbf29ce484222325ULL;
  for (int i = 0; i < 8; i++) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 0x100000001b3ULL;
  }
  return h;
}

typedef struct { uint64_t state; } rng_t;

static inline rng_t rng_new(uint64_t seed) {
  rng_t r = {(seed < 1 ? 1 : seed) * 0x9e3779b97f4a7c15ULL | 1};
  return r;
}

static inline uint64_t rng_next(rng_t *r) {
  uint64_t x = r->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->state = x;
  return x * 0x2545f4914f6cdd1dULL;
}

/* A number in [0, n). */
static inline size_t rng_below(rng_t *r, size_t n) { return (size_t)(rng_next(r) % n); }

/* Out of heap (past GC_MAXIMUM_HEAP_SIZE, a grid's -M): GHC's message and
   exit code, 251, where Boehm GC would return NULL. */
static void *peer_out_of_memory(size_t bytes) {
  const char *max = getenv("GC_MAXIMUM_HEAP_SIZE");
  fprintf(stderr, "boehm: Heap exhausted; allocating %zu bytes past the maximum heap size (GC_MAXIMUM_HEAP_SIZE=%s)\n", bytes, max ? max : "unset");
  exit(251);
}

/* Start the collector, with its clock for collection time. */
static inline void peer_start(void) {
  GC_INIT();
  GC_set_oom_fn(peer_out_of_memory);
  GC_start_performance_measurement();
}

/* Argument i as a number (0 when absent). */
static inline size_t arg(int argc, char **argv, int i) { return i < argc ? (size_t)strtoull(argv[i], NULL, 10) : 0; }

static inline void peer_finish(uint64_t checksum) {
  printf("checksum: %016" PRIx64 "\n", checksum);
  fflush(stdout);
  fprintf(stderr, "boehm-gc gc_no %zu total_bytes %zu heap_size %zu free_bytes %zu unmapped_bytes %zu full_gc_total_time_ms %lu\n",
          (size_t)GC_get_gc_no(), GC_get_total_bytes(), GC_get_heap_size(), GC_get_free_bytes(), GC_get_unmapped_bytes(),
          GC_get_full_gc_total_time());
}

#endif
