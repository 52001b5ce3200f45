//! `verif/blocks/reduce_unit.rs` (`blocks::reduce_unit::flt_sum_cross`).

use inswitch::blocks::reduce_unit::flt_sum_cross::*;
use inswitch::sources::Fe;

#[test]
fn classes_from_the_encoding() {
    let cases = [
        (0x0000_0000_0000_0000, ZERO),
        (0x8000_0000_0000_0000, ZERO),
        (0x0000_0000_0000_0001, SUB),
        (0x800f_ffff_ffff_ffff, SUB),
        (0x0010_0000_0000_0000, NORMAL),
        (0x3ff0_0000_0000_0000, NORMAL),
        (0xffef_ffff_ffff_ffff, NORMAL),
        (0x7ff0_0000_0000_0000, INF),
        (0xfff0_0000_0000_0000, INF),
        (0x7ff8_0000_0000_0000, QNAN),
        (0xffff_ffff_ffff_ffff, QNAN),
        (0x7ff0_0000_0000_0001, SNAN),
        (0xfff7_ffff_ffff_ffff, SNAN),
    ];
    for (v, want) in cases {
        assert_eq!(class(v), want, "{v:#018x}");
    }
}

#[test]
fn exclusions_agree_with_the_reference_sum_on_edge_values() {
    // Every pair of edge values in every mode lands in a reachable bin.
    let edges: [u64; 14] = [
        0, 1 << 63, 1, (1 << 52) - 1, 0x8000_0000_0000_0001, 0x0010_0000_0000_0000, 0x3ff0_0000_0000_0000,
        0x7fef_ffff_ffff_ffff, 0xffef_ffff_ffff_ffff, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000, 0x7ff0_0000_0000_0001, 0x800f_ffff_ffff_ffff,
    ];
    let mut c = new();
    for fe in [Fe::ToNearest, Fe::Upward, Fe::Downward, Fe::TowardZero] {
        for ftz in [false, true] {
            for &x in &edges {
                for &y in &edges {
                    observe(&mut c, &[x; 4], &[y; 4], fe, ftz);
                }
            }
        }
    }
    assert!(c.excluded_hits().is_empty(), "{}", c.report(false));
    // Upward: the largest finite value plus a subnormal of the same sign overflows.
    assert!(c.count(&[1, 0, NORMAL, SUB, OVERFLOW]) > 0);
}
