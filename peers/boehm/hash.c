/* hash for Boehm GC, the peer of gclab's hash: a chained hash table (an
   array of immutable chains) under random inserts, deletes and lookups,
   doubling when it holds more than two entries per bucket. */
#include "peer.h"

typedef struct entry { size_t key, value; struct entry *rest; } entry;

static entry *new_entry(size_t key, size_t value, entry *rest) {
  entry *e = GC_MALLOC(sizeof(entry));
  e->key = key;
  e->value = value;
  e->rest = rest;
  return e;
}

static entry *find(entry *chain, size_t key) {
  while (chain && chain->key != key) chain = chain->rest;
  return chain;
}

/* chain without key (which it holds): the cells before it copied. */
static entry *remove_key(entry *chain, size_t key) {
  return chain->key == key ? chain->rest : new_entry(chain->key, chain->value, remove_key(chain->rest, key));
}

int main(int argc, char **argv) {
  peer_start();
  size_t keys = arg(argc, argv, 1), ops = arg(argc, argv, 2);
  rng_t g = rng_new(11);
  size_t buckets = 16, size = 0, hits = 0;
  entry **table = GC_MALLOC(buckets * sizeof(entry *));
  uint64_t sum = 0;
  for (size_t op = 0; op < ops; op++) {
    size_t key = rng_below(&g, keys), bucket = key & (buckets - 1);
    entry *chain = table[bucket], *found = find(chain, key);
    switch (rng_below(&g, 4)) {
    case 0:
    case 1:
      table[bucket] = new_entry(key, op, found ? remove_key(chain, key) : chain);
      size += !found;
      break;
    case 2:
      if (found) table[bucket] = remove_key(chain, key), size--;
      break;
    default:
      hits += found != NULL;
      sum = mix(sum, found ? found->value : UINT64_MAX);
    }
    if (size > 2 * buckets) {
      entry **bigger = GC_MALLOC(2 * buckets * sizeof(entry *));
      for (size_t b = 0; b < buckets; b++)
        for (entry *e = table[b]; e; e = e->rest) {
          size_t to = e->key & (2 * buckets - 1);
          bigger[to] = new_entry(e->key, e->value, bigger[to]);
        }
      table = bigger;
      buckets *= 2;
    }
  }
  uint64_t total = 0;
  for (size_t b = 0; b < buckets; b++)
    for (entry *e = table[b]; e; e = e->rest) total += (uint64_t)e->key * 31 + e->value;
  printf("hash: %zu operations on %zu keys: %zu entries in %zu buckets, %zu lookups found\n", ops, keys, size, buckets, hits);
  peer_finish(mix(mix(sum, size), total));
  return 0;
}
