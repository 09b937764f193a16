//! The size classes of a cell space (`cell_space`): the cell sizes in
//! words, and the class of an object of a given size.
//!
//! Invariant kept: every object size up to a block has exactly one
//! class, the smallest cell it fits, and the classes rise strictly.
//!
//! Note [Size classes]
//! ----------------------------------------
//! A block has 512 words. What a class wastes is the end of its cells
//! (an object smaller than the cell) and the end of the block (512 mod
//! the cell size). Every object up to 16 words has a class of its own size,
//! so small objects, the vast majority, waste nothing in their cells. Above
//! that a class exists for every number of cells a block can hold,
//! `floor(512 / k)` words for k = 31 down to 1: for each number of cells
//! per block, the largest cell, so that no other choice fits more objects
//! of a size into a block. That gives 44 classes; the ends of blocks waste
//! less than a cell of the smallest class of that k, and objects up to the
//! large-object threshold (409 words) fit the largest class.

use gclab_core::constants::BLOCK_WORDS;

/// Cell sizes in words, smallest first (See Note [Size classes]).
pub const CLASSES: [usize; 44] = cell_sizes();

const fn cell_sizes() -> [usize; 44] {
    let mut sizes = [0; 44];
    let mut n = 0;
    while n < 16 {
        sizes[n] = n + 1;
        n += 1;
    }
    let mut k = 31;
    while k >= 1 {
        let s = BLOCK_WORDS / k;
        if s > sizes[n - 1] {
            sizes[n] = s;
            n += 1;
        }
        k -= 1;
    }
    assert!(n == 44, "44 size classes");
    sizes
}

/// The class of an object of `words` words: the smallest cell it fits.
/// The first 16 classes are one word apart, so most objects find theirs
/// without a search.
#[inline(always)]
pub fn class_of(words: usize) -> usize {
    debug_assert!((1..=BLOCK_WORDS).contains(&words));
    if words <= 16 {
        return words - 1;
    }
    CLASSES.partition_point(|&s| s < words)
}

/// Cells in a block of class `class`.
pub fn cells_per_block(class: usize) -> usize {
    BLOCK_WORDS / CLASSES[class]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_size_has_the_smallest_class_that_fits() {
        assert_eq!(&CLASSES[..17], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
        assert_eq!(CLASSES[43], 512);
        assert!(CLASSES.windows(2).all(|w| w[0] < w[1]));
        for words in 1..=BLOCK_WORDS {
            let c = class_of(words);
            assert!(CLASSES[c] >= words && (c == 0 || CLASSES[c - 1] < words), "{words} words -> class {c}");
        }
        assert_eq!(CLASSES[class_of(409)], 512, "the largest small object fits the largest class");
        assert_eq!(cells_per_block(class_of(129)), 3);
    }
}
