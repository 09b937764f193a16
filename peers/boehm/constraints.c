/* constraints for Boehm GC, the peer of gclab's constraints: every
   solution of the N-queens problem by backtracking search over lists of
   placed columns, building each row's list of safe columns. */
#include "peer.h"

typedef struct list { size_t column; struct list *rest; } list;

static list *cons(size_t column, list *rest) {
  list *c = GC_MALLOC(sizeof(list));
  c->column = column;
  c->rest = rest;
  return c;
}

static int safe(const list *placed, size_t c) {
  for (size_t d = 1; placed; placed = placed->rest, d++) {
    size_t q = placed->column;
    if (q == c || q + d == c || c + d == q) return 0;
  }
  return 1;
}

static uint64_t solutions, sum;

static void place(size_t n, size_t row, list *placed) {
  if (row == n) {
    uint64_t signature = 0, i = 1;
    for (const list *l = placed; l; l = l->rest, i++) signature += l->column * i;
    solutions++;
    sum = mix(sum, signature);
    return;
  }
  list *candidates = NULL;
  for (size_t c = n; c >= 1; c--)
    if (safe(placed, c)) candidates = cons(c, candidates);
  for (; candidates; candidates = candidates->rest) place(n, row + 1, cons(candidates->column, placed));
}

int main(int argc, char **argv) {
  peer_start();
  size_t n = arg(argc, argv, 1);
  place(n, 0, NULL);
  printf("constraints: %zu queens: %" PRIu64 " solutions\n", n, solutions);
  peer_finish(mix(sum, solutions));
  return 0;
}
