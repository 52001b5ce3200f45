//! Cross-checks against independent implementations run in the repository's Python venv:
//! cocotbext-pcie for non-flit TLPs (both directions) and scapy + zlib for Ethernet / FCS.
//! These tests FAIL (they do not skip) when `.venv` is missing: run `bash scripts/setup`.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
use inswitch_frames::portals::ReductionFrame;
use inswitch_frames::tlp::{
    types, Address, Address32, Address64, CompletionHeader, ConfigDw2, Dw0, Header, RequestDw1, Tlp, FMT_4DW,
};
use serde_json::{json, Value};

/// Number of random vectors per oracle (plus the fixed ones).
const RANDOM_VECTORS: usize = 600;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> PathBuf {
    let p = repo_root().join(".venv/bin/python");
    assert!(
        p.exists(),
        "\n\nPython oracle venv missing at {}.\nRun `bash scripts/setup` (it creates .venv with \
         `python3 -m venv .venv && .venv/bin/pip install -q cocotbext-pcie scapy`).\n",
        p.display()
    );
    p
}

/// Runs `script` (under `scripts/oracles/`) on JSON lines and returns its JSON-line answers, one per line.
pub(crate) fn run_oracle(script: &str, lines: &[Value]) -> Vec<Value> {
    let py = python();
    // One file per call: tests run on several threads of one process, some with the same script.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("inswitch-frames-oracle-{}-{call}-{script}", std::process::id()));
    let mut f = std::fs::File::create(&dir).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    drop(f);
    let out = Command::new(&py)
        .arg(repo_root().join("scripts/oracles").join(script))
        .arg(&dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", py.display()));
    let _ = std::fs::remove_file(&dir);
    assert!(out.status.success(), "{script} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), lines.len(), "{script} answered {} of {} lines", answers.len(), lines.len());
    answers
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// A random TLP of a kind cocotbext-pcie can pack (no messages, prefixes or digest; valid enum values).
fn random_tlp(r: &mut Rng) -> Tlp {
    // (fmt, type) pairs cocotbext knows.
    const KINDS: &[(u8, u8)] = &[
        (0, types::MEM), (1, types::MEM), (2, types::MEM), (3, types::MEM),
        (0, types::MEM_LOCKED), (1, types::MEM_LOCKED),
        (0, types::IO), (2, types::IO),
        (0, types::CFG0), (2, types::CFG0), (0, types::CFG1), (2, types::CFG1),
        (0, types::CPL), (2, types::CPL), (0, types::CPL_LOCKED), (2, types::CPL_LOCKED),
        (2, types::FETCH_ADD), (3, types::FETCH_ADD), (2, types::SWAP), (3, types::SWAP), (2, types::CAS), (3, types::CAS),
    ];
    let (fmt, tlp_type) = KINDS[r.below(KINDS.len() as u64) as usize];
    let v = r.next();
    let mut dw0 = Dw0 {
        fmt,
        tlp_type,
        t9: v & 1 != 0,
        tc: (v >> 1 & 7) as u8,
        t8: v >> 4 & 1 != 0,
        attr2: v >> 5 & 1 != 0,
        ln: v >> 6 & 1 != 0,
        th: v >> 7 & 1 != 0,
        td: false,
        ep: v >> 9 & 1 != 0,
        attr: (v >> 10 & 3) as u8,
        at: (v >> 12) as u8 % 3,
        length: (r.below(1024)) as u16,
    };
    if r.below(2) == 0 {
        dw0.length = 1 + r.below(8) as u16;
    }
    let kind = dw0.kind();
    if let Some(allowed) = kind.allowed_lengths_dw() {
        dw0.set_length_dw(allowed[r.below(allowed.len() as u64) as usize]);
    }
    let w = r.next();
    let req = RequestDw1 { requester_id: w as u16, tag: (w >> 16) as u8, last_be: (w >> 24 & 15) as u8, first_be: (w >> 28 & 15) as u8 };
    let a = r.next();
    let address = if fmt & FMT_4DW != 0 {
        Address::A64(Address64 { address_dw: a >> 2, ph: (a & 3) as u8 })
    } else {
        Address::A32(Address32 { address_dw: (a >> 2) as u32 & 0x3fff_ffff, ph: (a & 3) as u8 })
    };
    let header = match tlp_type {
        types::MEM | types::MEM_LOCKED => Header::Memory { req, address },
        types::FETCH_ADD | types::SWAP | types::CAS => Header::Atomic { req, address },
        types::IO => Header::Io { req, address: Address32 { address_dw: (a >> 2) as u32 & 0x3fff_ffff, ph: 0 } },
        types::CFG0 | types::CFG1 => Header::Config {
            req,
            target: ConfigDw2 {
                bus: a as u8,
                device: (a >> 8 & 31) as u8,
                function: (a >> 13 & 7) as u8,
                reserved_hi: 0,
                ext_register: (a >> 16 & 15) as u8,
                register: (a >> 20 & 63) as u8,
                reserved_lo: 0,
            },
        },
        _ => Header::Completion(CompletionHeader {
            completer_id: a as u16,
            status: [0u8, 1, 2, 4][r.below(4) as usize],
            bcm: a >> 16 & 1 != 0,
            byte_count: (a >> 17 & 0xfff) as u16,
            requester_id: w as u16,
            tag: (w >> 16) as u8,
            reserved: false,
            lower_address: (a >> 29 & 0x7f) as u8,
        }),
    };
    let payload = r.bytes(dw0.payload_len());
    Tlp { prefixes: vec![], dw0, header, payload, digest: None }
}

fn tlp_fields(t: &Tlp) -> Value {
    let d = &t.dw0;
    let mut f = json!({
        "fmt": d.fmt, "type": d.tlp_type, "tc": d.tc, "ln": d.ln, "th": d.th, "td": d.td, "ep": d.ep,
        "attr": u8::from(d.attr2) << 2 | d.attr, "at": d.at, "length": d.length,
        "tag": t.tag().unwrap(), "requester_id": t.requester_id().unwrap(),
        "data": t.payload.iter().map(|b| format!("{b:02x}")).collect::<String>(),
    });
    let o = f.as_object_mut().unwrap();
    match &t.header {
        Header::Memory { req, address } | Header::Atomic { req, address } => {
            o.insert("first_be".into(), req.first_be.into());
            o.insert("last_be".into(), req.last_be.into());
            o.insert("address".into(), address.byte_address().into());
            o.insert("ph".into(), address.ph().into());
        }
        Header::Io { req, address } => {
            o.insert("first_be".into(), req.first_be.into());
            o.insert("last_be".into(), req.last_be.into());
            o.insert("address".into(), (u64::from(address.address_dw) << 2).into());
            o.insert("ph".into(), address.ph.into());
        }
        Header::Config { req, target } => {
            o.insert("first_be".into(), req.first_be.into());
            o.insert("last_be".into(), req.last_be.into());
            o.insert("address".into(), target.byte_offset().into());
            o.insert("completer_id".into(), target.target_id().into());
        }
        Header::Completion(c) => {
            o.insert("completer_id".into(), c.completer_id.into());
            o.insert("status".into(), c.status.into());
            o.insert("bcm".into(), c.bcm.into());
            o.insert("byte_count".into(), c.byte_count.into());
            o.insert("lower_address".into(), c.lower_address.into());
        }
        _ => unreachable!("oracle vectors have no messages"),
    }
    f
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}
fn tohex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn tlps_agree_with_cocotbext_pcie_both_directions() {
    let mut r = Rng(0x1234_5678_9abc_def1);
    let tlps: Vec<Tlp> = (0..RANDOM_VECTORS).map(|_| random_tlp(&mut r)).collect();
    let lines: Vec<Value> = tlps.iter().map(|t| json!({"hex": tohex(&t.to_bytes().unwrap()), "f": tlp_fields(t)})).collect();
    let answers = run_oracle("tlp_oracle.py", &lines);
    let mut failures = Vec::new();
    for (t, a) in tlps.iter().zip(&answers) {
        let errs = a["errors"].as_array().unwrap();
        if !errs.is_empty() {
            failures.push(format!("{:?}: cocotbext unpack: {errs:?}", t.kind()));
            continue;
        }
        let packed = unhex(a["packed"].as_str().unwrap());
        let ours = t.to_bytes().unwrap();
        if packed != ours {
            failures.push(format!("{:?}: cocotbext packed {} vs inswitch {}", t.kind(), tohex(&packed), tohex(&ours)));
            continue;
        }
        match Tlp::parse(&packed) {
            Ok(p) if &p == t => {}
            other => failures.push(format!("{:?}: parse of cocotbext bytes gave {other:?}", t.kind())),
        }
    }
    assert!(failures.is_empty(), "{} of {} TLPs disagree:\n{}", failures.len(), tlps.len(), failures.join("\n"));
}

fn mac(m: &[u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

#[test]
fn soft_portals_agree_with_scapy_and_zlib() {
    let mut r = Rng(0xfeed_face_cafe_beef);
    let frames: Vec<SoftPortals> = (0..RANDOM_VECTORS)
        .map(|_| {
            let raw = r.bytes(84);
            let frame = ReductionFrame::parse(&raw).unwrap();
            let mut b = r.bytes(14);
            b[12] |= 0x06; // Ethernet II EtherType (>= 0x0600)
            let eth = EthernetHeader::parse(&b).unwrap();
            SoftPortals::new(eth, frame).unwrap()
        })
        .collect();
    let lines: Vec<Value> = frames
        .iter()
        .map(|f| {
            json!({
                "hex": tohex(&f.to_bytes().unwrap()),
                "dst": mac(&f.eth.dst), "src": mac(&f.eth.src), "type": f.eth.ethertype,
                "portals": tohex(&f.frame.to_bytes().unwrap()), "fcs": f.fcs,
            })
        })
        .collect();
    let answers = run_oracle("eth_oracle.py", &lines);
    let mut failures = Vec::new();
    for (f, a) in frames.iter().zip(&answers) {
        let errs = a["errors"].as_array().unwrap();
        if !errs.is_empty() {
            failures.push(format!("scapy: {errs:?}"));
            continue;
        }
        let built = unhex(a["built"].as_str().unwrap());
        if built != f.to_bytes().unwrap().to_vec() {
            failures.push(format!("scapy built {} vs inswitch {}", tohex(&built), tohex(&f.to_bytes().unwrap())));
            continue;
        }
        let p = SoftPortals::parse(&built).unwrap();
        if &p != f || p.check_fcs().is_err() {
            failures.push(format!("parse of scapy bytes gave {p:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} frames disagree:\n{}", failures.len(), frames.len(), failures.join("\n"));
}
