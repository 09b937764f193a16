//! binary-trees prints exactly what the Benchmarks Game's programs print.

use gclab::{flags, run_workload};

fn output(n: usize, rts: &str) -> String {
    let w = gclab_workloads::by_name("binary-trees").unwrap();
    let mut f = flags(rts).unwrap();
    let (entry, _) = gclab_collectors::select(&mut f, None).unwrap();
    let mut out = Vec::new();
    run_workload(w, &[n], f.clone(), entry.make(&f).unwrap(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

const DEPTH_10: &str = "stretch tree of depth 11\t check: 4095
1024\t trees of depth 4\t check: 31744
256\t trees of depth 6\t check: 32512
64\t trees of depth 8\t check: 32704
16\t trees of depth 10\t check: 32752
long lived tree of depth 10\t check: 2047
";

const DEPTH_16: &str = "stretch tree of depth 17\t check: 262143
65536\t trees of depth 4\t check: 2031616
16384\t trees of depth 6\t check: 2080768
4096\t trees of depth 8\t check: 2093056
1024\t trees of depth 10\t check: 2096128
256\t trees of depth 12\t check: 2096896
64\t trees of depth 14\t check: 2097088
16\t trees of depth 16\t check: 2097136
long lived tree of depth 16\t check: 131071
";

#[test]
fn depth_10_matches_the_reference_program() {
    assert_eq!(output(10, ""), DEPTH_10);
    assert_eq!(output(10, "-G1 -A8k"), DEPTH_10);
}

#[test]
fn depth_16_matches_the_reference_program() {
    assert_eq!(output(16, ""), DEPTH_16);
    assert_eq!(output(16, "-G3 -A64k"), DEPTH_16);
}
