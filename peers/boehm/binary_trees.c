/* binary-trees for Boehm GC, the peer of gclab's binary-trees. */
#include "peer.h"

typedef struct tree { struct tree *left, *right; } tree;

static tree *make(int d) {
  tree *t = GC_MALLOC(sizeof(tree));
  t->left = d == 0 ? NULL : make(d - 1);
  t->right = d == 0 ? NULL : make(d - 1);
  return t;
}

static long check(const tree *t) { return t == NULL ? 0 : 1 + check(t->left) + check(t->right); }

int main(int argc, char **argv) {
  peer_start();
  int min_depth = 4, max_depth = (int)arg(argc, argv, 1);
  if (max_depth < min_depth + 2) max_depth = min_depth + 2;
  long s = check(make(max_depth + 1));
  printf("stretch tree of depth %d\t check: %ld\n", max_depth + 1, s);
  uint64_t sum = mix(0, (uint64_t)s);
  tree *long_lived = make(max_depth);
  for (int d = min_depth; d <= max_depth; d += 2) {
    long iterations = 1L << (max_depth - d + min_depth), c = 0;
    for (long i = 0; i < iterations; i++) c += check(make(d));
    printf("%ld\t trees of depth %d\t check: %ld\n", iterations, d, c);
    sum = mix(sum, (uint64_t)c);
  }
  long ll = check(long_lived);
  printf("long lived tree of depth %d\t check: %ld\n", max_depth, ll);
  peer_finish(mix(sum, (uint64_t)ll));
  return 0;
}
