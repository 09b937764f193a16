/* linear for Boehm GC, the peer of gclab's linear: determinants of random
   dense matrices modulo a prime by Gaussian elimination, every eliminated
   row a new (pointer-free) array stored into the matrix's array of rows. */
#include "peer.h"

static const uint64_t P = 1000000007;

static uint64_t power_mod(uint64_t b, uint64_t e) {
  uint64_t r = 1;
  for (; e > 0; e >>= 1, b = b * b % P)
    if (e & 1) r = r * b % P;
  return r;
}

static uint64_t *new_row(size_t n) { return GC_MALLOC_ATOMIC(n * sizeof(uint64_t)); }

static uint64_t determinant(size_t n, uint64_t **matrix) {
  uint64_t det = 1;
  for (size_t k = 0; k < n; k++) {
    size_t p = k;
    while (p < n && matrix[p][k] == 0) p++;
    if (p == n) return 0;
    if (p != k) {
      uint64_t *a = matrix[p];
      matrix[p] = matrix[k];
      matrix[k] = a;
      det = (P - det) % P;
    }
    uint64_t *pivot_row = matrix[k], pivot = pivot_row[k], inverse = power_mod(pivot, P - 2);
    det = det * pivot % P;
    for (size_t i = k + 1; i < n; i++) {
      uint64_t *row = matrix[i], f = row[k] * inverse % P, *new = new_row(n);
      for (size_t j = 0; j < n; j++) new[j] = (row[j] + P - f * pivot_row[j] % P) % P;
      matrix[i] = new;
    }
  }
  return det;
}

int main(int argc, char **argv) {
  peer_start();
  size_t n = arg(argc, argv, 1), count = arg(argc, argv, 2);
  rng_t g = rng_new(3);
  uint64_t sum = 0;
  for (size_t c = 1; c <= count; c++) {
    uint64_t **matrix = GC_MALLOC(n * sizeof(uint64_t *));
    for (size_t i = 0; i < n; i++) {
      matrix[i] = new_row(n);
      for (size_t j = 0; j < n; j++) matrix[i][j] = rng_below(&g, P);
    }
    uint64_t det = determinant(n, matrix), row_sum = 0;
    for (size_t j = 0; j < n; j++) row_sum += matrix[n - 1][j];
    printf("linear: matrix %zu of %zux%zu mod %" PRIu64 ": determinant %" PRIu64 "\n", c, n, n, P, det);
    sum = mix(mix(sum, det), row_sum);
  }
  peer_finish(sum);
  return 0;
}
