//! The record as a whole: contradictions between options (`-qn` above
//! `-N`, `-M` below `-A`, a chunk larger than the allocation area) and the
//! refusals of `-xn` and `-w`, each saying why.

use crate::option_value::{bad, size_text, FlagError};
use super::RtsFlags;
use crate::constants::BLOCK_SIZE;

impl RtsFlags {
    /// Check the record as a whole: contradictions between flags.
    pub fn validate(&self) -> Result<(), FlagError> {
        if self.par_gc_threads > self.capabilities {
            return Err(bad(&format!("-qn{}", self.par_gc_threads), format!("GC threads (-qn) must be between 1 and the value of -N ({})", self.capabilities)));
        }
        if self.max_heap_blocks != 0 && self.max_heap_blocks < self.alloc_area_blocks {
            return Err(bad(
                &format!("-M{}", size_text(self.max_heap_blocks * BLOCK_SIZE)),
                format!("the maximum heap size is smaller than the allocation area (-A{})", size_text(self.alloc_area_blocks * BLOCK_SIZE)),
            ));
        }
        if self.nonmoving {
            self.validate_nonmoving()?;
        }
        if self.mark_region {
            self.validate_mark_region()?;
        }
        if self.chunk_blocks > self.alloc_area_blocks {
            return Err(bad(&format!("-n{}", size_text(self.chunk_blocks * BLOCK_SIZE)), format!("the chunk size is larger than the allocation area (-A{})", size_text(self.alloc_area_blocks * BLOCK_SIZE))));
        }
        Ok(())
    }

    /// GHC's refusals for `-xn` (`RtsFlags.c`), each saying why.
    fn validate_nonmoving(&self) -> Result<(), FlagError> {
        if self.generations == 1 {
            return Err(bad("-xn", "the nonmoving collector needs at least two generations: its oldest is marked and swept, the young ones copied (-G1 has no young generation), as in GHC"));
        }
        if self.compact {
            return Err(bad("-xn", "the nonmoving collector cannot compact (-c): its oldest generation never moves, as in GHC"));
        }
        if self.profiling_header {
            return Err(bad("-xn", "the nonmoving collector cannot run with -hc, -hr or -ho: those need the profiling header, and GHC refuses the nonmoving collector in profiled builds"));
        }
        Ok(())
    }

    /// The refusals for `-w`, each saying why.
    fn validate_mark_region(&self) -> Result<(), FlagError> {
        if self.compact {
            return Err(bad("-w", "the mark-region collector does not compact (-c): it defragments its oldest generation by evacuating its most fragmented blocks"));
        }
        if self.nonmoving {
            return Err(bad("-w", "-w and -xn each choose the oldest generation's collector: give one"));
        }
        Ok(())
    }
}
