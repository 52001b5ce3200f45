//! The CRC-32 of a whole frame for the blocks that build one (the frame builder's LCRC and FCS, the
//! completion builder's LCRC), sixteen bytes a step with the `crc` crate's slice-by-16 tables.
//!
//! Why not [`crate::input_checker::crc32_byte`] over the frame: one table lookup a byte, a chain of
//! dependent steps, was about 10% of the top's model at the seeds' sizes (issue 23; the checker's
//! per-beat CRCs are the rest of it). The result is the same CRC (test below); the RTL computes it a beat
//! at a time with XOR trees (`crc_matrix`), which neither form imitates.

use crc::{Crc, Table, CRC_32_ISO_HDLC};

/// CRC-32/ISO-HDLC (reflected [`crate::input_checker::CRC32_POLY`], initial value all ones, result
/// inverted) with sixteen 256-entry tables (16 KiB). A `static`, not a `const`: a `const` would be a
/// new 16 KiB value wherever it is used.
static CRC32_SLICE16: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISO_HDLC);

// The catalogue's algorithm is the model's CRC, checked when compiling: the same polynomial, reflected,
// all-ones initial value, inverted result.
const _: () = assert!(CRC_32_ISO_HDLC.poly.reverse_bits() == crate::input_checker::CRC32_POLY);
const _: () = assert!(CRC_32_ISO_HDLC.refin && CRC_32_ISO_HDLC.refout && CRC_32_ISO_HDLC.init == u32::MAX && CRC_32_ISO_HDLC.xorout == u32::MAX);

/// The CRC-32 of `bytes` as a frame carries it: `!bytes.fold(u32::MAX, crc32_byte)` (LCRC, FCS).
pub fn crc32_frame(bytes: &[u8]) -> u32 {
    CRC32_SLICE16.checksum(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input_checker::crc32_byte;

    #[test]
    fn the_sliced_crc_is_the_byte_serial_one_at_every_length_and_alignment() {
        // Bytes from a fixed LCG (no seed to vary), every length across several 16-byte steps and
        // every start within a step, so the tail handling and the alignment are both covered.
        let mut x = 0x1234_5678u32;
        let data: Vec<u8> = (0..600)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect();
        for start in 0..16 {
            for len in (0..=80).chain([255, 256, 257, 511, 584 - start]) {
                let b = &data[start..start + len];
                assert_eq!(crc32_frame(b), !b.iter().fold(u32::MAX, |c, &v| crc32_byte(c, v)), "start {start} length {len}");
            }
        }
        assert_eq!(crc32_frame(b"123456789"), 0xCBF4_3926, "the catalogue's check value");
    }
}
