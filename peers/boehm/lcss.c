/* lcss for Boehm GC, the peer of gclab's lcss: the length of the longest
   common subsequence of two random sequences, by dynamic programming
   whose rows are lists (each built in reverse, then reversed). */
#include "peer.h"

typedef struct list { size_t value; struct list *rest; } list;

static list *cons(size_t value, list *rest) {
  list *c = GC_MALLOC(sizeof(list));
  c->value = value;
  c->rest = rest;
  return c;
}

static list *reverse(list *l) {
  list *r = NULL;
  for (; l; l = l->rest) r = cons(l->value, r);
  return r;
}

/* n letters, the first drawn first. */
static list *random_list(rng_t *g, size_t n) {
  list *drawn = NULL;
  for (size_t i = 0; i < n; i++) drawn = cons(rng_below(g, 4), drawn);
  list *l = reverse(drawn);
  return l;
}

int main(int argc, char **argv) {
  peer_start();
  size_t n = arg(argc, argv, 1);
  rng_t g = rng_new(5);
  list *xs = random_list(&g, n), *ys = random_list(&g, n), *row = NULL;
  for (size_t i = 0; i <= n; i++) row = cons(0, row);
  uint64_t sum = 0;
  for (list *x = xs; x; x = x->rest) {
    list *reversed = cons(0, NULL), *up = row->rest;
    size_t left = 0, diagonal = row->value;
    for (list *y = ys; y; y = y->rest, up = up->rest) {
      size_t v = y->value == x->value ? diagonal + 1 : (left > up->value ? left : up->value);
      reversed = cons(v, reversed);
      left = v;
      diagonal = up->value;
    }
    row = reverse(reversed);
    sum = mix(sum, left);
  }
  uint64_t total = 0;
  size_t length = 0;
  for (list *c = row; c; c = c->rest) total += c->value, length = c->value;
  printf("lcss: two sequences of %zu: longest common subsequence %zu\n", n, length);
  peer_finish(mix(mix(sum, total), length));
  return 0;
}
