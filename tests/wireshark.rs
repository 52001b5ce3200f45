//! The Wireshark dissector `tools/wireshark/inswitch.lua` run by tshark on captures `inswitch` wrote
//! (`sim --pcap F.pcapng` for the TLP and Soft Portals traffic of fig7 and portals, `decode --write-pcap`
//! for flit-mode TLPs, DLLPs, collective messages and a malformed TLP), and `capinfos` on the fig7
//! pcapng (nanosecond precision, one interface per link, a span of simulated time). tshark and capinfos
//! come from `bash scripts/setup` (apt package tshark); without them this test fails, it does not skip.

use std::path::{Path, PathBuf};
use std::process::Command;

const DISSECTOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/wireshark/inswitch.lua");

fn inswitch(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_inswitch")).args(args).output().expect("run inswitch");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// Runs a Wireshark tool; a missing tool fails the test with the command that installs it.
fn tool(name: &str, args: &[&str]) -> String {
    let o = Command::new(name).args(args).output().unwrap_or_else(|e| {
        panic!("{name} is needed by this test and could not be run ({e}): install it with `bash scripts/setup` (apt package tshark)")
    });
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{name} {args:?} failed: {err}\n{out}");
    // tshark reports dissector load errors on stderr and still exits 0.
    assert!(!err.contains("Lua: Error"), "{name} {args:?}: {err}");
    out
}

/// `tshark -V` with the dissector: the whole field tree, checked free of Lua errors and of frames no
/// dissector took.
fn tshark_verbose(capture: &Path) -> String {
    let out = tool("tshark", &["-X", &format!("lua_script:{DISSECTOR}"), "-r", capture.to_str().unwrap(), "-V"]);
    assert!(!out.contains("Lua Error"), "{}: a Lua error in the dissector:\n{out}", capture.display());
    assert!(!out.contains("not handled"), "{}: an encapsulation was not handled:\n{out}", capture.display());
    out
}

/// `tshark -T fields -e <field>`: one line per frame.
fn tshark_field(capture: &Path, field: &str) -> Vec<String> {
    tool("tshark", &["-X", &format!("lua_script:{DISSECTOR}"), "-r", capture.to_str().unwrap(), "-T", "fields", "-e", field])
        .lines()
        .map(str::to_string)
        .collect()
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("inswitch-wireshark-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn fig7_pcapng_has_nanosecond_time_several_links_and_decodes_with_the_dissector() {
    let d = dir();
    let cap = d.join("fig7.pcapng");
    let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", "fig7", "--pcap", cap.to_str().unwrap(), "--pcap-links", "isls"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pcapng:"), "{out}");
    // capinfos: nanosecond precision, several named interfaces, simulated time spanning the collective.
    let info = tool("capinfos", &[cap.to_str().unwrap()]);
    assert!(info.contains("File type:           Wireshark/... - pcapng"), "{info}");
    assert!(info.contains("nanoseconds (9)"), "{info}");
    let interfaces: usize = info.lines().find_map(|l| l.strip_prefix("Number of interfaces in file: ")).expect("interface count").trim().parse().unwrap();
    assert!(interfaces >= 4, "{interfaces} interfaces:\n{info}");
    assert!(info.contains("Name = 720.p3 out"), "interfaces named switch.port direction:\n{info}");
    let duration = info.lines().find_map(|l| l.strip_prefix("Capture duration:")).expect("duration").trim().trim_end_matches(" seconds").parse::<f64>().unwrap();
    assert!(duration > 1e-7 && duration < 1e-3, "span of simulated time: {duration} s\n{info}");
    // The dissector: every TLP field tree, the collective messages inside the vendor-defined messages.
    let v = tshark_verbose(&cap);
    for needle in [
        "inswitch PCIe TLP (non-flit)",
        "Kind: message",
        "Vendor ID: 0xc011",
        "inswitch collective message",
        "Kind: completion (6)",
        "Kind: response (5)",
        "Operation: int_sum (0x14)",
        "Completion: result (3)",
        "on interface 720.p3 out",
        "emitted by the packet engine of switch",
    ] {
        assert!(v.contains(needle), "missing {needle:?} in tshark -V output");
    }
    // Field values as numbers: every collective message has CC_ID 0 in fig7; some frames carry operands.
    let cc: Vec<String> = tshark_field(&cap, "inswitch.coll.cc_id").into_iter().filter(|l| !l.is_empty()).collect();
    assert!(!cc.is_empty() && cc.iter().all(|c| c == "0x0000"), "{cc:?}");
    let kinds = tshark_field(&cap, "inswitch.coll.kind");
    assert!(kinds.iter().any(|k| k == "6") && kinds.iter().any(|k| k == "5"), "{kinds:?}");
}

#[test]
fn portals_pcapng_shows_the_reduction_header_with_libfabric_names() {
    let d = dir();
    let cap = d.join("portals.pcapng");
    let (code, out, err) = inswitch(&["sim", "--quiet", "--scenario", "portals", "--pcap", cap.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}\n{out}");
    let v = tshark_verbose(&cap);
    for needle in ["inswitch Portals reduction frame", "Reduction header (struct cxip_coll_hdr)", "seqno (rt_seqno)", "redcnt (rt_count)", "op (rt_op): int_sum (0x14)", "magic: 0x0c0e", "retry (bit 61): False", "red_rc (rt_rc): success (0)"] {
        assert!(v.contains(needle), "missing {needle:?} in tshark -V output");
    }
    // The scenario's cookies are libfabric's with magic 0x0C0E (crates/fabric/src/scenario/portals.rs): a 16-bit magic.
    let magic = tshark_field(&cap, "inswitch.portals.cookie.magic");
    assert!(magic.iter().any(|m| m == "0x00000c0e") && magic.iter().filter(|m| !m.is_empty()).all(|m| m == "0x00000c0e"), "{magic:?}");
    // Both link types are there: register-write TLPs and Soft Portals frames.
    assert!(v.contains("inswitch PCIe TLP (non-flit)"));
}

#[test]
fn flit_dllp_collective_and_malformed_frames_decode() {
    let d = dir();
    let write = |kind: &str, hex: &[&str], name: &str, ok: bool| -> PathBuf {
        let p = d.join(name);
        let mut args = vec!["decode", "--kind", kind, "--write-pcap", p.to_str().unwrap()];
        args.extend_from_slice(hex);
        let (code, _, err) = inswitch(&args);
        assert_eq!(code == 0, ok, "{kind} {hex:?}: {err}");
        p
    };
    // A flit-mode MsgD carrying a CONTROL START collective message (CC_ID 0x005).
    let flit = write("flit", &["70000004 00010009 0000007f 0010c011 13000005 00100002 01000003 00000000"], "flit.pcap", true);
    let v = tshark_verbose(&flit);
    for needle in ["inswitch PCIe TLP (flit mode)", "Type: 0x70", "inswitch collective message, control, CC_ID 0x005", "Command: start (1)"] {
        assert!(v.contains(needle), "missing {needle:?} in\n{v}");
    }
    // An Ack DLLP with sequence number 7 (CRC from the frames crate).
    let mut dllp = [0u8; 6];
    inswitch_frames::dllp::Dllp::ack_nak(false, 7).emit(&mut dllp).unwrap();
    let hex: String = dllp.iter().map(|b| format!("{b:02x}")).collect();
    let dl = write("dllp", &[&hex], "dllp.pcap", true);
    assert_eq!(tshark_field(&dl, "inswitch.dllp.seq"), ["7"]);
    // A collective message alone.
    let coll = write("collective", &["13000005 00100002 01000003 00000000"], "coll.pcap", true);
    assert_eq!(tshark_field(&coll, "inswitch.coll.cc_id"), ["0x0005"]);
    // An encapsulated configuration, kind 10 (docs/frames.md §4's example): descriptor, the original
    // MWr32's header, the configuration body it carries.
    let enc = write("collective", &["1a000005 0000ffff 01800100 40000006 004207ff 12345678 00200307 05010002 00000100 00000300 00110012 00120000"], "encap.pcap", true);
    let v = tshark_verbose(&enc);
    for needle in ["inswitch collective message, encapsulated, CC_ID 0x005", "Encapsulated payload type: configuration (1)", "Encapsulation version: 1", "Encapsulated Length (DW): 6", "PBV entry 1: Device ID: 0x0012", "Subservient: Engine ID: 0x0012"] {
        assert!(v.contains(needle), "missing {needle:?} in\n{v}");
    }
    // The same with a flit-mode original header (descriptor byte 3 = 1: an MWr32, Length 6, requester
    // 0x0042, tag 7): the dissector names the form; `decode` (the frames crate's codec) reads the header
    // as a flit-mode TLP.
    let hex = "1a000005 0000ffff 01800101 40000006 00420007 12345678 00200307 05010002 00000100 00000300 00110012 00120000";
    let v = tshark_verbose(&write("collective", &[hex], "encap_flit.pcap", true));
    for needle in ["Original header form: flit mode (1)", "Encapsulated Length (DW): 6", "PBV entry 1: Device ID: 0x0012"] {
        assert!(v.contains(needle), "missing {needle:?} in\n{v}");
    }
    let (code, text, err) = inswitch(&["decode", "--kind", "collective", hex]);
    assert_eq!(code, 0, "{err}");
    for needle in ["Original header form: 1 (flit mode)", "flit mode"] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // Payload type 2, a register write (docs/frames.md §4's example): P_ID and the original MWr32's
    // address name engine 0x0300, offset 0x120 (SUB_TIMEOUT), data 0x400 (byte 0 = bits 7:0).
    let hex = "1a000005 00000300 02800100 40000001 0100090f 0300c120 00040000";
    let v = tshark_verbose(&write("collective", &[hex], "encap_reg.pcap", true));
    for needle in ["Encapsulated payload type: register write (2)", "Register write: Engine ID: 0x0300", "Register write: offset: 0x120", "Register write: data: 0x00000400"] {
        assert!(v.contains(needle), "missing {needle:?} in\n{v}");
    }
    let (code, text, err) = inswitch(&["decode", "--kind", "collective", hex]);
    assert_eq!(code, 0, "{err}");
    for needle in ["Encapsulated payload type: 2 (register write)", "Register write: engine 0x0300 (03:00.0), offset 0x120, byte enables 0xf, data 0x00000400"] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // A memory write whose Length says 2 DW but carries 1: malformed, said so, no Lua error.
    let bad = write("tlp", &["40000002 01002a0f 0010c004 deadbeef"], "bad.pcap", false);
    let v = tshark_verbose(&bad);
    assert!(v.contains("Malformed: payload (Length) needs 8 bytes at offset 12, frame has 16"), "{v}");
    assert!(v.contains("Group: Malformed"), "{v}");
    // A 2-byte TLP: malformed too.
    let short = write("tlp", &["4000"], "short.pcap", false);
    let v = tshark_verbose(&short);
    assert!(v.contains("Group: Malformed"), "{v}");
}

/// The dissector's flit Type table is generated from the codec's `flit::type_info` (the one definition):
/// this renders it as runs of equal (base DW, with data) and checks the Lua file between its markers;
/// `INSWITCH_BLESS=1` rewrites that part of the file instead.
#[test]
fn the_dissector_flit_type_table_is_generated_from_the_codec() {
    const BEGIN: &str = "-- BEGIN generated from flit::type_info";
    const END: &str = "-- END generated\n";
    let mut runs: Vec<(u8, u8, usize, bool)> = Vec::new();
    for t in 0..=u8::MAX {
        let (base_dw, with_data) = inswitch_frames::flit::type_info(t);
        match runs.last_mut() {
            Some(r) if (r.2, r.3) == (base_dw, with_data) => r.1 = t,
            _ => runs.push((t, t, base_dw, with_data)),
        }
    }
    let cells: Vec<String> = runs.iter().map(|(a, b, dw, d)| format!("{{0x{a:02x}, 0x{b:02x}, {dw}, {d}}},")).collect();
    let rows: Vec<String> = cells.chunks(4).map(|c| format!("    {}", c.join(" "))).collect();
    let table = format!("local flit_types = {{\n{}\n}}\n", rows.join("\n"));
    let lua = std::fs::read_to_string(DISSECTOR).unwrap();
    let start = lua.find(BEGIN).expect("generated-table start marker in the dissector");
    let body_start = start + lua[start..].find('\n').unwrap() + 1;
    let end = body_start + lua[body_start..].find(END).expect("generated-table end marker in the dissector");
    if std::env::var_os("INSWITCH_BLESS").is_some() {
        std::fs::write(DISSECTOR, format!("{}{table}{}", &lua[..body_start], &lua[end..])).unwrap();
        return;
    }
    assert_eq!(
        &lua[body_start..end],
        table,
        "tools/wireshark/inswitch.lua's flit_types differs from flit::type_info: run \
         `INSWITCH_BLESS=1 cargo test --release --test suite wireshark::the_dissector_flit_type_table_is_generated` and commit the result"
    );
}
