//! Memory goes back to the OS: megablocks freed by a shrinking heap are
//! unmapped after a major GC, and large objects' megablock groups as soon
//! as they die. And a run's peak RSS is its own, not its parent's.

use gclab_core::{InfoTable, Mutator, Rts, StaticObject};

static NIL_INFO: InfoTable = InfoTable::static_constr("Nil", "List", "Memory");
static NIL: StaticObject = StaticObject::new(&NIL_INFO);
static CONS: InfoTable = InfoTable::constr("Cons", "List", "Memory", 1, 1);

fn build_list(m: &mut Mutator<'_>, n: usize) {
    let list = m.static_obj(&NIL);
    for i in 0..n {
        let cell = m.alloc(&CONS, &[list], &[i]);
        m.set(list, cell);
        m.truncate(list.index() + 1);
    }
}

/// A runtime with RTS flags `rts_flags` and the collector `collector`.
fn rts_of(rts_flags: &str, collector: &str) -> Rts {
    gclab::runtime(rts_flags, collector).unwrap()
}

#[test]
fn a_runs_peak_rss_is_its_own_not_its_parents() {
    // This process is 256 MiB resident when it starts the run, which a
    // child started by posix_spawn reads as the floor of its `ru_maxrss`
    // (See Note [A process's own peak RSS] in core's `process_usage`).
    let ballast = vec![1u8; 256 << 20];
    std::hint::black_box(&ballast);
    let json = std::env::temp_dir().join(format!("gclab-own-rss-{}.json", std::process::id()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gclab")).args(["run", "--json"]).arg(&json).args(["binary-trees", "4"]).env_remove("GCLABRTS").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let rss = record["stats"]["max_rss_bytes"].as_u64().expect("a peak RSS");
    assert!(rss > 0 && rss < 64 << 20, "binary-trees 4 read a peak RSS of {rss} bytes");
    drop(ballast);
}

#[test]
fn a_shrinking_heap_returns_megablocks() {
    // `--huge-pages` maps megablocks in pairs and returns only whole
    // pairs (See Note [Huge pages for the heap] in core's `mblock`); the
    // sanity checker runs after its GCs.
    for (rts_flags, collector) in [("-A1m", "copying"), ("-A1m -G1", "two-space"), ("-A1m -c", "compacting"), ("-A1m --huge-pages -DS", "copying")] {
        let rts = rts_of(rts_flags, collector);
        rts.run(|m| {
            let base = m.depth();
            build_list(m, 1_000_000); // 24 MB live
            m.perform_gc(true);
            m.truncate(base);
            m.perform_gc(true);
            m.perform_gc(true);
        })
        .unwrap();
        let stats = rts.finish().unwrap();
        assert!(stats.max_mem_in_use_bytes >= 24 << 20, "{rts_flags}: peak {} below the list's size", stats.max_mem_in_use_bytes);
        assert!(stats.mblocks_returned >= 20, "{rts_flags}: only {} megablocks returned after the 24 MB list died", stats.mblocks_returned);
    }
}

#[test]
fn dead_huge_objects_unmap_their_megablock_groups() {
    let rts = rts_of("-A64k -DS", "copying");
    rts.run(|m| {
        for _ in 0..4 {
            let base = m.depth();
            m.new_byte_array(3 << 20); // a 3-megablock group
            m.truncate(base);
            m.perform_gc(true);
        }
    })
    .unwrap();
    let stats = rts.finish().unwrap();
    assert!(stats.mblocks_returned >= 4 * 4, "megablock groups of dead arrays were not unmapped ({} returned)", stats.mblocks_returned);
}

/// Each round makes one cell of a long-lived list and collects twice, so
/// that every other GC promotes the one cell (three words) into the old
/// generation. See Note [Resuming a part-filled block] in the collectors'
/// `gc_thread`: while each GC started a fresh block for it, the copying
/// collector's generations ended holding 45 blocks (23,040 words) for 900
/// words of cells; now 3 (1,536), and the spaces of the non-moving
/// collectors 2.
#[test]
fn an_old_generation_gains_no_block_per_gc_that_promotes_a_little() {
    for collector in ["copying", "compacting", "parallel", "mark-sweep", "nonmoving", "immix"] {
        let rts = rts_of("-A64k -DS", collector);
        rts.run(|m| {
            let list = m.static_obj(&NIL);
            for i in 0..300 {
                let cell = m.alloc(&CONS, &[list], &[i]);
                m.set(list, cell);
                m.truncate(list.index() + 1);
                m.perform_gc(false);
                m.perform_gc(false);
            }
            let held = gclab_core::gc::quick_stat(m).heap_words;
            assert!(held < 16 * 512, "{collector}: the generations hold {held} words of blocks for 300 cells of 3 words");
        })
        .unwrap();
    }
}

/// A heap that grows takes megablocks that the pool's thread touched
/// beside the mutator, under the default flags, and none with
/// `--no-pretouch` (See Note [Touching fresh memory off the pause] in
/// core's `mblock_threads::pretouch`). The list grows in steps with a
/// pause between them, so that the thread has a core for its reserve
/// even on a loaded machine; the sanity checker runs after every GC.
#[test]
fn a_growing_heap_takes_megablocks_touched_off_the_pause() {
    for (rts_flags, collector) in [("-A1m -DS", "nonmoving"), ("-A1m -DS", "mark-sweep"), ("-A1m", "copying")] {
        for pretouch in [true, false] {
            let all = if pretouch { rts_flags.to_string() } else { format!("{rts_flags} --no-pretouch") };
            let rts = rts_of(&all, collector);
            rts.run(|m| {
                for _ in 0..16 {
                    build_list(m, 50_000); // 1.2 MB more live each step
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            })
            .unwrap();
            let stats = rts.finish().unwrap();
            if pretouch {
                assert!(stats.mblocks_pretouched > 0, "{collector} {all}: no megablock came touched from the reserve");
            } else {
                assert_eq!(stats.mblocks_pretouched, 0, "{collector} {all}: a reserve without pretouching");
            }
        }
    }
}
