//! `inswitch decode`: frames from hex arguments or a capture (pcap or pcapng), each printed as the
//! human field tree or as JSON data (`inswitch_frames::decode::to_json`, schema
//! `schemas/decode.schema.json`). Frames from a capture are headed by their interface (the simulated
//! link) and time; in JSON these are the keys `frame`, `interface`, `time_ns` and `comment`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use inswitch_frames::decode::{self as d, FrameKind};
use inswitch_frames::pcap as p;
use serde_json::{json, Value};

/// Frame kind of `--kind` (the names of `inswitch_frames::decode::FRAME_KIND_NAMES`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Non-flit TLP.
    Tlp,
    /// Flit-mode TLP.
    Flit,
    /// DLLP with CRC.
    Dllp,
    /// 84-byte Portals reduction frame.
    Portals,
    /// Soft Portals (Ethernet).
    SoftPortals,
    /// Collective message (the TLP payload alone).
    Collective,
}

impl From<Kind> for FrameKind {
    fn from(k: Kind) -> FrameKind {
        match k {
            Kind::Tlp => FrameKind::Tlp,
            Kind::Flit => FrameKind::FlitTlp,
            Kind::Dllp => FrameKind::Dllp,
            Kind::Portals => FrameKind::Portals,
            Kind::SoftPortals => FrameKind::SoftPortals,
            Kind::Collective => FrameKind::Collective,
        }
    }
}

/// Arguments of `inswitch decode`.
#[derive(clap::Args)]
pub struct Args {
    /// Frame kind. With --pcap, defaults to the kind of the file's link type.
    #[arg(long, value_enum)]
    kind: Option<Kind>,
    /// Read frames from this pcap file instead of hex arguments.
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Print JSON (one object per frame, one per line) instead of text.
    #[arg(long)]
    json: bool,
    /// Also write the frames to this pcap file (Ethernet link type for soft-portals, a documented
    /// LINKTYPE_USERn otherwise; see docs/frames.md).
    #[arg(long)]
    write_pcap: Option<PathBuf>,
    /// Frames as hex (spaces, `:` and `0x` allowed), one argument per frame.
    hex: Vec<String>,
}

/// One frame to decode, with where it was captured.
struct Input {
    kind: FrameKind,
    bytes: Vec<u8>,
    /// (interface name or index, timestamp, comment) for frames from a capture.
    from: Option<(String, Duration, Option<String>)>,
}

fn fail(what: String) -> ExitCode {
    eprintln!("decode: {what}");
    ExitCode::FAILURE
}

/// A simulated time for people: ns below 10 us, us with ns digits above.
fn time_text(t: Duration) -> String {
    let ns = t.as_nanos();
    if ns < 10_000 { format!("{ns} ns") } else { format!("{}.{:03} us", ns / 1000, ns % 1000) }
}

/// Runs the command.
pub fn run(a: &Args) -> ExitCode {
    let Args { pcap, json, write_pcap, hex, .. } = a;
    let json = *json;
    let given_kind = a.kind.map(FrameKind::from);
    let mut inputs = Vec::new();
    match &pcap {
        Some(path) => {
            let frames = std::fs::File::open(path).map_err(|e| e.to_string()).and_then(|f| p::read_capture(std::io::BufReader::new(f)).map_err(|e| e.to_string()));
            let frames = match frames {
                Ok(f) => f,
                Err(e) => return fail(format!("{}: {e}", path.display())),
            };
            for (n, f) in frames.into_iter().enumerate() {
                let Some(kind) = given_kind.or(p::kind_for_linktype(f.linktype)) else {
                    return fail(format!("{}: frame {n}: link type {} is not one of ours: give --kind", path.display(), f.linktype));
                };
                let iface = f.interface_name.unwrap_or_else(|| format!("interface {}", f.interface));
                inputs.push(Input { kind, bytes: f.data, from: Some((iface, f.timestamp, f.comment)) });
            }
        }
        None => {
            let Some(kind) = given_kind else { return fail("give --kind with hex frames".into()) };
            for h in hex {
                match d::parse_hex(h) {
                    Ok(bytes) => inputs.push(Input { kind, bytes, from: None }),
                    Err(e) => return fail(format!("{h:?}: {e}")),
                }
            }
        }
    }
    if inputs.is_empty() {
        return fail("no frames: give hex arguments or --pcap".into());
    }
    let mut status = ExitCode::SUCCESS;
    let many = inputs.len() > 1;
    for (n, i) in inputs.iter().enumerate() {
        let shown = if json {
            d::to_json(i.kind, &i.bytes).map(|mut v| {
                if let (Value::Object(m), Some((iface, t, comment))) = (&mut v, &i.from) {
                    m.insert("frame".into(), json!(n));
                    m.insert("interface".into(), json!(iface));
                    m.insert("time_ns".into(), json!(t.as_nanos() as u64));
                    m.insert("comment".into(), json!(comment));
                }
                v.to_string()
            })
        } else {
            d::render_text(i.kind, &i.bytes).map(|text| {
                let head = match &i.from {
                    Some((iface, t, comment)) => {
                        let c = comment.as_deref().map(|c| format!(" ({c})")).unwrap_or_default();
                        format!("Frame {n}: on {iface} at {}{c}\n", time_text(*t))
                    }
                    None if many => format!("Frame {n}:\n"),
                    None => String::new(),
                };
                format!("{head}{text}")
            })
        };
        match shown {
            Ok(text) => println!("{text}"),
            Err(e) => {
                // A malformed frame is reported and the others are still decoded.
                let at = i.from.as_ref().map(|(iface, t, _)| format!(" (on {iface} at {})", time_text(*t))).unwrap_or_default();
                eprintln!("frame {n}{at}: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    if let Some(out) = write_pcap {
        let Some(kind) = inputs.first().map(|i| i.kind) else { return status };
        let records: Vec<p::Record> =
            inputs.into_iter().enumerate().map(|(n, i)| p::Record { timestamp: i.from.map_or(Duration::from_micros(n as u64), |f| f.1), data: i.bytes }).collect();
        let written = std::fs::File::create(out).map_err(|e| e.to_string()).and_then(|f| p::write_pcap(f, kind, &records).map(|_| ()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            return fail(format!("{}: {e}", out.display()));
        }
    }
    status
}
