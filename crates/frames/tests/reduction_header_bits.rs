//! Issue 22: the reduction header's field bit positions against libfabric's `struct cxip_coll_hdr`
//! written out literally (`prov/cxi/src/cxip_coll.c` lines 203-215 at commit af8ddbe92f03: packed
//! little-endian bitfields in declaration order, so each field's least significant bit is the sum of
//! the widths declared before it), not against the codec's own width constants. The 96-bit header is
//! one big-endian object whose bit 0 is the least significant bit of byte 11 (docs/frames.md §5).

use inswitch_frames::portals::ReductionHeader;

/// (libfabric field, width) in declaration order; the cookie (`struct cxip_coll_cookie`, 32 bits)
/// follows the 64 bits of `seqno` .. `pad`.
const CXIP_COLL_HDR: [(&str, u32); 11] = [
    ("seqno", 10),
    ("arm", 1),
    ("op", 6),
    ("redcnt", 20),
    ("resno", 10),
    ("red_rc", 4),
    ("repsum_m", 8),
    ("repsum_ovflid", 2),
    ("retry", 1),
    ("pad", 2),
    ("cookie", 32),
];

/// The header with only field `name` all ones.
fn only(name: &str) -> ReductionHeader {
    let mut h = ReductionHeader::default();
    match name {
        "seqno" => h.seqno = 0x3ff,
        "arm" => h.arm = true,
        "op" => h.op = 0x3f,
        "redcnt" => h.count = 0xf_ffff,
        "resno" => h.resno = 0x3ff,
        "red_rc" => h.rc = 0xf,
        "repsum_m" => h.repsum_m = 0xff,
        "repsum_ovflid" => h.repsum_ovflid = 3,
        "retry" => h.retry = true,
        "pad" => h.reserved = 3,
        "cookie" => h.cookie = u32::MAX,
        other => panic!("no field {other}"),
    }
    h
}

#[test]
fn every_header_field_sits_where_libfabric_puts_it() {
    let mut lsb = 0u32;
    for (name, width) in CXIP_COLL_HDR {
        let mut bytes = [0u8; 12];
        only(name).emit(&mut bytes).unwrap();
        let mut wide = [0u8; 16];
        wide[4..].copy_from_slice(&bytes);
        let got = u128::from_be_bytes(wide);
        let want = ((1u128 << width) - 1) << lsb;
        assert_eq!(got, want, "{name}: bits {got:#026x}, libfabric's are {want:#026x} (bits {}..={lsb})", lsb + width - 1);
        // And back: the parser reads the same bits.
        assert_eq!(ReductionHeader::parse(&bytes).unwrap(), only(name), "{name}");
        lsb += width;
    }
    assert_eq!(lsb, 96, "the header is 12 bytes");
}
