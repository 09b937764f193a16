/* gcbench for Boehm GC, the peer of gclab's gcbench: Ellis, Kovac and
   Boehm's GCBench, the program Boehm's collector was first measured with.
   A stretch tree; a long-lived tree built top-down and an array of
   doubles, live throughout; then, per depth, temporary trees built
   top-down (children stored into a node after it is made) and bottom-up,
   in four shares as gclab's four tasks take them. */
#include "peer.h"
#include <string.h>

typedef struct node { struct node *left, *right; size_t depth, spare; } node;

static node *new_node(node *l, node *r, size_t depth) {
  node *n = GC_MALLOC(sizeof(node));
  n->left = l;
  n->right = r;
  n->depth = depth;
  return n;
}

static void populate(int d, node *t) {
  if (d <= 0) return;
  t->left = new_node(NULL, NULL, 0);
  t->right = new_node(NULL, NULL, 0);
  populate(d - 1, t->left);
  populate(d - 1, t->right);
}

static node *make_tree(int d) { return d == 0 ? new_node(NULL, NULL, 0) : new_node(make_tree(d - 1), make_tree(d - 1), d); }

static uint64_t count(const node *t) { return t == NULL ? 0 : 1 + count(t->left) + count(t->right); }

static uint64_t tree_size(int d) { return (1ULL << (d + 1)) - 1; }

static uint64_t bits(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

int main(int argc, char **argv) {
  peer_start();
  int stretch_depth = (int)arg(argc, argv, 1);
  if (stretch_depth < 6) stretch_depth = 6;
  int long_lived_depth = stretch_depth - 2, max_depth = stretch_depth - 2;
  size_t array_size = stretch_depth >= 18 ? 500000UL << (stretch_depth - 18) : 500000UL >> (18 - stretch_depth);
  if (array_size < 1000) array_size = 1000;
  size_t half = array_size / 2;
  uint64_t c = count(make_tree(stretch_depth));
  printf("stretch tree of depth %d: %" PRIu64 " nodes\n", stretch_depth, c);
  uint64_t sum = mix(0, c);
  node *long_lived = new_node(NULL, NULL, 0);
  populate(long_lived_depth, long_lived);
  double *array = GC_MALLOC_ATOMIC(array_size * sizeof(double));
  for (size_t i = 0; i < array_size; i++) array[i] = i < half ? 1.0 / (double)(i + 1) : 0.0;
  for (int d = 4; d <= max_depth; d += 2) {
    uint64_t iterations = 2 * tree_size(stretch_depth) / tree_size(d), nodes = 0, shares[4];
    for (uint64_t task = 0; task < 4; task++) {
      uint64_t from = iterations * task / 4, to = iterations * (task + 1) / 4;
      for (uint64_t i = from; i < to; i++) {
        node *t = new_node(NULL, NULL, 0);
        populate(d, t);
        nodes += count(t);
      }
      for (uint64_t i = from; i < to; i++) nodes += count(make_tree(d));
      shares[task] = mix(count(long_lived), bits(array[(task * 997 + d) % half]));
    }
    printf("%" PRIu64 " top-down and bottom-up trees of depth %d: %" PRIu64 " nodes\n", iterations, d, nodes);
    sum = mix(sum, nodes);
    for (int task = 0; task < 4; task++) sum = mix(sum, shares[task]);
  }
  uint64_t ll = count(long_lived), probe = 0;
  for (size_t i = 1; i < half; i += 997) probe ^= bits(array[i]);
  size_t i = half - 1 < 1000 ? half - 1 : 1000;
  int intact = bits(array[i]) == bits(1.0 / (double)(i + 1));
  printf("long-lived tree of depth %d: %" PRIu64 " nodes; array of %zu doubles intact: %s\n", long_lived_depth, ll, array_size,
         intact ? "true" : "false");
  peer_finish(mix(mix(sum, ll), probe));
  return 0;
}
