//! The CRC-32 of a whole beat as XOR trees, for `rtl/input_checker.v` (issue 19 item 2: a short logic
//! depth per stage).
//!
//! The reflected CRC-32 register ([`CRC32_POLY`]) is linear over GF(2): after `n` bit steps with no input
//! it is `A^n(c)`, and a beat of `W` bits updates it as `c' = XOR over the set bits j of (state bit j,
//! j < 32) and (data bit j) of A^(W-j)(e0)`, where `e0` is the register with only bit 0 set (a data bit j,
//! byte j/8 bit j%8, is XORed into register bit j%8 before the 8 steps of its byte, that is, W - j steps
//! before the end; a state bit j is j steps from bit 0). So output bit i of the beat's CRC is the XOR of
//! the input bits selected by row i: bit j of row i is bit i of `A^(W-j)(e0)`. The RTL writes each output
//! bit as `^(ROW & data) ^ ^(ROW[31:0] & state)`: a balanced XOR tree, about four six-input LUT levels
//! for a 256-bit beat, where the byte-serial loop (`crc32_byte` 32 times) is a chain hundreds of gates
//! deep. The rows are generated once for the widest beat, [`ROW_BITS`]: the row for a narrower width W
//! is the top W bits of the widest (bit j of the W row is `A^(W-j)(e0)`, bit `ROW_BITS - W + j` of the
//! widest).
//!
//! A partial last beat is fed whole with its missing bytes zeroed: the register then holds the frame's
//! CRC advanced by 8 bit steps per zero byte, `A^(8m)(crc)`, and since `A` is invertible the frame's CRC
//! is the residue exactly when the register is `A^(8m)(residue)`: [`residue_after_zeros`], a table by
//! `m`. The ECRC starts at byte 2 of a frame's first beat: its register starts at
//! [`init_two_bytes_early`], the value that two zero bytes (bytes 0 and 1, masked) turn into the usual
//! initial value.
//!
//! The frame builder (`rtl/frame_builder.v`) uses the same rows to *compute* a CRC whose data does not end
//! on a beat boundary: it stores the frame `z` bytes later (z zero bytes first, so the data ends on a
//! boundary) and starts the register at [`init_bytes_early`]`(z)`, the value that `z` zero bytes turn
//! into the usual initial value; [`init_early_localparams`] writes that table. One generator, two
//! headers: `rtl/input_checker_codes.vh` ([`localparams`]) and `rtl/frame_builder_codes.vh`
//! ([`rows_localparams`] and [`init_early_localparams`]).

use super::protocol::{CAPTURE_BYTES, CRC32_POLY, CRC32_RESIDUE};

/// The widest beat the rows cover (`DATA_WIDTH` up to 1024).
pub const ROW_BITS: usize = 1024;

/// One bit step of the reflected CRC-32 register with a zero input bit (`A`).
pub fn step(c: u32) -> u32 {
    (c >> 1) ^ (CRC32_POLY & (c & 1).wrapping_neg())
}

/// The inverse of [`step`]: bit 31 of a stepped register is the bit that left (the polynomial's top
/// bit is set), which gives the register back.
pub fn unstep(c: u32) -> u32 {
    let out = c >> 31;
    ((c ^ (CRC32_POLY & out.wrapping_neg())) << 1) | out
}

/// `A^n(c)`: `n` bit steps.
pub fn advance(mut c: u32, n: usize) -> u32 {
    for _ in 0..n {
        c = step(c);
    }
    c
}

/// Row `i` (output bit i) of the beat CRC for a `width`-bit beat: bit j set if data bit j (and state bit
/// j, j < 32) reaches output bit i.
pub fn row(i: usize, width: usize) -> Vec<bool> {
    (0..width).map(|j| advance(1, width - j) >> i & 1 != 0).collect()
}

/// The beat CRC computed with the rows (what the RTL computes), for tests.
pub fn beat_crc(state: u32, data: &[u8]) -> u32 {
    let width = 8 * data.len();
    let bit = |j: usize| data[j / 8] >> (j % 8) & 1 != 0;
    (0..32).fold(0, |acc, i| {
        let r = row(i, width);
        let x = (0..width).filter(|&j| r[j] && bit(j)).count() + (0..32).filter(|&j| r[j] && state >> j & 1 != 0).count();
        acc | ((x as u32 & 1) << i)
    })
}

/// What the register holds after a frame whose CRC is the residue is followed by `m` zero bytes.
pub fn residue_after_zeros(m: usize) -> u32 {
    advance(CRC32_RESIDUE, 8 * m)
}

/// The register value that `n` zero bytes turn into the initial value 0xFFFF_FFFF.
pub fn init_bytes_early(n: usize) -> u32 {
    (0..8 * n).fold(u32::MAX, |c, _| unstep(c))
}

/// The register value that two zero bytes turn into the initial value 0xFFFF_FFFF.
pub fn init_two_bytes_early() -> u32 {
    init_bytes_early(2)
}

/// `CRC32_ROW_BITS` and `CRC32_ROWS` (row i in bits `[i*CRC32_ROW_BITS +: CRC32_ROW_BITS]`; the row of a
/// `W`-bit beat is its top `W` bits).
pub fn rows_localparams() -> String {
    let mut s = format!("localparam CRC32_ROW_BITS = {ROW_BITS};\n");
    s.push_str("localparam [32*CRC32_ROW_BITS-1:0] CRC32_ROWS = {\n");
    for i in (0..32).rev() {
        let r = row(i, ROW_BITS);
        let hex: String = r.chunks(4).rev().map(|n| char::from_digit(n.iter().rev().fold(0, |a, &b| a << 1 | u32::from(b)), 16).unwrap()).collect();
        s.push_str(&format!("    {ROW_BITS}'h{}{}\n", hex.to_uppercase(), if i > 0 { "," } else { "" }));
    }
    s.push_str("};\n");
    s
}

/// A table of 32-bit entries `name` (entry m in bits `[32*m +: 32]`, m below `entries`), eight a line.
fn table32(name: &str, entries: usize, f: impl Fn(usize) -> u32) -> String {
    let mut s = format!("localparam [32*{entries}-1:0] {name} = {{\n");
    for m in (0..entries).rev() {
        let sep = if m > 0 { "," } else { "" };
        s.push_str(&format!("{}32'h{:08X}{sep}{}", if m % 8 == 7 || m == entries - 1 { "    " } else { "" }, f(m), if m % 8 == 0 { "\n" } else { " " }));
    }
    s.push_str("};\n");
    s
}

/// `CRC32_INIT_BYTES_EARLY`: entry z (bits `[32*z +: 32]`, z below `entries`) is [`init_bytes_early`]`(z)`.
pub fn init_early_localparams(entries: usize) -> String {
    table32("CRC32_INIT_BYTES_EARLY", entries, init_bytes_early)
}

/// The localparams of `rtl/input_checker_codes.vh`: `CRC32_ROW_BITS`, `CRC32_ROWS` (row i in bits
/// `[i*CRC32_ROW_BITS +: CRC32_ROW_BITS]`), `CRC32_RESIDUE_AFTER_ZEROS` (entry m in bits `[32*m +: 32]`,
/// m below `CAPTURE_BYTES`, the widest beat) and `CRC32_INIT_TWO_BYTES_EARLY`.
pub fn localparams() -> String {
    let mut s = rows_localparams();
    s.push_str(&table32("CRC32_RESIDUE_AFTER_ZEROS", CAPTURE_BYTES, residue_after_zeros));
    s.push_str(&crate::codes::hex("CRC32_INIT_TWO_BYTES_EARLY", 32, u64::from(init_two_bytes_early())));
    s
}

#[cfg(test)]
mod tests {
    use super::super::protocol::crc32_byte;
    use super::*;

    fn serial(mut c: u32, data: &[u8]) -> u32 {
        for &b in data {
            c = crc32_byte(c, b);
        }
        c
    }

    /// The rows give the byte-serial CRC at the widths the RTL is built with.
    #[test]
    fn rows_compute_the_byte_serial_crc() {
        let mut x = 0x1234_5678_u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for width in [64, 128, 256] {
            for _ in 0..4 {
                let state = next();
                let data: Vec<u8> = (0..width / 8).map(|_| next() as u8).collect();
                assert_eq!(beat_crc(state, &data), serial(state, &data), "width {width}");
            }
        }
        // The narrow rows are the top bits of the widest.
        let wide = row(5, ROW_BITS);
        assert_eq!(row(5, 64), wide[ROW_BITS - 64..].to_vec());
    }

    /// A frame followed by its LE CRC and m zero bytes leaves the table's entry m; the early ECRC
    /// start becomes the initial value after two zero bytes.
    #[test]
    fn residue_table_and_early_init() {
        let msg = b"123456789";
        let crc = !serial(u32::MAX, msg);
        let mut frame = msg.to_vec();
        frame.extend_from_slice(&crc.to_le_bytes());
        for m in [0, 1, 5, 31, 127] {
            let mut f = frame.clone();
            f.extend(std::iter::repeat(0).take(m));
            assert_eq!(serial(u32::MAX, &f), residue_after_zeros(m), "m = {m}");
        }
        assert_eq!(serial(init_two_bytes_early(), &[0, 0]), u32::MAX);
        for n in [0, 1, 30, 63] {
            assert_eq!(serial(init_bytes_early(n), &vec![0; n]), u32::MAX, "n = {n}");
        }
        assert_ne!(init_bytes_early(1), u32::MAX);
        assert_eq!(unstep(step(0x8000_0001)), 0x8000_0001);
    }
}
