//! The PCIe CRCs (LCRC, ECRC non-flit and flit, DLLP CRC-16) against references that share no code with
//! this crate, run in the repository's Python venv by `scripts/oracles/crc_oracle.py`: C zlib's
//! `crc32` and a bit-serial LFSR written from the PCIe Base Specification's description (polynomial
//! 04C1_1DB7h, seed FFFF_FFFFh, bit 0 of each byte first, remainder complemented and bit-reversed),
//! and cocotbext-pcie's DLLP packer / CRC-16 (docs/frames.md §7). The ECRC of a TLP with prefixes is
//! checked whole: the oracle finds the prefixes itself and covers the End-End ones, not the Local ones
//! (PCIe Base Specification §2.7.1).
//! This test FAILS (it does not skip) when `.venv` is missing: run `bash scripts/setup`.
//!
//! `the_oracle_rejects_every_one_bit_mutant_of_the_crcs` shows the oracle can fail: copies of the
//! computations under test with one parameter changed (a polynomial bit, a seed bit, the bit order, the
//! final complement, the sequence number's bytes or mask, an ECRC variant bit, the DLLP CRC's byte order,
//! the End-End prefixes left out, a Local prefix covered, the variant bits taken from the first prefix)
//! are sent to it with the same vectors and each must be rejected (issue 15 item 10).

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use ::crc::{Algorithm, Crc, CRC_32_ISO_HDLC};
use inswitch_frames::crc;
use inswitch_frames::dllp::Dllp;
use inswitch_frames::tlp::{self, Address, Header, RequestDw1, Tlp, TlpPrefix};
use serde_json::{json, Value};

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the CRC oracle on JSON lines; returns its answers.
fn run_oracle(lines: &[Value]) -> Vec<Value> {
    let py = repo_root().join(".venv/bin/python");
    assert!(py.exists(), "\n\nPython oracle venv missing at {}.\nRun `bash scripts/setup`.\n", py.display());
    // One file per call: the two tests of this file run at once in one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let input = std::env::temp_dir().join(format!("inswitch-crc-oracle-{}-{call}", std::process::id()));
    let mut f = std::fs::File::create(&input).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    drop(f);
    let out = Command::new(&py)
        .arg(repo_root().join("scripts/oracles/crc_oracle.py"))
        .arg(&input)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", py.display()));
    let _ = std::fs::remove_file(&input);
    assert!(out.status.success(), "crc_oracle.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let answers: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), lines.len());
    answers
}

/// A xorshift64 stream from `x` (the vectors are the same every run).
fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Runs the oracle on `lines`; every answer must be without error.
fn assert_the_oracle_agrees(lines: &[Value]) {
    let answers = run_oracle(lines);
    let bad: Vec<String> = answers
        .iter()
        .zip(lines)
        .filter(|(a, _)| !a["errors"].as_array().unwrap().is_empty())
        .map(|(a, l)| format!("{l} -> {}", a["errors"]))
        .collect();
    assert!(bad.is_empty(), "{} of {} disagree:\n{}", bad.len(), lines.len(), bad[..bad.len().min(10)].join("\n"));
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn lcrc_ecrc_and_dllp_crc_agree_with_zlib_the_spec_lfsr_and_cocotbext_pcie() {
    let mut next = xorshift(0x0c5c_0de5_1eed);
    let mut lines = Vec::new();
    // Known TLPs (a 3DW MWr with data, a 4DW header) and random byte strings of every length class.
    for (seq, t) in [(7u16, "40000001 01002a0f 0010c004 deadbeef"), (0xfff, "20000000 01000a0f 00000001 0010c000")] {
        let tlp = Tlp::parse(&unhex(t)).unwrap();
        lines.push(json!({"kind": "lcrc", "seq": seq, "hex": hex(&tlp.to_bytes().unwrap()), "value": tlp.lcrc(seq).unwrap()}));
    }
    for n in 0..300usize {
        let len = [0, 1, 3, 4, 12, 16, 20][n % 7] + (next() % 64) as usize * usize::from(n % 3 == 0);
        let b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let seq = next() as u16; // bits above the 12-bit sequence number must be ignored
        lines.push(json!({"kind": "lcrc", "seq": seq, "hex": hex(&b), "value": crc::lcrc(seq, &b)}));
        lines.push(json!({"kind": "ecrc", "flit": false, "hex": hex(&b), "value": crc::ecrc(&b)}));
        lines.push(json!({"kind": "ecrc", "flit": true, "hex": hex(&b), "value": crc::flit_ecrc(&b)}));
        let body = (next() as u32).to_le_bytes();
        lines.push(json!({"kind": "dllp_body", "hex": hex(&body), "value": crc::dllp_crc16(&body)}));
        let (nak, s) = (next() & 1 != 0, (next() & 0xfff) as u16);
        let mut out = [0u8; 6];
        Dllp::ack_nak(nak, s).emit(&mut out).unwrap();
        lines.push(json!({"kind": "dllp", "nak": nak, "seq": s, "hex": hex(&out)}));
    }
    assert_the_oracle_agrees(&lines);
}

/// Prefix types (Type\[4:0\]) the TLPs below carry: Local 0x00 MR-IOV, 0x0E/0x0F vendor; End-End 0x10
/// TPH, 0x11 PASID, 0x1E/0x1F vendor (Type\[4\] = 1 is End-End).
const PREFIX_TYPES: [u8; 7] = [0x00, 0x0E, 0x0F, 0x10, 0x11, 0x1E, 0x1F];

/// A random non-flit TLP with 0 to 4 prefixes of the types above, its ECRC filled by the codec: the
/// bytes as transmitted (prefixes..digest). Kinds: a memory write (32- or 64-bit address, 1-16 DW, EP
/// random) or a 4-DW memory read, locked or not (Type\[0\], a variant bit).
fn random_prefixed_tlp(next: &mut impl FnMut() -> u64) -> Vec<u8> {
    let mut t = if next() % 3 == 0 {
        let locked = next() & 1 != 0;
        let header = Header::Memory {
            req: RequestDw1 { requester_id: next() as u16, tag: next() as u8, last_be: 0, first_be: 0xF },
            address: Address::new64(next() << 2 | 1 << 40, 0),
        };
        let mut t = Tlp::parse(&unhex(if locked { "21000001 00000000 00000000 00000000" } else { "20000001 00000000 00000000 00000000" })).unwrap();
        t.header = header;
        t
    } else {
        let dws = 1 + (next() % 16) as usize;
        let payload: Vec<u8> = (0..4 * dws).map(|_| next() as u8).collect();
        let address = if next() & 1 != 0 { u64::from(next() as u32 & !3) } else { next() << 2 | 1 << 40 };
        let mut t = Tlp::memory_write(next() as u16, (next() & 0x3ff) as u16, address, payload).unwrap();
        t.dw0.ep = next() & 1 != 0;
        t
    };
    t.prefixes = (0..next() % 5)
        .map(|_| {
            let ty = PREFIX_TYPES[(next() % PREFIX_TYPES.len() as u64) as usize];
            TlpPrefix { fmt: tlp::FMT_PREFIX, end_to_end: ty & 0x10 != 0, subtype: ty & 0xF, content: next() as u32 & 0xFF_FFFF }
        })
        .collect();
    t.fill_ecrc().unwrap();
    t.to_bytes().unwrap()
}

/// The ECRC of TLPs with End-End and Local prefixes, as the codec fills it in, equals the oracle's
/// (zlib and the specification's LFSR over the End-End prefixes, header and data, cocotbext-pcie naming
/// the prefix types and reading the header where the oracle takes it to start); the parsed TLP checks.
#[test]
fn ecrc_of_tlps_with_prefixes_covers_the_end_end_ones_as_zlib_and_the_spec_lfsr_do() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let mut lines = Vec::new();
    let (mut with_end_end, mut with_local) = (0, 0);
    for _ in 0..300 {
        let b = random_prefixed_tlp(&mut next);
        let t = Tlp::parse(&b).unwrap();
        t.check_ecrc().unwrap();
        with_end_end += usize::from(t.prefixes.iter().any(|p| p.end_to_end));
        with_local += usize::from(t.prefixes.iter().any(|p| !p.end_to_end));
        let (covered, digest) = b.split_at(b.len() - 4);
        lines.push(json!({"kind": "tlp_ecrc", "hex": hex(covered), "value": u32::from_le_bytes(digest.try_into().unwrap())}));
    }
    // Both kinds of prefix are exercised, alone and together.
    assert!(with_end_end > 100 && with_local > 100, "{with_end_end} with End-End, {with_local} with Local prefixes");
    eprintln!("{with_end_end} of 300 with an End-End prefix, {with_local} with a Local one");
    assert_the_oracle_agrees(&lines);
}

/// A parameter of the computation under test that a mutant changes.
#[derive(Clone, Copy, Debug)]
enum Mutation {
    /// None: the copy itself (the control: the oracle must accept every vector).
    None,
    /// CRC-32 polynomial bit `0` flipped.
    Poly32(u32),
    /// CRC-32 seed bit `0` flipped.
    Seed32(u32),
    /// CRC-32 bits taken most significant first (input and output not reflected).
    MsbFirst32,
    /// CRC-32 remainder not complemented.
    NoComplement32,
    /// The LCRC's sequence number fed little-endian.
    SeqLittleEndian,
    /// The LCRC's 4 reserved bits above the sequence number not masked.
    SeqUnmasked,
    /// The non-flit ECRC's EP bit (byte 2 bit 6) not forced to 1.
    EcrcEpNotForced,
    /// The flit ECRC's byte 6 bit 7 not forced to 1.
    FlitEcrcBitNotForced,
    /// The non-flit ECRC of a TLP with prefixes over its header and data only (End-End prefixes left out).
    EcrcEndEndPrefixesLeftOut,
    /// The non-flit ECRC of a TLP with prefixes covering its Local prefixes too.
    EcrcLocalPrefixesCovered,
    /// The non-flit ECRC's variant bits forced in the first covered byte string's bytes 0 and 2 (an End-End
    /// prefix's, when there is one) instead of the header's.
    EcrcVariantBitsInThePrefix,
    /// DLLP CRC-16 polynomial bit `0` flipped.
    Poly16(u16),
    /// DLLP CRC-16 seed bit `0` flipped.
    Seed16(u16),
    /// DLLP CRC-16 bits taken most significant first.
    MsbFirst16,
    /// The DLLP's CRC-16 stored big-endian in its bytes 4-5.
    DllpCrcBigEndian,
}

/// A copy of `crate::crc`'s computations (the crate's own parameters, written out again here), with
/// `m` applied.
struct Copy {
    m: Mutation,
    crc32: Crc<u32>,
    crc16: Crc<u16>,
}

impl Copy {
    fn new(m: Mutation) -> Copy {
        let mut a32: Algorithm<u32> = CRC_32_ISO_HDLC;
        let mut a16: Algorithm<u16> = crc::DLLP_CRC16_ALGORITHM;
        match m {
            Mutation::Poly32(b) => a32.poly ^= 1 << b,
            Mutation::Seed32(b) => a32.init ^= 1 << b,
            Mutation::MsbFirst32 => (a32.refin, a32.refout) = (false, false),
            Mutation::NoComplement32 => a32.xorout = 0,
            Mutation::Poly16(b) => a16.poly ^= 1 << b,
            Mutation::Seed16(b) => a16.init ^= 1 << b,
            Mutation::MsbFirst16 => (a16.refin, a16.refout) = (false, false),
            _ => {}
        }
        // `Crc::new` takes a `'static` algorithm; a test binary leaks a few dozen bytes per mutant.
        Copy { m, crc32: Crc::<u32>::new(Box::leak(Box::new(a32))), crc16: Crc::<u16>::new(Box::leak(Box::new(a16))) }
    }

    fn lcrc(&self, seq: u16, tlp: &[u8]) -> u32 {
        let seq = if matches!(self.m, Mutation::SeqUnmasked) { seq } else { seq & crc::SEQUENCE_MASK };
        let seq = if matches!(self.m, Mutation::SeqLittleEndian) { seq.to_le_bytes() } else { seq.to_be_bytes() };
        let mut d = self.crc32.digest();
        d.update(&seq);
        d.update(tlp);
        d.finalize()
    }

    fn ecrc(&self, b: &[u8], flit: bool) -> u32 {
        let (bits, dropped) = if flit {
            (crc::FLIT_ECRC_VARIANT_BITS, matches!(self.m, Mutation::FlitEcrcBitNotForced))
        } else {
            (crc::NON_FLIT_ECRC_VARIANT_BITS, matches!(self.m, Mutation::EcrcEpNotForced))
        };
        let mut v = b.to_vec();
        // The mutants leave out the second variant bit (EP, or flit byte 6 bit 7).
        for &(i, mask) in &bits[..bits.len() - usize::from(dropped)] {
            if let Some(x) = v.get_mut(i) {
                *x |= mask;
            }
        }
        self.crc32.checksum(&v)
    }

    /// ECRC of a non-flit TLP as transmitted without its digest: its prefixes found by their Fmt, the
    /// End-End ones covered, then the header and data with the header's variant bits forced.
    fn tlp_ecrc(&self, b: &[u8]) -> u32 {
        let mut at = 0;
        let mut covered = Vec::new();
        while b.len() >= at + tlp::PREFIX_LEN && b[at] >> 5 == tlp::FMT_PREFIX {
            let end_end = b[at] & 0x10 != 0;
            let keep = match self.m {
                Mutation::EcrcEndEndPrefixesLeftOut => false,
                Mutation::EcrcLocalPrefixesCovered => true,
                _ => end_end,
            };
            if keep {
                covered.extend_from_slice(&b[at..at + tlp::PREFIX_LEN]);
            }
            at += tlp::PREFIX_LEN;
        }
        let header_at = if matches!(self.m, Mutation::EcrcVariantBitsInThePrefix) { 0 } else { covered.len() };
        covered.extend_from_slice(&b[at..]);
        for &(i, mask) in &crc::NON_FLIT_ECRC_VARIANT_BITS {
            if let Some(x) = covered.get_mut(header_at + i) {
                *x |= mask;
            }
        }
        self.crc32.checksum(&covered)
    }

    fn dllp_crc16(&self, body: &[u8; 4]) -> u16 {
        self.crc16.checksum(body)
    }

    /// An Ack or Nak DLLP with its CRC as this copy computes and stores it.
    fn dllp(&self, nak: bool, seq: u16) -> [u8; 6] {
        let mut out = [0u8; 6];
        Dllp::ack_nak(nak, seq).emit(&mut out).unwrap();
        let body: [u8; 4] = out[..4].try_into().unwrap();
        let c = self.dllp_crc16(&body);
        out[4..].copy_from_slice(&if matches!(self.m, Mutation::DllpCrcBigEndian) { c.to_be_bytes() } else { c.to_le_bytes() });
        out
    }

    /// The oracle's vectors (as in the test above) for the CRCs mutant `shape` changes, with this copy's
    /// values, `n` byte strings.
    fn lines(&self, shape: Mutation, n: usize) -> Vec<Value> {
        let mut next = xorshift(0x0c5c_0de5_1eed);
        let mut lines = Vec::new();
        for k in 0..n {
            let len = [0, 1, 3, 4, 12, 16, 20][k % 7] + (next() % 64) as usize * usize::from(k % 3 == 0);
            let b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let seq = next() as u16;
            let body = (next() as u32).to_le_bytes();
            let (nak, s) = (next() & 1 != 0, (next() & 0xfff) as u16);
            let prefixed = random_prefixed_tlp(&mut next);
            let prefixed = &prefixed[..prefixed.len() - 4];
            let tlp_ecrc = json!({"kind": "tlp_ecrc", "hex": hex(prefixed), "value": self.tlp_ecrc(prefixed)});
            match shape {
                Mutation::EcrcEndEndPrefixesLeftOut | Mutation::EcrcLocalPrefixesCovered | Mutation::EcrcVariantBitsInThePrefix => lines.push(tlp_ecrc),
                Mutation::Poly16(_) | Mutation::Seed16(_) | Mutation::MsbFirst16 => lines.push(json!({"kind": "dllp_body", "hex": hex(&body), "value": self.dllp_crc16(&body)})),
                Mutation::DllpCrcBigEndian => lines.push(json!({"kind": "dllp", "nak": nak, "seq": s, "hex": hex(&self.dllp(nak, s))})),
                Mutation::EcrcEpNotForced => lines.push(json!({"kind": "ecrc", "flit": false, "hex": hex(&b), "value": self.ecrc(&b, false)})),
                Mutation::FlitEcrcBitNotForced => lines.push(json!({"kind": "ecrc", "flit": true, "hex": hex(&b), "value": self.ecrc(&b, true)})),
                Mutation::SeqLittleEndian | Mutation::SeqUnmasked => lines.push(json!({"kind": "lcrc", "seq": seq, "hex": hex(&b), "value": self.lcrc(seq, &b)})),
                _ => {
                    lines.push(json!({"kind": "lcrc", "seq": seq, "hex": hex(&b), "value": self.lcrc(seq, &b)}));
                    lines.push(json!({"kind": "ecrc", "flit": k % 2 == 1, "hex": hex(&b), "value": self.ecrc(&b, k % 2 == 1)}));
                    if matches!(shape, Mutation::None) {
                        lines.push(tlp_ecrc);
                        lines.push(json!({"kind": "dllp_body", "hex": hex(&body), "value": self.dllp_crc16(&body)}));
                        lines.push(json!({"kind": "dllp", "nak": nak, "seq": s, "hex": hex(&self.dllp(nak, s))}));
                    }
                }
            }
        }
        lines
    }
}

/// Byte strings per mutant.
const MUTANT_VECTORS: usize = 120;
/// Share of a mutant's vectors whose value it changes, at least. Some vectors cannot tell: an empty ECRC
/// input is 0 under any polynomial, an input shorter than the dropped variant bit's byte or with that bit
/// already 1, a sequence number whose reserved bits are 0.
const MIN_CHANGED: f64 = 0.25;

#[test]
fn the_oracle_rejects_every_one_bit_mutant_of_the_crcs() {
    // The copy computes what the crate computes (so a mutant of it is a mutant of the computation under test).
    let copy = Copy::new(Mutation::None);
    for (k, b) in [&[][..], &[0x40, 0, 0, 1, 1, 0, 0x2a, 0x8f, 0, 0x10, 0xc0, 4], &[0xff; 83]].into_iter().enumerate() {
        let seq = 0x7abc_u16.wrapping_mul(k as u16 + 1);
        assert_eq!(copy.lcrc(seq, b), crc::lcrc(seq, b));
        assert_eq!(copy.ecrc(b, false), crc::ecrc(b));
        assert_eq!(copy.ecrc(b, true), crc::flit_ecrc(b));
        let body: [u8; 4] = [b.len() as u8, 0x5a, k as u8, 0xc3];
        assert_eq!(copy.dllp_crc16(&body), crc::dllp_crc16(&body));
    }
    let mut next = xorshift(0x5eed);
    for _ in 0..50 {
        let b = random_prefixed_tlp(&mut next);
        let (covered, digest) = b.split_at(b.len() - 4);
        assert_eq!(copy.tlp_ecrc(covered), u32::from_le_bytes(digest.try_into().unwrap()), "{}", hex(&b));
    }
    let mutants = [
        Mutation::None,
        Mutation::Poly32(0),
        Mutation::Poly32(26),
        Mutation::Seed32(0),
        Mutation::Seed32(31),
        Mutation::MsbFirst32,
        Mutation::NoComplement32,
        Mutation::SeqLittleEndian,
        Mutation::SeqUnmasked,
        Mutation::EcrcEpNotForced,
        Mutation::FlitEcrcBitNotForced,
        Mutation::EcrcEndEndPrefixesLeftOut,
        Mutation::EcrcLocalPrefixesCovered,
        Mutation::EcrcVariantBitsInThePrefix,
        Mutation::Poly16(0),
        Mutation::Poly16(12),
        Mutation::Seed16(0),
        Mutation::MsbFirst16,
        Mutation::DllpCrcBigEndian,
    ];
    // Each mutant's lines, and which of them carry a value the mutation changed (the unmutated copy's
    // line for the same vector differs).
    let sets: Vec<(Vec<Value>, Vec<bool>)> = mutants
        .iter()
        .map(|&m| {
            let (bad, good) = (Copy::new(m).lines(m, MUTANT_VECTORS), copy.lines(m, MUTANT_VECTORS));
            let changed = bad.iter().zip(&good).map(|(b, g)| b != g).collect();
            (bad, changed)
        })
        .collect();
    let all: Vec<Value> = sets.iter().flat_map(|s| s.0.iter().cloned()).collect();
    let answers = run_oracle(&all);
    let mut at = 0;
    let mut report = Vec::new();
    for (m, (set, changed)) in mutants.iter().zip(&sets) {
        let rejected: Vec<bool> = answers[at..at + set.len()].iter().map(|a| !a["errors"].as_array().unwrap().is_empty()).collect();
        at += set.len();
        let n_changed = changed.iter().filter(|&&c| c).count();
        report.push(format!("{m:?}: {n_changed} of {} values changed, {} rejected", set.len(), rejected.iter().filter(|&&r| r).count()));
        // The oracle rejects exactly the changed values: every one (it catches the mutant) and no other
        // (those are the correct values).
        assert_eq!(&rejected, changed, "mutant {m:?}: {report:?}");
        if matches!(m, Mutation::None) {
            assert_eq!(n_changed, 0);
        } else {
            assert!(n_changed as f64 >= MIN_CHANGED * set.len() as f64, "mutant {m:?} changes too few vectors to show anything: {report:?}");
        }
    }
    eprintln!("{}", report.join("\n"));
}
