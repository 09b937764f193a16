/* fibheaps for Boehm GC, the peer of gclab's fibheaps: heap sort of N
   random keys through a heap that is a list of heap-ordered trees,
   consolidated by rank through an array on every deletion. */
#include "peer.h"

typedef struct trees trees;
typedef struct tree { size_t key, rank; trees *children; } tree;
struct trees { tree *head; trees *tail; };

enum { RANKS = 64 };

static trees *cons(tree *t, trees *rest) {
  trees *c = GC_MALLOC(sizeof(trees));
  c->head = t;
  c->tail = rest;
  return c;
}

static tree *new_tree(size_t key, size_t rank, trees *children) {
  tree *t = GC_MALLOC(sizeof(tree));
  t->key = key;
  t->rank = rank;
  t->children = children;
  return t;
}

static tree *link(tree *a, tree *b) {
  tree *w = a->key <= b->key ? a : b, *l = w == a ? b : a;
  return new_tree(w->key, w->rank + 1, cons(l, w->children));
}

static void insert_by_rank(tree **ranks, tree *t) {
  while (ranks[t->rank] != NULL) {
    tree *other = ranks[t->rank];
    ranks[t->rank] = NULL;
    t = link(t, other);
  }
  ranks[t->rank] = t;
}

static size_t delete_min(tree **ranks, trees **roots) {
  size_t least = 0, key = SIZE_MAX, pos = 0;
  for (trees *l = *roots; l; l = l->tail, pos++)
    if (l->head->key < key) least = pos, key = l->head->key;
  trees *kids = NULL;
  pos = 0;
  for (trees *l = *roots; l; l = l->tail, pos++) {
    if (pos == least) kids = l->head->children;
    else insert_by_rank(ranks, l->head);
  }
  for (; kids; kids = kids->tail) insert_by_rank(ranks, kids->head);
  *roots = NULL;
  for (int r = RANKS - 1; r >= 0; r--)
    if (ranks[r]) {
      *roots = cons(ranks[r], *roots);
      ranks[r] = NULL;
    }
  return key;
}

int main(int argc, char **argv) {
  peer_start();
  size_t n = arg(argc, argv, 1);
  rng_t g = rng_new(7);
  trees *heap = NULL;
  for (size_t i = 0; i < n; i++) heap = cons(new_tree(rng_below(&g, 1 << 30), 0, NULL), heap);
  tree **ranks = GC_MALLOC(RANKS * sizeof(tree *));
  uint64_t sum = 0;
  size_t prev = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = delete_min(ranks, &heap);
    if (k < prev) { fprintf(stderr, "fibheaps: key %zu came out after %zu\n", k, prev); return 1; }
    if (i == 0) first = k;
    sum = mix(sum, k);
    prev = k;
  }
  printf("fibheaps: %zu keys sorted, smallest %zu, largest %zu\n", n, first, prev);
  peer_finish(sum);
  return 0;
}
