//! `verif/bench.rs`.

use inswitch::bench::hex;

#[test]
fn hex_prints_the_port_width_in_groups() {
    assert_eq!(hex(&[0x5], 1), "0x5");
    assert_eq!(hex(&[0xab], 8), "0xab");
    assert_eq!(hex(&[0x1, 0x2, 0x3], 72), "0x03_0000000200000001");
    assert_eq!(hex(&[0xffff_ffff, 0xffff_ffff, 0x0], 65), "0x0_ffffffffffffffff");
}
