//! The input checker's unit tests (CRC residues and tables, codes, parameters).
use super::*;

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

#[test]
fn bad_width_is_rejected() {
    assert!(InputChecker::new(CheckerParams { data_width: 32 }).is_err());
    assert!(InputChecker::new(CheckerParams { data_width: 64 }).is_ok());
}
