//! Megablocks: the heap's unit of memory from the operating system.
//!
//! A megablock is 1 MiB aligned to 1 MiB, so that any heap address finds its
//! megablock (and from there its block descriptor) by masking. Every
//! megablock is committed inside one range of address space reserved for
//! the heap (`address_space`), one beside the last, so that the GC tells a
//! heap address from any other by a compare.
//!
//! This module owns the set of megablocks the heap holds, the pool of
//! free ones kept for reuse and those whose memory went back to the OS
//! while their address space stays ours (See Note [Returning memory
//! lazily]); it keeps the invariant that every address in `owned` is the
//! base of aligned megablocks committed in the heap's reservation, and that a decommitted megablock is
//! handed out again only once its memory has gone back. It also keeps a
//! reserve of megablocks touched ahead of the heap's growth (See Note
//! [Touching fresh memory off the pause] in `mblock_threads::pretouch`).
//!
//! Note [Returning memory lazily]
//! ----------------------------------------
//! After a major GC the heap returns the free megablocks it will not need
//! soon (`policy`). It used to unmap them; a heap that grows again then
//! maps fresh ones, and the kernel zero-fills every page on first touch.
//! Now a returned megablock stays mapped: `madvise(MADV_FREE)` tells the
//! kernel it may take the pages back when it needs memory, and until it
//! does, touching them again costs no fault. The megablock goes on the
//! `decommitted` list, which `alloc_one` draws from before it maps new
//! address space; it no longer counts as memory in use. This is what GHC
//! does (`osDecommitMemory`), and GHC's `--disable-delayed-os-memory-return`
//! (`MemoryReturn::Eager`) uses `MADV_DONTNEED` instead, which frees the
//! pages at once, so that the process's RSS shows the return, at the price
//! of the zero-filling faults. Kernels older than 4.5 have no `MADV_FREE`;
//! then both modes are eager.
//! Nothing may rely on a reused megablock's contents: it holds either what
//! it held or zeros, as the kernel chose (a megablock from the free pool
//! holds stale data too).
//! Measured here (a 16 MiB range touched, returned and touched again, 50
//! times, in a process with a second thread): touching the range again
//! costs 207 us per MiB after `munmap`, 214 after `MADV_DONTNEED` and 65
//! after `MADV_FREE`. Returning costs 19.1, 19.5 and 3.0 us per MiB in that
//! loop, but the first return of pages costs more: fibheaps, whose heap
//! shrinks over its last six major GCs, spends 0.3-0.7 ms of each
//! returning 6-16 megablocks (about 45 us each), the same by `munmap` and
//! by `MADV_FREE` (the kernel walks and moves every 4 KiB page either
//! way). So what this buys is the heap that grows again; none of the
//! standard workloads does much of that (fibheaps returns 59 megablocks
//! in a run, gcbench 8, the rest fewer). That walk is now made by a
//! thread of the pool's own, after the GC (See Note [Returning memory
//! off the pause] in `mblock_threads::returner`).
//!
//! Note [Huge pages for the heap]
//! ----------------------------------------
//! With `--huge-pages` (gclab; MMTk's `transparent_hugepages` option) the
//! heap asks for transparent huge pages: fresh megablocks are mapped in
//! pairs aligned to 2 MiB and advised `MADV_HUGEPAGE` (Linux backs such a
//! range with one 2 MiB page at its first touch where its setting is
//! `madvise` or `always`), and the second of a pair goes to the free pool.
//! One TLB entry then covers two megablocks where it covered one 4 KiB
//! block, and in a virtual machine a TLB miss walks two page tables (the
//! guest's and the host's). Memory goes back to the OS in whole pairs only
//! (`take_free_pairs`): returning half of a huge page makes the kernel
//! split it (`thp_split_page` in /proc/vmstat), which when single
//! megablocks went back cost fibheaps' major GCs 1.34x their time.
//! Measured here (one binary, with and without the flag, 5 alternated
//! rounds): GC time lru 0.77x (total 0.88x), hash 0.91x (total 0.92x),
//! power 0.99x; the major GCs of binary-trees 18, fibheaps and gcbench
//! varied from 0.76x to 2.2x, with pauses up to 60 ms where they were
//! 10-37. Run after run with the flag, only the first is slow: binary-trees
//! 18's major GCs take 0.143 s in the first run and 0.105-0.112 s in the
//! next five, against 0.122-0.131 s without (longest pause 9 ms against
//! 15-18), fibheaps' 0.166 s then 0.074-0.082 against 0.098-0.107,
//! gcbench's 0.031 then 0.024-0.025 against 0.032-0.034. So the cost is
//! the first use of memory for a huge page on this virtual machine (the
//! host backs it as it is touched; `compact_stall` stayed 0, so it is not
//! compaction), which an alternated comparison pays again and again. The
//! heap also grows two megablocks at a time, resident as a whole from the
//! first touch: lru's peak RSS 1.03x. It is not the default: GHC does not
//! ask for huge pages (on this machine, set to `madvise`, it gets none), so
//! with it gclab's figures would no longer read beside GHC's for the same
//! reasons, and the peak-memory comparison would not be like for like.

use crate::constants::{MBLOCK_MASK, MBLOCK_SIZE};
use crate::mblock_threads::pretouch::Pretoucher;
use address_space::{AddressSpace, HeapRange};
use crate::mblock_threads::returner::Returner;
use std::collections::BTreeMap;

pub mod address_space;

/// The size of an x86-64 huge page: two megablocks (See Note [Huge
/// pages for the heap]).
pub const HUGE_PAGE: usize = 2 * MBLOCK_SIZE;

/// The megablocks of one heap.
#[derive(Debug, Default)]
pub struct MBlockPool {
    /// Base address -> number of megablocks in the mapping that starts there.
    owned: BTreeMap<usize, usize>,
    /// The address space they all lie in, reserved at the first mapping
    /// (See `address_space`).
    space: Option<AddressSpace>,
    /// Single free megablocks kept mapped for reuse.
    free: Vec<usize>,
    /// Megablocks returned to the OS whose address space we kept (See Note
    /// [Returning memory lazily]), reused before fresh address space, each
    /// with the ticket of the returning thread's batch that gives it back
    /// (0: given back already; See Note [Returning memory off the pause]).
    decommitted: Vec<(usize, u64)>,
    /// The thread that gives lazily returned memory back, once started.
    returner: Option<Returner>,
    /// How the pool maps and returns memory.
    policy: MemoryPolicy,
    /// Megablocks holding memory now: owned, free ones included,
    /// decommitted ones not.
    mapped: usize,
    /// The most megablocks ever mapped at once.
    peak: usize,
    /// Megablocks handed back to the OS so far.
    returned: usize,
    /// The thread that touches the reserve's megablocks, once started.
    pretoucher: Option<Pretoucher>,
    /// How many megablocks the reserve keeps ahead of the heap (See Note
    /// [Touching fresh memory off the pause]).
    reserve_target: usize,
    /// Megablocks the heap took from the reserve, touched.
    pretouched: usize,
    /// The threads the last GC ran on (at first the policy's guess):
    /// fewer than the policy's cores leave the touching thread a core
    /// inside the next GC (See `touch_in_gc`).
    gc_team: usize,
}

/// The reserve's size when it starts, and again after the heap shrinks.
const RESERVE_START: usize = 1;

/// How the pool gives a returned megablock's memory back to the OS (See
/// Note [Returning memory lazily]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryReturn {
    /// `MADV_FREE`: the kernel takes the pages when it needs them.
    #[default]
    Lazy,
    /// `MADV_DONTNEED`: the pages go at once (GHC's
    /// `--disable-delayed-os-memory-return`).
    Eager,
}

/// How the pool maps memory and gives it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryPolicy {
    /// How returned megablocks give their memory back.
    pub return_mode: MemoryReturn,
    /// Map fresh megablocks in huge-page pairs (See Note [Huge pages for
    /// the heap]).
    pub huge_pages: bool,
    /// Keep a reserve of megablocks touched off the pause (See Note
    /// [Touching fresh memory off the pause] in `mblock_threads::pretouch`).
    pub pretouch: bool,
    /// The threads a GC of the run is expected to run on (`-qn`, else
    /// `-N`), until the first GC says how many it ran: where they are
    /// fewer than the machine's cores, the touching thread may replace
    /// what a GC takes from the reserve at once (See Note [When the
    /// reserve is topped up] in `mblock_threads::pretouch`).
    pub gc_threads: usize,
    /// The machine's cores, as `-N` counts them (core's
    /// `flags::machine_cores`); 0, the default, leaves no core idle, so
    /// that the reserve is topped up only as GCs end.
    pub cores: usize,
}

/// The OS refused memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory {
    /// Bytes asked for.
    pub bytes: usize,
}

impl MBlockPool {
    /// An empty pool.
    pub fn new() -> MBlockPool {
        MBlockPool::default()
    }

    /// An empty pool that maps and returns memory as `policy` says.
    pub fn with_policy(policy: MemoryPolicy) -> MBlockPool {
        let mut pool = MBlockPool::default();
        pool.policy = policy;
        pool.reserve_target = RESERVE_START;
        pool.gc_team = policy.gc_threads;
        pool
    }

    /// One aligned megablock: from the free pool if it has one, else a
    /// decommitted one, else fresh address space.
    pub fn alloc_one(&mut self) -> Result<usize, OutOfMemory> {
        if let Some(base) = self.free.pop() {
            return Ok(base);
        }
        if let Some((base, ticket)) = self.decommitted.pop() {
            if let Some(r) = &self.returner {
                r.wait_for(ticket);
            }
            self.note_mapped(1);
            return Ok(base);
        }
        if self.policy.huge_pages {
            return self.map_pair();
        }
        if !self.policy.pretouch {
            return self.map(1);
        }
        let base = match self.take_touched() {
            Some(base) => base,
            None => {
                // The heap grew faster than the reserve: a larger one.
                self.reserve_target = (self.reserve_target * 2).min(self.reserve_cap());
                self.map(1)?
            }
        };
        if self.touch_in_gc() {
            self.top_up_reserve();
        }
        Ok(base)
    }

    /// A megablock of the reserve that its thread has touched, now the
    /// heap's.
    fn take_touched(&mut self) -> Option<usize> {
        let base = self.pretoucher.as_mut()?.take()?;
        self.note_mapped(1);
        self.pretouched += 1;
        Some(base)
    }

    /// The largest reserve: a sixty-fourth of the heap (See Note [Touching
    /// fresh memory off the pause]).
    fn reserve_cap(&self) -> usize {
        (self.mapped / 64).max(RESERVE_START)
    }

    /// Map megablocks for the reserve until it holds its target, and hand
    /// them to the touching thread: the runtime calls it as each GC ends,
    /// and a take calls it where a GC leaves a core idle (See Note [When
    /// the reserve is topped up] in `mblock_threads::pretouch`). A mapping
    /// the OS refuses ends it quietly: the heap's own request will meet
    /// the refusal and report it.
    pub fn top_up_reserve(&mut self) {
        if !self.policy.pretouch || self.policy.huge_pages {
            return;
        }
        if self.pretoucher.is_none() {
            self.pretoucher = Pretoucher::start(os::touch);
        }
        let target = self.reserve_target;
        while self.pretoucher.as_ref().is_some_and(|p| p.outstanding() < target) {
            let Ok(base) = self.map_fresh(MBLOCK_SIZE, MBLOCK_SIZE) else { return };
            self.owned.insert(base, 1);
            self.pretoucher.as_mut().expect("tested above").send(base);
        }
    }

    /// The GC that is ending ran on `threads` threads; the next one is
    /// taken to be alike (See `touch_in_gc`).
    pub fn gc_team(&mut self, threads: usize) {
        self.gc_team = threads;
    }

    /// Does a GC leave a core idle, on which the touching thread may
    /// replace at once what the GC takes from the reserve (See Note [When
    /// the reserve is topped up] in `mblock_threads::pretouch`)?
    fn touch_in_gc(&self) -> bool {
        self.gc_team < self.policy.cores
    }

    /// Megablocks the heap has taken from the reserve so far, each touched
    /// off the pause.
    pub fn pretouched(&self) -> usize {
        self.pretouched
    }

    /// Megablocks of the reserve: mapped, touched or being touched, and
    /// not yet the heap's.
    pub fn reserved(&self) -> usize {
        self.pretoucher.as_ref().map_or(0, Pretoucher::outstanding)
    }

    /// `n` contiguous aligned megablocks (a megablock group for a large
    /// object). Always a fresh mapping, so that freeing it unmaps it whole.
    pub fn alloc_group(&mut self, n: usize) -> Result<usize, OutOfMemory> {
        if n == 1 {
            return self.alloc_one();
        }
        self.map(n)
    }

    /// Give back a megablock group. Single megablocks go to the free pool;
    /// groups are unmapped at once (they are rarely the right size again).
    pub fn free_group(&mut self, base: usize, n: usize) {
        debug_assert_eq!(base & MBLOCK_MASK, 0);
        debug_assert_eq!(self.owned.get(&base), Some(&n), "freeing a megablock we do not own");
        if n == 1 {
            self.free.push(base);
        } else {
            self.unmap(base, n);
        }
    }

    /// Return the memory of free megablocks to the OS until at most `keep`
    /// remain in the pool (See Note [Returning memory lazily]). Returns
    /// how many went back.
    pub fn return_to_os(&mut self, keep: usize) -> usize {
        if self.free.len() <= keep {
            return 0;
        }
        self.free.sort_unstable();
        let going = if self.policy.huge_pages { self.take_free_pairs(keep) } else { self.free.split_off(keep) };
        // The highest free megablocks go, a run of neighbours in one call.
        let runs: Vec<(usize, usize)> = going.chunk_by(|a, b| a + MBLOCK_SIZE == *b).map(|run| (run[0], run.len() * MBLOCK_SIZE)).collect();
        let ticket = self.give_back(runs);
        let count = going.len();
        if count > 0 {
            // The heap shrank: See Note [Touching fresh memory off the pause].
            self.reserve_target = RESERVE_START;
        }
        self.decommitted.extend(going.into_iter().map(|base| (base, ticket)));
        self.mapped -= count;
        self.returned += count;
        count
    }

    /// Megablocks holding memory now (free ones included, decommitted
    /// ones not).
    pub fn mapped(&self) -> usize {
        self.mapped
    }

    /// Free megablocks held for reuse.
    pub fn free_count(&self) -> usize {
        self.free.len()
    }

    /// The most megablocks ever mapped at once.
    pub fn peak(&self) -> usize {
        self.peak
    }

    /// Megablocks whose memory went back to the OS and whose address space
    /// we kept for reuse.
    pub fn decommitted_count(&self) -> usize {
        self.decommitted.len()
    }

    /// Megablocks returned to the OS so far.
    pub fn returned(&self) -> usize {
        self.returned
    }

    /// The range of addresses every megablock of the heap lies in, now
    /// and later, for the GC threads to test pointers against (See
    /// `address_space`); reserved now if it was not yet.
    pub fn heap_range(&mut self) -> Result<HeapRange, OutOfMemory> {
        Ok(self.address_space()?.range())
    }

    /// The heap's address space, reserved at the first call.
    fn address_space(&mut self) -> Result<&mut AddressSpace, OutOfMemory> {
        if self.space.is_none() {
            self.space = Some(AddressSpace::reserve().ok_or(OutOfMemory { bytes: MBLOCK_SIZE })?);
        }
        Ok(self.space.as_mut().expect("reserved just above"))
    }

    /// Is `addr` inside a megablock this pool owns and holds memory in
    /// (free ones and the reserve's included, decommitted ones not)? A range query over the
    /// owned mappings: for checkers, not hot paths.
    pub fn contains(&self, addr: usize) -> bool {
        let mapped = match self.owned.range(..=addr).next_back() {
            Some((&base, &n)) => addr < base + n * MBLOCK_SIZE,
            None => false,
        };
        mapped && !self.decommitted.iter().any(|&(base, _)| base == addr & !MBLOCK_MASK)
    }

    /// Is `base` a free megablock in the pool?
    pub fn is_free(&self, base: usize) -> bool {
        self.free.contains(&base)
    }

    /// Every owned mapping as (base, megablocks), decommitted megablocks
    /// and the reserve's included (their address space is ours).
    pub fn mappings(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.owned.iter().map(|(&b, &n)| (b, n))
    }

    /// From the sorted free pool, the highest free pairs that make up one
    /// huge page each (See Note [Huge pages for the heap]), while more than
    /// `keep` megablocks remain; in address order.
    fn take_free_pairs(&mut self, keep: usize) -> Vec<usize> {
        let mut excess = self.free.len().saturating_sub(keep);
        let (mut going, mut staying) = (Vec::new(), Vec::new());
        while let Some(top) = self.free.pop() {
            let pair = top % HUGE_PAGE == MBLOCK_SIZE && self.free.last() == Some(&(top - MBLOCK_SIZE));
            if pair && excess >= 2 {
                going.extend([self.free.pop().expect("the pair's first half"), top]);
                excess -= 2;
            } else {
                staying.push(top);
            }
        }
        staying.reverse();
        self.free = staying;
        going.sort_unstable();
        going
    }

    /// A fresh pair of megablocks aligned to a huge page and advised to be
    /// backed by one (See Note [Huge pages for the heap]): the first is
    /// returned, the second goes to the free pool. Each is owned as a
    /// megablock of its own, so either can be freed alone; they go back to
    /// the OS together (`take_free_pairs`).
    fn map_pair(&mut self) -> Result<usize, OutOfMemory> {
        let base = self.map_fresh(HUGE_PAGE, HUGE_PAGE)?;
        os::advise_huge_page(base, HUGE_PAGE);
        self.owned.insert(base, 1);
        self.owned.insert(base + MBLOCK_SIZE, 1);
        self.note_mapped(2);
        self.free.push(base + MBLOCK_SIZE);
        Ok(base)
    }

    fn map(&mut self, n: usize) -> Result<usize, OutOfMemory> {
        let base = self.map_fresh(n * MBLOCK_SIZE, MBLOCK_SIZE)?;
        self.owned.insert(base, n);
        self.note_mapped(n);
        Ok(base)
    }

    /// Fresh memory of `bytes`, aligned to `align`, from the heap's
    /// address space (See `address_space`).
    fn map_fresh(&mut self, bytes: usize, align: usize) -> Result<usize, OutOfMemory> {
        self.address_space()?.take(bytes, align).ok_or(OutOfMemory { bytes })
    }

    fn note_mapped(&mut self, n: usize) {
        self.mapped += n;
        self.peak = self.peak.max(self.mapped);
    }

    /// Give the memory of `runs` (address, bytes) back to the OS: lazily,
    /// on the returning thread; the ticket of its batch, or 0 when done
    /// here (See Note [Returning memory off the pause]).
    fn give_back(&mut self, runs: Vec<(usize, usize)>) -> u64 {
        if self.policy.return_mode == MemoryReturn::Lazy {
            if self.returner.is_none() {
                self.returner = Returner::start(|addr, bytes| os::decommit(addr, bytes, MemoryReturn::Lazy));
            }
            if let Some(r) = self.returner.as_mut() {
                return r.send(runs);
            }
        }
        for (addr, bytes) in runs {
            os::decommit(addr, bytes, self.policy.return_mode);
        }
        0
    }

    fn unmap(&mut self, base: usize, n: usize) {
        self.owned.remove(&base);
        self.space.as_mut().expect("an owned megablock lies in the reservation").release(base, n * MBLOCK_SIZE);
        self.mapped -= n;
        self.returned += n;
    }
}

impl Drop for MBlockPool {
    fn drop(&mut self) {
        // Every return handed to the thread is done, and every megablock
        // of the reserve touched, before the unmapping.
        drop(self.returner.take());
        drop(self.pretoucher.take());
        // The address space goes with its megablocks: See `address_space`.
    }
}

/// The system calls (mmap, munmap, madvise), kept apart so the unsafe code is in one place.
mod os {
    use super::MemoryReturn;

    /// `mmap` with these arguments: the address it mapped, or None.
    fn mmap(addr: usize, bytes: usize, prot: libc::c_int, fixed: libc::c_int) -> Option<usize> {
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | fixed;
        // SAFETY: an anonymous private mapping; without MAP_FIXED it
        // touches no existing memory, and callers pass MAP_FIXED only over
        // the heap's own reservation, of which nothing else is mapped
        // (See `address_space`). Failure is MAP_FAILED, checked.
        let raw = unsafe { libc::mmap(addr as *mut libc::c_void, bytes, prot, flags, -1, 0) };
        (raw != libc::MAP_FAILED).then_some(raw as usize)
    }

    /// Reserve `bytes` of address space, no access and no memory,
    /// wherever the kernel likes (any page boundary).
    pub fn reserve(bytes: usize) -> Option<usize> {
        mmap(0, bytes, libc::PROT_NONE, 0)
    }

    /// Give the reserved `bytes` at `addr` zeroed memory: true if the
    /// kernel did.
    pub fn commit(addr: usize, bytes: usize) -> bool {
        mmap(addr, bytes, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_FIXED) == Some(addr)
    }

    /// Drop the memory of `bytes` at `addr`, keeping the addresses
    /// reserved.
    pub fn uncommit(addr: usize, bytes: usize) {
        let done = mmap(addr, bytes, libc::PROT_NONE, libc::MAP_FIXED);
        debug_assert_eq!(done, Some(addr), "mmap(MAP_FIXED, PROT_NONE) failed");
    }

    /// Ask for `bytes` at `addr` to be backed by transparent huge pages
    /// (See Note [Huge pages for the heap]). Advice only: a kernel without
    /// them, or set to `never`, ignores it (and the heap works as before).
    pub fn advise_huge_page(addr: usize, bytes: usize) {
        // SAFETY: a range of our own fresh mapping; the advice changes how
        // the kernel backs it, never its contents or the mapping.
        let _ = unsafe { libc::madvise(addr as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
    }

    /// Give the memory of `bytes` at `addr` back to the OS, keeping the
    /// mapping (See Note [Returning memory lazily]).
    pub fn decommit(addr: usize, bytes: usize, mode: MemoryReturn) {
        let advise = |advice| {
            // SAFETY: callers pass only ranges of our own mappings that
            // nothing refers to (the pool holds them as decommitted); the
            // advice discards contents, never the mapping.
            unsafe { libc::madvise(addr as *mut libc::c_void, bytes, advice) == 0 }
        };
        if mode == MemoryReturn::Lazy && advise(libc::MADV_FREE) {
            return;
        }
        let done = advise(libc::MADV_DONTNEED);
        debug_assert!(done, "madvise(MADV_DONTNEED) failed");
    }

    /// Have the kernel give every page of the megablock at `base` its
    /// memory now, by writing each page as the heap's first write would
    /// (See Note [Touching fresh memory off the pause] in
    /// `mblock_threads::pretouch`).
    pub fn touch(base: usize) {
        for page in (base..base + super::MBLOCK_SIZE).step_by(4096) {
            // SAFETY: a megablock of our own fresh mapping that only the
            // touching thread uses until it is taken; it writes the zero
            // that a fresh page holds, so the contents stay as they were.
            unsafe { std::ptr::write_volatile(page as *mut u8, 0) };
        }
    }

    /// Unmap a range this module reserved.
    pub fn unmap(addr: usize, bytes: usize) {
        // SAFETY: callers pass only ranges of the heap's own reservation,
        // and nothing refers to them any more (the pool is being dropped,
        // or the range was never handed out).
        let rc = unsafe { libc::munmap(addr as *mut libc::c_void, bytes) };
        debug_assert_eq!(rc, 0, "munmap failed");
    }
}

#[cfg(test)]
mod tests;
