//! CRCs of the two wire families, all built on the `crc` crate (docs/frames.md §7).
//!
//! | name | algorithm | covers | stored |
//! |---|---|---|---|
//! | LCRC | CRC-32/ISO-HDLC | `{4 reserved bits = 0, 12-bit sequence number}` (2 bytes, big-endian) + TLP | little-endian |
//! | ECRC (non-flit) | CRC-32/ISO-HDLC | End-End prefixes (Local ones left out) + TLP header + data, with the header's Type\[0\] (byte 0 bit 0) and EP (byte 2 bit 6) forced to 1 | little-endian |
//! | ECRC (flit) | CRC-32/ISO-HDLC | header + OHC + data, with byte 0 bit 0 and byte 6 bit 7 forced to 1 | little-endian |
//! | DLLP CRC | CRC-16, poly 0x100B, init 0xFFFF, reflected, xorout 0xFFFF | the 4 DLLP bytes | little-endian |
//! | Ethernet FCS | CRC-32/ISO-HDLC | destination MAC .. end of payload | little-endian |

use crc::{Algorithm, Crc, Digest, Table, CRC_32_ISO_HDLC};

/// Width of the data-link sequence number that precedes a TLP in the LCRC computation.
pub const SEQUENCE_BITS: u32 = 12;
/// Mask of [`SEQUENCE_BITS`].
pub const SEQUENCE_MASK: u16 = (1 << SEQUENCE_BITS) - 1;

/// CRC-32 shared by LCRC, ECRC and the Ethernet FCS, sixteen bytes a step (slice-by-16 tables, 16 KiB;
/// the fabric computes an LCRC per frame sent). A `static`: a `const` would be a new 16 KiB value
/// wherever it is used.
pub static CRC32: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISO_HDLC);

/// The DLLP CRC-16: polynomial 0x100B, seed 0xFFFF, bits processed LSB first (reflected), result
/// complemented. Matches cocotbext-pcie `dllp.crc16` (reflected poly 0xD008) followed by `~crc`.
pub const DLLP_CRC16_ALGORITHM: Algorithm<u16> = Algorithm {
    width: 16,
    poly: 0x100b,
    init: 0xffff,
    refin: true,
    refout: true,
    xorout: 0xffff,
    check: 0x0000, // not used by the crc crate; the known vector lives in the tests
    residue: 0x0000,
};
/// Instance of [`DLLP_CRC16_ALGORITHM`].
pub const DLLP_CRC16: Crc<u16> = Crc::<u16>::new(&DLLP_CRC16_ALGORITHM);

/// Byte and bit of the non-flit ECRC variant bits (Type\[0\], EP) that are treated as 1.
pub const NON_FLIT_ECRC_VARIANT_BITS: [(usize, u8); 2] = [(0, 1 << 0), (2, 1 << 6)];
/// Byte and bit of the flit-mode ECRC variant bits that are treated as 1.
pub const FLIT_ECRC_VARIANT_BITS: [(usize, u8); 2] = [(0, 1 << 0), (6, 1 << 7)];

/// LCRC of `tlp` (prefixes, header, data and digest, as transmitted) sent with sequence number `seq`
/// (only the low [`SEQUENCE_BITS`] are used; the 4 bits above them are reserved and taken as 0).
pub fn lcrc(seq: u16, tlp: &[u8]) -> u32 {
    let mut d = CRC32.digest();
    d.update(&(seq & SEQUENCE_MASK).to_be_bytes());
    d.update(tlp);
    d.finalize()
}

/// Feeds `bytes` into `d` with the `forced` bits (offsets into `bytes`) taken as 1, then finishes.
fn crc32_with_forced_bits(mut d: Digest<'_, u32, Table<16>>, bytes: &[u8], forced: &[(usize, u8)]) -> u32 {
    // Feed the bytes in three pieces so no copy of a 4 KiB payload is needed: only bytes holding a
    // variant bit are patched.
    let mut start = 0usize;
    for &(idx, mask) in forced {
        if idx >= bytes.len() {
            break;
        }
        d.update(bytes.get(start..idx).unwrap_or(&[]));
        let b = bytes.get(idx).copied().unwrap_or(0) | mask;
        d.update(&[b]);
        start = idx + 1;
    }
    d.update(bytes.get(start..).unwrap_or(&[]));
    d.finalize()
}

/// Non-flit ECRC over a TLP header plus data (no prefixes, no digest).
pub fn ecrc(header_and_data: &[u8]) -> u32 {
    ecrc_with_prefixes(&[], header_and_data)
}

/// Non-flit ECRC of a TLP with prefixes (PCIe Base Specification §2.7.1): its End-End prefixes in wire
/// order (Local prefixes are not covered: the caller leaves them out), then its header and data (no
/// digest). The variant bits are the header's: the same bits of an End-End prefix are invariant, so the
/// prefixes are fed as they are.
pub fn ecrc_with_prefixes(end_end_prefixes: &[u8], header_and_data: &[u8]) -> u32 {
    let mut d = CRC32.digest();
    d.update(end_end_prefixes);
    crc32_with_forced_bits(d, header_and_data, &NON_FLIT_ECRC_VARIANT_BITS)
}

/// Flit-mode ECRC over header base, OHC and data (flit mode has Local prefixes only, none covered).
pub fn flit_ecrc(header_and_data: &[u8]) -> u32 {
    crc32_with_forced_bits(CRC32.digest(), header_and_data, &FLIT_ECRC_VARIANT_BITS)
}

/// CRC-16 of a 4-byte DLLP.
pub fn dllp_crc16(dllp: &[u8; 4]) -> u16 {
    DLLP_CRC16.checksum(dllp)
}

/// Ethernet FCS of a frame from destination MAC to the end of the payload (FCS excluded).
pub fn ethernet_fcs(frame: &[u8]) -> u32 {
    CRC32.checksum(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcrc_known_vector() {
        assert_eq!(lcrc(0, &[0u8; 12]), 0xD1BB_79C7);
    }

    #[test]
    fn dllp_crc_matches_bitwise_reference() {
        // Bit-serial reference written from the algorithm description (reflected poly 0xD008).
        fn reference(data: &[u8]) -> u16 {
            let mut crc: u16 = 0xffff;
            for &d in data {
                crc ^= u16::from(d);
                for _ in 0..8 {
                    crc = if crc & 1 != 0 { (crc >> 1) ^ 0xd008 } else { crc >> 1 };
                }
            }
            !crc
        }
        for v in [[0u8, 0, 0, 0], [0x00, 0x00, 0x00, 0x05], [0x40, 0x08, 0x03, 0x40], [0xff; 4]] {
            assert_eq!(dllp_crc16(&v), reference(&v), "{v:02x?}");
        }
    }

    /// The slice-by-16 form is the byte-at-a-time one at every length around its 16-byte steps.
    #[test]
    fn sliced_crc32_is_the_bytewise_one() {
        let bytewise = Crc::<u32>::new(&CRC_32_ISO_HDLC);
        let data: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for start in 0..16 {
            for end in start..data.len() {
                assert_eq!(CRC32.checksum(&data[start..end]), bytewise.checksum(&data[start..end]), "{start}..{end}");
            }
        }
        assert_eq!(lcrc(5, &data[..100]), {
            let mut d = bytewise.digest();
            d.update(&5u16.to_be_bytes());
            d.update(&data[..100]);
            d.finalize()
        });
    }

    #[test]
    fn ecrc_forces_variant_bits() {
        let mut h = [0u8; 12];
        let a = ecrc(&h);
        h[0] |= 1;
        h[2] |= 0x40;
        assert_eq!(a, ecrc(&h));
        assert_eq!(a, CRC32.checksum(&h));
        let mut f = [0u8; 8];
        let b = flit_ecrc(&f);
        f[0] |= 1;
        f[6] |= 0x80;
        assert_eq!(b, CRC32.checksum(&f));
        assert_eq!(ecrc(&[]), CRC32.checksum(&[]));
    }
}
