//! The input checker's unit tests (CRC residues and tables, codes, kind-10 encapsulated configuration, parameters).
use super::collective::collective;
use super::*;
use crate::message::Kind;

#[test]
fn crc_residue_of_a_message_and_its_le_crc() {
    // CRC-32/ISO-HDLC "123456789" = 0xCBF43926; followed by its little-endian CRC, the register
    // (before inversion) is the residue.
    let mut c = u32::MAX;
    for b in b"123456789" {
        c = crc32_byte(c, *b);
    }
    assert_eq!(!c, 0xCBF4_3926);
    for b in 0xCBF4_3926u32.to_le_bytes() {
        c = crc32_byte(c, b);
    }
    assert_eq!(c, CRC32_RESIDUE);
}

/// The table step equals the bit-serial step for every byte, from registers with every low byte.
#[test]
fn crc_table_step_equals_the_bit_serial_step() {
    for crc in [0u32, u32::MAX, 0x1234_5678, 0xDEBB_20E3, 0x8000_0001] {
        for b in 0..=255u8 {
            let c = crc ^ u32::from(b).wrapping_mul(0x0101_0101);
            assert_eq!(crc32_byte(c, b), crc32_byte_serial(c, b), "crc {c:#010x} byte {b:#04x}");
        }
    }
}

#[test]
fn defined_codes() {
    assert!(portals_op_defined(0x30) && portals_op_defined(0x28) && !portals_op_defined(0x13) && !portals_op_defined(0x31));
    assert!(portals_rc_defined(8) && !portals_rc_defined(2) && !portals_rc_defined(9));
    // The masks as the ranges were written before (docs/blocks/input_checker.md §Checks, P4).
    let ops = (0..64u8).filter(|&op| portals_op_defined(op)).count();
    assert_eq!(ops, 4 + 3 + 1 + 3 + 3 + 9);
    assert_eq!(PORTALS_OP_DEFINED, 0x0001_FF77_0017_000F);
    assert_eq!(PORTALS_RC_DEFINED, 0x01FB);
    assert!(!portals_op_defined(64) && !portals_rc_defined(16));
}

/// A kind-10 encapsulated configuration (docs/frames.md §4), written out byte by byte, is applied as
/// exactly the register writes of the kind-1 message with the same body, and for another engine relayed
/// as that message; before it was built kind 10 was an unknown kind (`coll_malformed`). Each defect of
/// the encapsulation is `coll_config`.
#[test]
fn encapsulated_configuration_is_applied_as_its_kind_1_message() {
    #[rustfmt::skip]
    let body: [u8; 24] = [
        0x00, 0x20, 0x03, 0x07,  0x05, 0x01, 0x00, 0x02, // master 0x0020, ISL 3, validation 7, error-rep 5, S 1, N 2
        0x00, 0x00, 0x01, 0x00,  0x00, 0x00, 0x03, 0x00, // timeouts 0x100, 0x300
        0x00, 0x11, 0x00, 0x12,  0x00, 0x12, 0x00, 0x00, // devices 0x0011, 0x0012; subservient 0x0012; pad
    ];
    #[rustfmt::skip]
    let encap_head: [u8; 24] = [
        0x1A, 0x00, 0x00, 0x05,  0x00, 0x00, 0xFF, 0xFF, // version 1 kind 10, CC_ID 5, DMU 0, P_ID none
        0x01, 0x80, 0x01, 0x00,                          // type configuration, apply, version 1
        0x40, 0x00, 0x00, 0x06,  0x00, 0x42, 0x07, 0xFF,  0x12, 0x34, 0x56, 0x78, // MWr32, Length 6
    ];
    let kind1_head = [0x11, 0x00, 0x00, 0x05, 0x00, 0x00, 0xFF, 0xFF];
    let capture = |head: &[u8]| {
        let mut c = [0u8; CAPTURE_BYTES];
        c[14..14 + head.len()].copy_from_slice(head);
        c[14 + head.len()..14 + head.len() + body.len()].copy_from_slice(&body);
        (c, head.len() + body.len())
    };
    let run = |c: &[u8; CAPTURE_BYTES], plen| collective(c, 14, plen, 0x0042, 0x10, None, 0, 9);
    let with_pid_of = |c: &[u8; CAPTURE_BYTES], pid: u16| {
        let mut c = *c;
        c[20..22].copy_from_slice(&pid.to_be_bytes());
        c
    };
    let (c, plen) = capture(&encap_head);
    assert_eq!(plen, 48);
    let Verdict::Config(w) = run(&c, plen) else { panic!("kind 10 not applied: {:?}", run(&c, plen)) };
    let (c1, plen1) = capture(&kind1_head);
    let Verdict::Config(w1) = run(&c1, plen1) else { panic!("kind 1 not applied") };
    let writes: Vec<RegAccess> = (0..w.count()).map(|k| w.write(k)).collect();
    assert_eq!(writes, (0..w1.count()).map(|k| w1.write(k)).collect::<Vec<_>>());
    let wr = |addr: u32, be, wdata| RegAccess { write: true, addr: addr as u16, be, wdata, src: 0x0042, tag: 9 };
    use crate::register_space::offset::*;
    assert_eq!(writes, [
        wr(PBV, 0x3, 0x0011), wr(PBV_FLAGS, 0x3, 1), wr(PBV, 0xC, 0x0012 << 16), wr(PBV_FLAGS, 0xC, 3 << 16),
        wr(ERROR_REPORTING, 0x1, 5), wr(SUB_TIMEOUT, 0xF, 0x100), wr(MASTER_TIMEOUT, 0xF, 0x300),
    ]);
    // A 4-DW original header (Fmt 011) moves the body 4 bytes on.
    let mut head4 = encap_head.to_vec();
    head4[12] = 0x60;
    head4.extend_from_slice(&[0, 0, 0, 1]);
    let (c4, plen4) = capture(&head4);
    let Verdict::Config(w4) = run(&c4, plen4) else { panic!("4-DW original header not applied") };
    assert_eq!(w4.slot0, w.slot0 + 4);
    assert_eq!((0..w4.count()).map(|k| w4.write(k)).collect::<Vec<_>>(), writes);
    // A flit-mode original header (descriptor byte 11 = 1, docs/frames.md §4): MWr32 (Type 0x40, TC, OHC,
    // TS, Attr, Length 6; requester 0x0042, EP/R/tag 7; address), the same body: the same writes, at a
    // 3- and a 4-DW (MWr64) header. Until session 23 byte 11 had to be 0 (`coll_config`).
    let mut flit_head = encap_head;
    flit_head[11] = config::ENCAP_FORM_FLIT;
    flit_head[12..24].copy_from_slice(&[0x40, 0x00, 0x00, 0x06, 0x00, 0x42, 0x00, 0x07, 0x12, 0x34, 0x56, 0x78]);
    let (cf, plenf) = capture(&flit_head);
    assert_eq!(run(&cf, plenf), Verdict::Config(w), "flit-mode original header");
    let mut flit4 = flit_head.to_vec();
    flit4[12] = 0x60;
    flit4.extend_from_slice(&[0, 0, 0, 4]);
    let (cf4, plenf4) = capture(&flit4);
    assert_eq!(run(&cf4, plenf4), Verdict::Config(w4), "flit-mode MWr64");
    // Attr and TC are taken in flit mode; OHC, TS (a trailer: its bit at the non-flit TD / EP places
    // too) and EP (DW1 bit 7) are not; another Type is not.
    assert_eq!(run(&{ let mut c = cf; c[14 + 13] = 0xE0; c[14 + 14] = 0x1C; c }, plenf), Verdict::Config(w), "TC, Attr");
    for (at, v) in [(13, 0x01), (13, 0x10), (14, 0x20), (14, 0x40), (14, 0x80), (18, 0x80), (12, 0x00), (12, 0x03), (12, 0x61)] {
        let mut c = cf;
        c[14 + at] |= v;
        if at == 12 {
            c[14 + at] = v;
        }
        assert_eq!(run(&c, plenf), Verdict::Drop(event::COLL_CONFIG), "flit form, byte {at} |= {v:#x}");
    }
    // P_ID another engine: relayed as its kind-1 twin in either form.
    assert!(matches!(run(&with_pid_of(&cf, 0x11), plenf), Verdict::Msg(m) if m.kind == Kind(1)));
    // One defect each: payload type, operation bit, a reserved bit, version, a header form neither 0 nor
    // 1, a memory read, another Type, TD, EP, Length off by one, a timeout past 24 bits.
    for (at, v) in [(8, 2), (9, 0), (9, 0x81), (10, 2), (11, 2), (11, 0x81), (12, 0x00), (12, 0x41), (14, 0x80), (14, 0x40), (15, 7), (32, 1)] {
        let mut c = c;
        c[14 + at] = v;
        assert_eq!(run(&c, plen), Verdict::Drop(event::COLL_CONFIG), "byte {at} = {v:#x}");
    }
    // The message a DW longer or shorter than descriptor + header + body.
    assert_eq!(run(&c, plen + 4), Verdict::Drop(event::COLL_CONFIG));
    assert_eq!(run(&c, plen - 4), Verdict::Drop(event::COLL_CONFIG));
    // P_ID this engine (0x10): applied. P_ID another engine: kind 10, like kind 1, goes to the CPU to
    // be relayed (000 [0106], [0157]): the same normalized message as its kind-1 twin (kind 1, the
    // carrier's common header, `ConfigFixed` in `pbv`, the slots in `data`), the original header gone,
    // at a 3- and a 4-DW original header (docs/blocks/input_checker.md §Encapsulated configuration).
    // Until session 22 kind 10 for another engine was dropped (`coll_config`).
    let with_pid = with_pid_of;
    assert_eq!(run(&with_pid(&c, 0x10), plen), Verdict::Config(w));
    let Verdict::Msg(twin) = run(&with_pid(&c1, 0x11), plen1) else { panic!("kind 1 not relayed") };
    assert_eq!((twin.kind, twin.pid, twin.ctx, twin.src), (Kind(1), 0x11, 5, 0x0042));
    assert_eq!(twin.pbv, u128::from_be_bytes(body[..16].try_into().unwrap()));
    assert_eq!(twin.data[0], 0x0011_0012_0012_0000);
    assert_eq!(run(&with_pid(&c, 0x11), plen), Verdict::Msg(twin));
    assert_eq!(run(&with_pid(&c4, 0x11), plen4), Verdict::Msg(twin));
    // More slots than the message holds (CONFIG_RELAY_SLOTS): dropped for another engine, as kind 1.
    let mut wide = body.to_vec();
    wide[7] = config::CONFIG_RELAY_SLOTS as u8; // N: with S = 1, one slot over
    wide.resize(16 + 2 * (config::CONFIG_RELAY_SLOTS + 2), 0);
    let mut head_w = encap_head;
    head_w[15] = (wide.len() / 4) as u8;
    let mut cw = [0u8; CAPTURE_BYTES];
    cw[14..38].copy_from_slice(&head_w);
    cw[38..38 + wide.len()].copy_from_slice(&wide);
    assert!(matches!(run(&cw, 24 + wide.len()), Verdict::Config(_)));
    assert_eq!(run(&with_pid(&cw, 0x11), 24 + wide.len()), Verdict::Drop(event::COLL_CONFIG));
    // Kind 9 (the Portals arm, never a TLP message) stays an unknown kind.
    let mut c9 = c;
    c9[14] = 0x19;
    assert_eq!(run(&c9, plen), Verdict::Drop(event::COLL_MALFORMED));
}
/// A kind-10 register write (payload type 2, docs/frames.md §4), written out byte by byte, is the one
/// register write its original header and payload say, as a memory write into the engine's window would
/// be, `src` and `tag` the carrier's; before it was built every payload type but 1 was `coll_config`.
/// Each defect is `coll_config`, and so is one naming another engine (its relay is not built).
#[test]
fn an_encapsulated_register_write_is_one_register_write() {
    #[rustfmt::skip]
    let msg: [u8; 28] = [
        0x1A, 0x00, 0x00, 0x05,  0x00, 0x00, 0x00, 0x10, // kind 10, CC_ID 5, DMU 0, P_ID 0x0010 (this engine)
        0x02, 0x80, 0x01, 0x00,                          // type register write, apply, version 1, non-flit
        0x40, 0x00, 0x00, 0x01,  0x01, 0x00, 0x09, 0x0F,  0x00, 0x10, 0xC1, 0x20, // MWr32 Length 1 to 0x0010_C120
        0x00, 0x04, 0x00, 0x00,                          // data 0x0000_0400 (byte 0 = bits 7:0)
    ];
    let capture = |m: &[u8]| {
        let mut c = [0u8; CAPTURE_BYTES];
        c[14..14 + m.len()].copy_from_slice(m);
        c
    };
    let run = |c: &[u8; CAPTURE_BYTES], plen| collective(c, 14, plen, 0x0042, 0x10, None, 0, 9);
    let write = |be, wdata| Verdict::Reg(RegAccess { write: true, addr: crate::register_space::offset::SUB_TIMEOUT as u16, be, wdata, src: 0x0042, tag: 9 });
    let c = capture(&msg);
    assert_eq!(run(&c, 28), write(0xF, 0x400));
    // P_ID 0xFFFF: this engine too; byte enables are the header's First DW BE.
    assert_eq!(run(&{ let mut c = c; c[20] = 0xFF; c[21] = 0xFF; c }, 28), write(0xF, 0x400));
    assert_eq!(run(&{ let mut c = c; c[14 + 19] = 0x03; c }, 28), write(0x3, 0x400));
    // A 4-DW original header (address bits 63:32 zero) and a flit-mode one (no byte enables: 0xF).
    let mut four = msg[..12].to_vec();
    four.extend_from_slice(&[0x60, 0x00, 0x00, 0x01, 0x01, 0x00, 0x09, 0x0F, 0, 0, 0, 0, 0x00, 0x10, 0xC1, 0x20, 0x00, 0x04, 0x00, 0x00]);
    assert_eq!(run(&capture(&four), 32), write(0xF, 0x400));
    let mut flit = msg;
    flit[11] = config::ENCAP_FORM_FLIT;
    flit[16..20].copy_from_slice(&[0x01, 0x00, 0x00, 0x09]);
    assert_eq!(run(&capture(&flit), 28), write(0xF, 0x400));
    // One defect each: operation bit, version, form, a memory read, TD, EP, Length 2, Last DW BE, another
    // engine's window, another window, the mailbox, an unaligned offset; in the 4-DW form a high address.
    for (at, v) in [(9, 0), (10, 2), (11, 2), (12, 0x00), (14, 0x80), (14, 0x40), (15, 2), (19, 0x1F), (21, 0x11), (22, 0xD1), (22, 0xC9), (23, 0x22)] {
        let mut c = c;
        c[14 + at] = v;
        assert_eq!(run(&c, 28), Verdict::Drop(event::COLL_CONFIG), "byte {at} = {v:#x}");
    }
    assert_eq!(run(&{ let mut c = capture(&four); c[14 + 23] = 1; c }, 32), Verdict::Drop(event::COLL_CONFIG), "address bits 63:32");
    // The message a DW longer or shorter; P_ID another engine (0x0011, the address its window).
    assert_eq!(run(&c, 32), Verdict::Drop(event::COLL_CONFIG));
    assert_eq!(run(&c, 24), Verdict::Drop(event::COLL_CONFIG));
    assert_eq!(run(&{ let mut c = c; c[21] = 0x11; c[14 + 21] = 0x11; c }, 28), Verdict::Drop(event::COLL_CONFIG), "relay not built");
    // A payload type neither 1 nor 2.
    assert_eq!(run(&{ let mut c = c; c[14 + 8] = 3; c }, 28), Verdict::Drop(event::COLL_CONFIG));
}

#[test]
fn bad_width_is_rejected() {
    assert!(InputChecker::new(CheckerParams { data_width: 32 }).is_err());
    assert!(InputChecker::new(CheckerParams { data_width: 64 }).is_ok());
}
