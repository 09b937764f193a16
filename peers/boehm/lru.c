/* lru for Boehm GC, the peer of gclab's lru: a clock (second-chance) cache
   of CAPACITY entries over 4 x CAPACITY keys under a skewed stream of
   requests; a miss builds a (pointer-free) value array and evicts a
   victim. As in gclab's lru, every operation also allocates a small
   request record that dies at once. */
#include "peer.h"

typedef struct entry { uint64_t *value; size_t key; } entry;
typedef struct request { size_t key, op; } request;

static uint64_t value_word(size_t key, size_t i) { return (uint64_t)key * 0x9e3779b9ULL + i; }

int main(int argc, char **argv) {
  peer_start();
  size_t capacity = arg(argc, argv, 1), ops = arg(argc, argv, 2), value_bytes = arg(argc, argv, 3);
  if (capacity < 1) capacity = 1;
  if (value_bytes < 8) value_bytes = 8;
  size_t keys = capacity * 4, words = value_bytes / 8, hand = 0, hits = 0, misses = 0;
  rng_t g = rng_new(42);
  entry **slots = GC_MALLOC(capacity * sizeof(entry *));
  size_t *slot_of = GC_MALLOC_ATOMIC(keys * sizeof(size_t)), *referenced = GC_MALLOC_ATOMIC(capacity * sizeof(size_t));
  for (size_t i = 0; i < keys; i++) slot_of[i] = 0;
  for (size_t i = 0; i < capacity; i++) referenced[i] = 0;
  uint64_t sum = 0;
  for (size_t op = 0; op < ops; op++) {
    int hot = rng_below(&g, 4) != 0;
    size_t key = hot ? rng_below(&g, keys / 8 + 1) : rng_below(&g, keys);
    volatile request *r = GC_MALLOC_ATOMIC(sizeof(request)); /* short-lived garbage */
    r->key = key;
    r->op = op;
    size_t slot = slot_of[key];
    if (slot != 0) {
      hits++;
      referenced[slot - 1] = 1;
      entry *e = slots[slot - 1];
      if (e->key != key) { fprintf(stderr, "lru: entry in slot %zu lost its key\n", slot - 1); return 1; }
      uint64_t v = e->value[op % words];
      if (v != value_word(key, op % words)) { fprintf(stderr, "lru: value of key %zu corrupted\n", key); return 1; }
      sum = mix(sum, v);
    } else {
      misses++;
      uint64_t *value = GC_MALLOC_ATOMIC(words * sizeof(uint64_t));
      for (size_t i = 0; i < words; i++) value[i] = value_word(key, i);
      entry *e = GC_MALLOC(sizeof(entry));
      e->value = value;
      e->key = key;
      while (referenced[hand] != 0) {
        referenced[hand] = 0;
        hand = (hand + 1) % capacity;
      }
      if (slots[hand]) slot_of[slots[hand]->key] = 0;
      slots[hand] = e;
      slot_of[key] = hand + 1;
      hand = (hand + 1) % capacity;
    }
  }
  uint64_t resident = 0;
  for (size_t i = 0; i < capacity; i++)
    if (slots[i]) {
      if (slots[i]->value[words - 1] != value_word(slots[i]->key, words - 1)) { fprintf(stderr, "lru: a resident value is corrupted\n"); return 1; }
      resident = mix(resident, slots[i]->key);
    }
  printf("lru: capacity %zu, %zu ops: %zu hits, %zu misses\n", capacity, ops, hits, misses);
  peer_finish(mix(mix(mix(sum, hits), misses), resident));
  return 0;
}
