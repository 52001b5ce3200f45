//! Directed flows through the fabric, configured by the collective manager (`docs/fabric.md` §The
//! manager drives the fabric): the cycle engines on seed 000's FIG. 7, the manager's plans sent as real
//! frames, and the exact time-ordered frames on chosen links compared with what the seed describes
//! (FIG. 8 [0211]-[0227]; the barrier of [0183]-[0207]; the three collectives of [0180]-[0182] at once).
//!
//! The expected sequences are written from the seed's text and from the documented decisions of
//! `docs/manager.md` §5 (who sends what, PBV order: engines first, then end nodes in device-ID order, as
//! Table 5) and `docs/blocks/cpu.md` §Messages (what an engine emits); nothing is computed by the code under test.

use inswitch_fabric::drive;
use inswitch_fabric::manager::{JobSpec, Manager, NodeId, SwitchId};
use inswitch_fabric::scenario::{run_collective, value_of, Mode, RunSpec, INT_SUM};
use inswitch_fabric::setup::{Arrangement, ContextPlan};
use inswitch_fabric::sim::{ChannelKind, Fabric, SimConfig};
use inswitch_fabric::topology::{LinkSpec, Ps, Topology};
use inswitch_fabric::wire;
use inswitch_frames::collective::{Body, NO_PARTICIPANT};
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::register_space::offset;

/// Crossbar latency per hop (the realistic default).
const HOP_PS: Ps = 100_000;
/// Gap between participants answering in the directed flows: longer than any engine's reaction, so the
/// seed's order of events is the order of the answers.
const GAP_PS: Ps = 1_000_000;

// FIG. 7 end nodes (index in `Topology::fig7`) and device IDs (Tables 2-4, [0174]-[0178]).
const SOURCE: usize = 0; // 735, 0x0001
const SW720: u16 = 0x0000;
const SW725: u16 = 0x0010;
const SW730: u16 = 0x0020;

/// What a frame on a link is, in the seed's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    /// A collective message: kind, requester (source), destination, CC_ID, P_ID, code (CONTROL command or
    /// data message completion code).
    Msg { kind: u8, from: u16, to: u16, cc: u16, pid: u16, code: u8 },
    /// INITIALIZATION: requester, destination, CC_ID, PBV, p_count, P_ID (0xFFFF: for the destination
    /// engine; else the engine below it the INITIALIZATION is for, which the engines relay it to,
    /// `docs/blocks/cpu.md` §Messages).
    Init { from: u16, to: u16, cc: u16, pbv: u128, p_count: u16, pid: u16 },
    /// A register write (memory write into an engine's window): requester, byte address, First BE, data.
    Write { from: u16, addr: u64, be: u8, data: u32 },
    /// A FIG. 4 configuration message: requester, destination, CC_ID, P_ID (the engine it is for, which
    /// the engines relay it to), its PBV entries' device IDs and its subservient engines.
    Config { from: u16, to: u16, cc: u16, pid: u16, devices: Vec<u16>, subservient: Vec<u16> },
}

const CONTROL: u8 = 3;
const CONTRIBUTION: u8 = 4;
const RESPONSE: u8 = 5;
const COMPLETION: u8 = 6;
/// CONTROL command CONTROL ([0168]).
const CMD_START: u8 = 1;
/// Completion codes: barrier met at an engine, barrier satisfied globally, a reduction's result.
const BARRIER_MET: u8 = 1;
const BARRIER_SATISFIED: u8 = 2;
const RESULT: u8 = 3;

fn msg(kind: u8, from: u16, to: u16, cc: u16, pid: u16, code: u8) -> Seen {
    Seen::Msg { kind, from, to, cc, pid, code }
}

fn seen(bytes: &[u8]) -> Seen {
    if let Some(m) = wire::collective_of(bytes) {
        let from = wire::requester(bytes).unwrap();
        let to = wire::destination(bytes).unwrap();
        let (cc, pid) = (m.header.cc_id, m.header.p_id);
        return match m.body {
            Body::Initialization(i) => Seen::Init { from, to, cc, pbv: i.pbv, p_count: i.p_count, pid },
            Body::Control(c) => msg(m.header.kind, from, to, cc, pid, c.command),
            Body::Data { fixed, .. } => msg(m.header.kind, from, to, cc, pid, fixed.completion),
            Body::Configuration { device_ids, subservient_ids, .. } => Seen::Config { from, to, cc, pid, devices: device_ids, subservient: subservient_ids },
            _ => panic!("unexpected collective message {m:?}"),
        };
    }
    let t = Tlp::parse(&bytes[wire::SEQ_LEN..bytes.len() - wire::LCRC_LEN]).expect("a TLP");
    let Header::Memory { req, address } = &t.header else { panic!("unexpected TLP {t:?}") };
    Seen::Write { from: req.requester_id, addr: address.byte_address(), be: req.first_be, data: u32::from_le_bytes(t.payload[..4].try_into().unwrap()) }
}

/// The FIG. 7 fabric with the cycle engines, real frame lengths, every frame captured, brought up (ENGINE_ID,
/// default route) and run until quiet; the capture of the bring-up is dropped.
fn fig7() -> (Fabric, Manager) {
    let t = Topology::fig7(LinkSpec::default());
    let cfg = SimConfig { hop_latency_ps: HOP_PS, capture: true, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).unwrap();
    f.bring_up(SOURCE, 0);
    run(&mut f);
    f.captured.clear();
    (f, drive::manager_for(&t).unwrap())
}

fn run(f: &mut Fabric) {
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
}

fn channel(f: &Fabric, kind: ChannelKind) -> usize {
    f.channels().position(|c| c.kind == kind).unwrap_or_else(|| panic!("no channel {kind:?}"))
}

/// The directed ISL from switch `a` to switch `b` (switch indices).
fn isl(f: &Fabric, a: usize, b: usize) -> ChannelKind {
    ChannelKind::Isl(f.routes.directed_iter().position(|d| d.0 == a && d.1 == b).unwrap())
}

/// The frames that entered the channels `kinds`, in the order their heads entered (ties: capture order),
/// from capture entry `from` on, keeping those `keep` accepts.
fn on(f: &Fabric, kinds: &[ChannelKind], from: usize, keep: impl Fn(&Seen) -> bool) -> Vec<Seen> {
    let chans: Vec<usize> = kinds.iter().map(|&k| channel(f, k)).collect();
    let mut v: Vec<(Ps, usize, Seen)> = f.captured[from..]
        .iter()
        .enumerate()
        .filter(|(_, c)| chans.contains(&c.channel))
        .map(|(i, c)| (c.start, i, seen(&f.frames[c.frame as usize].bytes)))
        .filter(|(_, _, s)| keep(s))
        .collect();
    v.sort_by_key(|x| (x.0, x.1));
    v.into_iter().map(|x| x.2).collect()
}

fn all(_: &Seen) -> bool {
    true
}

fn of_cc(cc: u16) -> impl Fn(&Seen) -> bool {
    move |s| match *s {
        Seen::Msg { cc: c, .. } | Seen::Init { cc: c, .. } | Seen::Config { cc: c, .. } => c == cc,
        Seen::Write { .. } => false,
    }
}

/// A PBV-table write of entry `index` := `dev` into the window of engine `engine` ([0175]: entry i at byte
/// offset 2i of 0x00ii_C000; First BE 0011 for an even entry, 1100 for an odd one).
fn pbv_write(from: u16, engine: u16, index: u32, dev: u16) -> Seen {
    let addr = u64::from(engine) << 16 | 0xC000 | u64::from((index * 2) & !3);
    if index % 2 == 0 {
        Seen::Write { from, addr, be: 0x3, data: u32::from(dev) }
    } else {
        Seen::Write { from, addr, be: 0xC, data: u32::from(dev) << 16 }
    }
}

/// The write of PBV entry `index`'s flags into the engine's PBV_FLAGS (`docs/blocks/register_space.md`: 0x500, the
/// byte lanes of the PBV table's DW, bit 0 valid and bit 1 switch in each entry's half), which the
/// register space forwards to the CPU's own table with the entry's device ID.
fn pbv_flags(from: u16, engine: u16, index: u32, switch: bool) -> Seen {
    let addr = u64::from(engine) << 16 | 0xC500 | u64::from((index * 2) & !3);
    let flags = 1 | u32::from(switch) << 1;
    if index % 2 == 0 {
        Seen::Write { from, addr, be: 0x3, data: flags }
    } else {
        Seen::Write { from, addr, be: 0xC, data: flags << 16 }
    }
}

/// A PBV entry as the manager programs it: the ID ([0175]), then the CPU's flags.
fn pbv_entry(from: u16, engine: u16, index: u32, dev: u16, switch: bool) -> [Seen; 2] {
    [pbv_write(from, engine, index, dev), pbv_flags(from, engine, index, switch)]
}

/// The CPU static entry `slot` of a TLP context `cc` (`docs/blocks/register_space.md` CPU window: STATIC_INDEX
/// at 0x600 := s, STATIC_WAIT at 0x608, 0 for TLP, then STATIC_KEY at 0x604 = valid (31) | role (21:20, 1
/// master) | family 0 | key; writing the key makes the context at the CPU).
fn static_entry(from: u16, engine: u16, slot: u32, cc: u16, master: bool) -> [Seen; 3] {
    let window = u64::from(engine) << 16 | 0xC600;
    let word = 1 << 31 | u32::from(master) << 20 | u32::from(cc);
    [
        Seen::Write { from, addr: window, be: 0xF, data: slot },
        Seen::Write { from, addr: window + 8, be: 0xF, data: 0 },
        Seen::Write { from, addr: window + 4, be: 0xF, data: word },
    ]
}

/// Places a job on FIG. 7 and applies its plan from the source at the current time.
fn place(f: &mut Fabric, m: &mut Manager, nodes: &[usize], op: u8) -> ContextPlan {
    let spec = JobSpec { op, ..JobSpec::new(drive::node_ids(nodes), NodeId(SOURCE as u32)) };
    let at = f.now();
    drive::place_and_apply(f, m, spec, at, &value_of).unwrap().2
}

fn next_cycle(f: &Fabric) -> Ps {
    f.now() + 10_000
}

#[test]
fn fig7_all_reduce_placed_by_the_manager() {
    let topology = Topology::fig7(LinkSpec::default());
    let spec = RunSpec { topology_name: "fig7".into(), topology, arrangement: Arrangement::Managed, mode: Mode::Realistic, hop_latency_ps: HOP_PS, source: 0, master: 0, skip_idle: true, capture: false, real_frames: true };
    let (r, _) = run_collective(&spec, &mut |_| {});
    assert_eq!(r.error, None);
    assert!(r.command_exactly_once && r.result_exactly_once, "{r:?}");
    // Values are end-node index + 1; every node but the source (index 0) takes part.
    assert_eq!(r.result_value, Some((2..=9).sum()));
    assert_eq!(r.frames_per_isl_from_master, (1, 1), "one command per ISL, as Table 1's distributed column");
}

/// FIG. 8 ([0210]-[0227]) on FIG. 7: master packet engine 310 = switch 720's engine, source node 316 =
/// 735, local node 318 = 720's node 1 (0x0002), packet engine 334 = switch 725's engine, remote nodes
/// 340 and 342 = 725's nodes 0 and 1 (0x0011, 0x0012). A barrier over the source, the local node and the
/// two remote nodes.
///
/// Where the model differs from the ladder (and why): the configuration packets of 805 / 810 are PBV-table
/// register writes ([0175], FIG. 4 packets are not used, `docs/manager.md` §9) sent by the source with the
/// master's requester ID (`docs/manager.md` §5); the INITIALIZATION of 820 is the source's, sent to the
/// master naming packet engine 334 in its P_ID, which the master's engine re-emits to 334 (000 [0106],
/// [0157], `docs/blocks/cpu.md` §Messages); and the copies of 825-835 to the end nodes are the set-up command
/// (CONTROL CONTROL), which the engines replicate ([0184]-[0190], [0172]): an engine does not forward an
/// INITIALIZATION (`docs/blocks/cpu.md` §Messages). The master also sends the satisfied message to its upstream (the
/// source, P_ID 0xFFFF) after the participants' copies, so the source, a participant here, gets two.
#[test]
fn fig8_ladder_on_fig7() {
    let (mut f, mut m) = fig7();
    let (local, remote0, remote1) = (1, 3, 4);
    let ctx = place(&mut f, &mut m, &[SOURCE, local, remote0, remote1], 0);
    assert_eq!((ctx.cc_id, ctx.master()), (0, 0), "the first context; the master is the source's switch ([0148])");
    run(&mut f);
    f.start(&ctx, next_cycle(&f));
    run(&mut f);
    let t0 = next_cycle(&f);
    // 840, 845, 850, then 860: the last local participant.
    for (k, e) in [SOURCE, remote0, remote1, local].into_iter().enumerate() {
        f.respond(e, 0, t0 + k as Ps * GAP_PS);
    }
    run(&mut f);

    let senders = [ChannelKind::Up(SOURCE), ChannelKind::Up(local), ChannelKind::Up(remote0), ChannelKind::Up(remote1), ChannelKind::FromEngine(0), ChannelKind::FromEngine(1)];
    let got = on(&f, &senders, 0, all);
    // PBVs (Table 5's order: engines first, then end nodes): 720 = [725, 735, node 1], 725 = [node 0, node 1].
    let (src, node1, r0, r1) = (0x0001, 0x0002, 0x0011, 0x0012);
    // 805: configuration of the master, from the source: its PBV entries (ID, then flags; 725 is a
    // switch, [0096]) and its static entry (slot 0, master).
    let cfg720 = [pbv_entry(src, SW720, 0, SW725, true).to_vec(), pbv_entry(src, SW720, 1, src, false).to_vec(), pbv_entry(src, SW720, 2, node1, false).to_vec(), static_entry(src, SW720, 0, 0, true).to_vec()].concat();
    // 810: configuration of packet engine 334: its static entry by the master's register writes ([0175]);
    // its PBV table in a FIG. 4 configuration message from the source to the master, which relays it
    // (000 [0157]; issue 15 item 5), before 334's INITIALIZATION.
    let cfg725 = static_entry(SW720, SW725, 0, 0, false).to_vec();
    let config725_to_master = Seen::Config { from: src, to: SW720, cc: 0, pid: SW725, devices: vec![r0, r1], subservient: vec![] };
    let config725 = Seen::Config { from: SW720, to: SW725, cc: 0, pid: SW725, devices: vec![r0, r1], subservient: vec![] };
    // 815: INITIALIZATION to the master; 820: packet engine 334's, from the source to the master, which
    // relays it to 334 with itself as requester (000 [0106], [0157]).
    let init720 = Seen::Init { from: src, to: SW720, cc: 0, pbv: 0b111, p_count: 3, pid: NO_PARTICIPANT };
    let init725_to_master = Seen::Init { from: src, to: SW720, cc: 0, pbv: 0b11, p_count: 2, pid: SW725 };
    let init725 = Seen::Init { from: SW720, to: SW725, cc: 0, pbv: 0b11, p_count: 2, pid: SW725 };
    let mut want = [cfg720, cfg725.clone()].concat();
    want.extend([
        init720,
        config725_to_master,
        init725_to_master,
        config725.clone(),
        init725.clone(),
        // The set-up command ([0184]) and its copies (825-835 in the ladder).
        msg(CONTROL, src, SW720, 0, NO_PARTICIPANT, CMD_START),
        msg(CONTROL, SW720, SW725, 0, 0, CMD_START),
        msg(CONTROL, SW720, src, 0, 1, CMD_START),
        msg(CONTROL, SW720, node1, 0, 2, CMD_START),
        msg(CONTROL, SW725, r0, 0, 0, CMD_START),
        msg(CONTROL, SW725, r1, 0, 1, CMD_START),
        // 840, 845, 850: barrier met from the source and the two remote nodes.
        msg(CONTRIBUTION, src, SW720, 0, 1, 0),
        msg(CONTRIBUTION, r0, SW725, 0, 0, 0),
        msg(CONTRIBUTION, r1, SW725, 0, 1, 0),
        // 855: packet engine 334's barrier met to the master.
        msg(RESPONSE, SW725, SW720, 0, NO_PARTICIPANT, BARRIER_MET),
        // 860: the last local participant.
        msg(CONTRIBUTION, node1, SW720, 0, 2, 0),
        // 865, 870, 875: satisfied to packet engine 334, the source, the local node; then the upstream copy.
        msg(COMPLETION, SW720, SW725, 0, 0, BARRIER_SATISFIED),
        msg(COMPLETION, SW720, src, 0, 1, BARRIER_SATISFIED),
        msg(COMPLETION, SW720, node1, 0, 2, BARRIER_SATISFIED),
        msg(COMPLETION, SW720, src, 0, NO_PARTICIPANT, BARRIER_SATISFIED),
        // 880, 885: packet engine 334's copies to the remote nodes.
        msg(COMPLETION, SW725, r0, 0, 0, BARRIER_SATISFIED),
        msg(COMPLETION, SW725, r1, 0, 1, BARRIER_SATISFIED),
    ]);
    assert_eq!(got, want);
    // The one hop between the master and packet engine 334 ([0214]) carries exactly its share, both ways:
    // 810, 820, the command and 865 down; 855 up.
    let down = on(&f, &[isl(&f, 0, 1)], 0, all);
    let mut want_down = cfg725;
    want_down.extend([config725, init725, msg(CONTROL, SW720, SW725, 0, 0, CMD_START), msg(COMPLETION, SW720, SW725, 0, 0, BARRIER_SATISFIED)]);
    assert_eq!(down, want_down);
    assert_eq!(on(&f, &[isl(&f, 1, 0)], 0, all), [msg(RESPONSE, SW725, SW720, 0, NO_PARTICIPANT, BARRIER_MET)]);
    // Switch 730 takes no part: nothing on its ISLs.
    assert!(on(&f, &[isl(&f, 0, 2), isl(&f, 2, 0)], 0, all).is_empty());
}

/// The barrier of [0183]-[0207] on FIG. 7, with the three collectives of [0180]-[0182] configured first
/// (CC_IDs 0, 1, 2). Checks the PBV programming of Tables 5-7 on the source's link and in the engines'
/// register spaces, the INITIALIZATIONs with the PBVs of [0180]-[0182], then collective #2's barrier:
/// each engine's transmissions in order and every participant's deliveries.
#[test]
fn fig7_barrier_of_collective_2() {
    let (mut f, mut m) = fig7();
    let all_nodes: Vec<usize> = (0..9).collect();
    let no_730: Vec<usize> = (0..6).collect();
    let no_725_node2: Vec<usize> = (0..9).filter(|&e| e != 5).collect();
    let ctxs: Vec<ContextPlan> = [&all_nodes, &no_730, &no_725_node2].iter().map(|n| place(&mut f, &mut m, n, 0)).collect();
    run(&mut f);
    assert_eq!(ctxs.iter().map(|c| c.cc_id).collect::<Vec<_>>(), [0, 1, 2], "[0180]-[0182]");

    // Configuration on the source's link: Table 5 into 720 from the source, each PBV entry followed by its
    // CPU flags (725 and 730 are switches in 720's table, [0096]), then Tables 6-7 (as the text of
    // [0177]-[0178] gives them) for 725 and 730 in configuration messages the master relays, and each
    // engine's static entry (the CC_ID's
    // slot, master at 720); the INITIALIZATIONs carry the PBVs of [0180]-[0182]. Collectives #1 and
    // #2 reuse the tables: only their static entries and INITIALIZATIONs.
    let cfg = on(&f, &[ChannelKind::Up(SOURCE)], 0, all);
    let table = |from: u16, engine: u16, devs: &[(u16, bool)]| devs.iter().enumerate().flat_map(|(i, &(d, sw))| pbv_entry(from, engine, i as u32, d, sw)).collect::<Vec<_>>();
    // The INITIALIZATIONs all go to the master, those of 725 and 730 naming them (000 [0106], [0157]).
    let init = |_from, to, cc, pbv: u128| Seen::Init { from: 0x0001, to: SW720, cc, pbv, p_count: pbv.count_ones() as u16, pid: if to == SW720 { NO_PARTICIPANT } else { to } };
    let want: Vec<Seen> = [
        table(0x0001, SW720, &[(SW725, true), (SW730, true), (0x0001, false), (0x0002, false), (0x0003, false)]),
        static_entry(0x0001, SW720, 0, 0, true).to_vec(),
        static_entry(SW720, SW725, 0, 0, false).to_vec(),
        static_entry(SW720, SW730, 0, 0, false).to_vec(),
        // Tables 6-7 in FIG. 4 configuration messages to the master, naming 725 and 730, each before
        // the INITIALIZATION it relays next (000 [0157]; issue 15 item 5).
        vec![
            init(0x0001, SW720, 0, 0x001f),
            Seen::Config { from: 0x0001, to: SW720, cc: 0, pid: SW725, devices: vec![0x0011, 0x0012, 0x0013], subservient: vec![] },
            init(SW720, SW725, 0, 0x0007),
            Seen::Config { from: 0x0001, to: SW720, cc: 0, pid: SW730, devices: vec![0x0021, 0x0022, 0x0023], subservient: vec![] },
            init(SW720, SW730, 0, 0x0007),
        ],
        static_entry(0x0001, SW720, 1, 1, true).to_vec(),
        static_entry(SW720, SW725, 1, 1, false).to_vec(),
        vec![init(0x0001, SW720, 1, 0x001d), init(SW720, SW725, 1, 0x0007)],
        static_entry(0x0001, SW720, 2, 2, true).to_vec(),
        static_entry(SW720, SW725, 2, 2, false).to_vec(),
        // 730 is not in collective #1: its second context takes its CC_ID's slot, 2 (the CPU's static
        // table is direct-mapped, CC_ID mod STATIC_ENTRIES; docs/manager.md §6), leaving slot 1 free.
        static_entry(SW720, SW730, 2, 2, false).to_vec(),
        vec![init(0x0001, SW720, 2, 0x001f), init(SW720, SW725, 2, 0x0003), init(SW720, SW730, 2, 0x0007)],
    ]
    .concat();
    assert_eq!(cfg, want);
    // The writes landed in the engines' register spaces (Table 5; Tables 6-7 per the text).
    let table = |s: usize, n: usize| (0..n).map(|i| f.engine(s).unwrap().regs().pbv(i)).collect::<Vec<u16>>();
    assert_eq!(table(0, 5), [0x0010, 0x0020, 0x0001, 0x0002, 0x0003]);
    assert_eq!(table(1, 3), [0x0011, 0x0012, 0x0013]);
    assert_eq!(table(2, 3), [0x0021, 0x0022, 0x0023]);

    // The barrier of collective #2.
    let c2 = &ctxs[2];
    let mark = f.captured.len();
    f.start(c2, next_cycle(&f)); // [0183]-[0184]
    run(&mut f);
    let t0 = next_cycle(&f);
    // The source first (FIG. 8's 840; the text does not list it), then [0192], [0194], [0196], [0198].
    let order: [&[usize]; 5] = [&[0], &[1, 2], &[3, 4], &[6], &[7, 8]];
    for (k, group) in order.iter().enumerate() {
        for &e in group.iter() {
            f.respond(e, 2, t0 + k as Ps * GAP_PS);
        }
    }
    run(&mut f);
    let from = |s| on(&f, &[ChannelKind::FromEngine(s)], mark, of_cc(2));
    let sat = |from, to, pid| msg(COMPLETION, from, to, 2, pid, BARRIER_SATISFIED);
    // 720: [0185] to 725 and 730, [0186] to its local nodes (source included: PBV 0x001f); [0193] nothing
    // for its local barrier met messages; [0201]-[0203] satisfied to 725, 730, then the source and its
    // nodes; then the upstream copy to the source.
    assert_eq!(
        from(0),
        [
            msg(CONTROL, SW720, SW725, 2, 0, CMD_START),
            msg(CONTROL, SW720, SW730, 2, 1, CMD_START),
            msg(CONTROL, SW720, 0x0001, 2, 2, CMD_START),
            msg(CONTROL, SW720, 0x0002, 2, 3, CMD_START),
            msg(CONTROL, SW720, 0x0003, 2, 4, CMD_START),
            sat(SW720, SW725, 0),
            sat(SW720, SW730, 1),
            sat(SW720, 0x0001, 2),
            sat(SW720, 0x0002, 3),
            sat(SW720, 0x0003, 4),
            sat(SW720, 0x0001, NO_PARTICIPANT),
        ]
    );
    // 725: [0188] the set-up command to its first and second nodes only; [0195] barrier met up; [0205].
    assert_eq!(
        from(1),
        [
            msg(CONTROL, SW725, 0x0011, 2, 0, CMD_START),
            msg(CONTROL, SW725, 0x0012, 2, 1, CMD_START),
            msg(RESPONSE, SW725, SW720, 2, NO_PARTICIPANT, BARRIER_MET),
            sat(SW725, 0x0011, 0),
            sat(SW725, 0x0012, 1),
        ]
    );
    // 730: [0190]; [0196]-[0199] barrier met up only after its last node; [0207].
    assert_eq!(
        from(2),
        [
            msg(CONTROL, SW730, 0x0021, 2, 0, CMD_START),
            msg(CONTROL, SW730, 0x0022, 2, 1, CMD_START),
            msg(CONTROL, SW730, 0x0023, 2, 2, CMD_START),
            msg(RESPONSE, SW730, SW720, 2, NO_PARTICIPANT, BARRIER_MET),
            sat(SW730, 0x0021, 0),
            sat(SW730, 0x0022, 1),
            sat(SW730, 0x0023, 2),
        ]
    );
    // Across switches, the seed's order: 725's barrier met [0195] is in before 730's first node answers
    // [0196]; 720 is satisfied [0201] only after 730's barrier met [0199-0200].
    let engines = on(&f, &[ChannelKind::FromEngine(0), ChannelKind::FromEngine(1), ChannelKind::FromEngine(2), ChannelKind::Up(6)], mark, of_cc(2));
    let pos = |s: &Seen| engines.iter().position(|x| x == s).unwrap();
    assert!(pos(&msg(RESPONSE, SW725, SW720, 2, NO_PARTICIPANT, BARRIER_MET)) < pos(&msg(CONTRIBUTION, 0x0021, SW730, 2, 0, 0)));
    assert!(pos(&msg(RESPONSE, SW730, SW720, 2, NO_PARTICIPANT, BARRIER_MET)) < pos(&sat(SW720, SW725, 0)));
    // Every participant: the command, then the satisfied message, once; 725's third node nothing.
    for e in no_725_node2.iter().copied().filter(|&e| e != SOURCE) {
        let got = on(&f, &[ChannelKind::Down(e)], mark, of_cc(2));
        let kinds: Vec<(u8, u8)> = got.iter().map(|s| if let Seen::Msg { kind, code, .. } = *s { (kind, code) } else { (0, 0) }).collect();
        assert_eq!(kinds, [(CONTROL, CMD_START), (COMPLETION, BARRIER_SATISFIED)], "end node {e}");
    }
    assert!(on(&f, &[ChannelKind::Down(5)], mark, all).is_empty(), "[0188]: 725's third node is not in collective #2");
    assert_eq!(on(&f, &[ChannelKind::Down(SOURCE)], mark, of_cc(2)).len(), 3, "the source: command, satisfied, upstream copy");
}

/// The three collectives of [0180]-[0182] at once, as INT_SUM all-reduces: configured one after the
/// other, started at the same instant, every participant of every context answering at the same
/// instant. Each participant must get its own context's sum, once.
#[test]
fn three_overlapping_collectives_at_once() {
    let (mut f, mut m) = fig7();
    let sets: [Vec<usize>; 3] = [(0..9).collect(), (0..6).collect(), (0..9).filter(|&e| e != 5).collect()];
    let ctxs: Vec<ContextPlan> = sets.iter().map(|n| place(&mut f, &mut m, n, INT_SUM)).collect();
    run(&mut f);
    let mark = f.captured.len();
    let log0 = f.log.len();
    let t = next_cycle(&f);
    for c in &ctxs {
        f.start(c, t);
    }
    run(&mut f);
    let t = next_cycle(&f);
    for c in &ctxs {
        f.respond_all(c.cc_id, t);
    }
    run(&mut f);
    // Values are end-node index + 1: #0 all nine nodes, #1 the six of 720 and 725, #2 all but 725's
    // third node (index 5, value 6).
    let sums = [45u64, 21, 39];
    for (k, set) in sets.iter().enumerate() {
        let cc = k as u16;
        for &e in set {
            let id = f.topo.endpoints[e].id;
            let results: Vec<_> = f.log[log0..].iter().filter(|d| d.to == id && d.cc_id == cc && d.kind == COMPLETION && d.from == f.topo.switches[f.topo.endpoints[e].switch].engine_id).collect();
            let copies = if e == SOURCE { 2 } else { 1 };
            assert_eq!(results.len(), copies, "collective #{k}, end node {e}");
            for d in results {
                assert_eq!((d.code, d.operands.first().copied()), (RESULT, Some(sums[k])), "collective #{k}, end node {e}");
            }
        }
    }
    // [0181]: collective #1 leaves 730 alone: none of its frames cross 720-730.
    assert!(on(&f, &[isl(&f, 0, 2), isl(&f, 2, 0)], mark, of_cc(1)).is_empty());
    // Each ISL carries per context one command and one result down, one partial result up.
    for cc in [0u16, 2] {
        for (a, b, n) in [(0, 1, 2), (1, 0, 1), (0, 2, 2), (2, 0, 1)] {
            assert_eq!(on(&f, &[isl(&f, a, b)], mark, of_cc(cc)).len(), n, "collective #{cc} on ISL {a}->{b}");
        }
    }
}

/// Runs a barrier round of context `ctx`: the command, then every participant answering at once.
fn barrier(f: &mut Fabric, ctx: &ContextPlan) {
    f.start(ctx, next_cycle(f));
    run(f);
    let t = next_cycle(f);
    f.respond_all(ctx.cc_id, t);
    run(f);
}

/// Barrier-satisfied messages of context `cc` that end node `e` received from its own switch's engine as
/// a participant (P_ID set), from log entry `from` on.
fn satisfied(f: &Fabric, from: usize, e: usize, cc: u16) -> usize {
    let id = f.topo.endpoints[e].id;
    let own = f.topo.switches[f.topo.endpoints[e].switch].engine_id;
    f.log[from..].iter().filter(|d| d.to == id && d.from == own && d.cc_id == cc && d.kind == COMPLETION && d.code == BARRIER_SATISFIED && d.p_id != NO_PARTICIPANT).count()
}

/// A job removed through the fabric ([0142], `docs/manager.md` §5 removal): the manager's removal plan
/// sent as frames (one RESET from the source to the master, which the engines replicate down the tree,
/// 000 [0161], [0172]; then the static entries' clears) frees the engines' contexts; the engines
/// replicate the RESET to their end nodes ([0172]). With eight contexts live on
/// every engine (8 descriptors, 002 (35)) the ninth job is refused; after the removal it is placed on the
/// freed CC_ID and slot and its barrier completes through the engines.
#[test]
fn a_removed_job_frees_its_contexts_in_the_engines() {
    let (mut f, mut m) = fig7();
    let nodes: Vec<usize> = (0..9).collect();
    let ctxs: Vec<ContextPlan> = (0..8).map(|_| place(&mut f, &mut m, &nodes, 0)).collect();
    run(&mut f);
    assert!(m.place(JobSpec::new(drive::node_ids(&nodes), NodeId(SOURCE as u32))).is_err(), "a ninth context does not fit 8 descriptors");
    let log0 = f.log.len();
    barrier(&mut f, &ctxs[7]);
    assert!(nodes.iter().all(|&e| satisfied(&f, log0, e, 7) == 1), "the eighth context is live in the engines");

    // Remove the first job (CC_ID 0).
    let job0 = m.jobs().next().unwrap().id;
    let removal = m.remove(job0).unwrap();
    let mark = f.captured.len();
    let at = f.now();
    drive::apply(&mut f, &m, &removal, SOURCE, at, &value_of).unwrap();
    run(&mut f);
    let reset = |from, to, pid| msg(CONTROL, from, to, 0, pid, 5);
    // Static entry 0 freed: STATIC_INDEX := 0, then STATIC_KEY written 0 (docs/blocks/register_space.md CPU window).
    let index = |from, engine: u16| Seen::Write { from, addr: u64::from(engine) << 16 | 0xC600, be: 0xF, data: 0 };
    let clear = |from, engine: u16| Seen::Write { from, addr: u64::from(engine) << 16 | 0xC604, be: 0xF, data: 0 };
    // One RESET leaves the source, to the master 720 (000 [0161]: the engine at the top distributes
    // "reset collective operation" to the other packet engines; [0172]), then the clears of the
    // engines' static entries, bottom-up (from the master for the subservient engines, the source for
    // the master), sent once the RESET has been taken (drive::apply_encoded's phases). No RESET from the
    // source for 725 or 730. No PBV entry is cleared: the other seven jobs use them.
    let sent: Vec<Seen> = on(&f, &[ChannelKind::Up(SOURCE)], mark, all);
    assert_eq!(sent, [
        reset(0x0001, SW720, NO_PARTICIPANT),
        index(SW720, SW730), clear(SW720, SW730),
        index(SW720, SW725), clear(SW720, SW725),
        index(0x0001, SW720), clear(0x0001, SW720),
    ]);
    // Each engine copies the RESET to its PBV participants ([0172]), the engines below among them: 720 to
    // 725 (PBV 0), 730 (PBV 1) and its nodes; 725 and 730, reset by 720's copies, to theirs. Every
    // end node gets the RESET once, from its own engine.
    let copies = |from: u16, to: &[u16]| to.iter().enumerate().map(move |(pid, &d)| reset(from, d, pid as u16)).collect::<Vec<_>>();
    assert_eq!(on(&f, &[ChannelKind::FromEngine(0)], mark, all), copies(SW720, &[SW725, SW730, 0x0001, 0x0002, 0x0003]));
    assert_eq!(on(&f, &[ChannelKind::FromEngine(1)], mark, all), copies(SW725, &[0x0011, 0x0012, 0x0013]));
    assert_eq!(on(&f, &[ChannelKind::FromEngine(2)], mark, all), copies(SW730, &[0x0021, 0x0022, 0x0023]));
    // What reaches the subservient engines: 720's copy of the RESET, then the source's clears (sent by
    // the source with the master's requester ID, [0175]).
    assert_eq!(on(&f, &[isl(&f, 0, 1)], mark, all), [reset(SW720, SW725, 0), index(SW720, SW725), clear(SW720, SW725)]);
    assert_eq!(on(&f, &[isl(&f, 0, 2)], mark, all), [reset(SW720, SW730, 1), index(SW720, SW730), clear(SW720, SW730)]);
    for e in 0..9 {
        let own = f.topo.switches[f.topo.endpoints[e].switch].engine_id;
        let got: Vec<Seen> = on(&f, &[ChannelKind::Down(e)], mark, of_cc(0));
        assert_eq!(got.len(), 1, "end node {e}: {got:?}");
        assert!(matches!(got[0], Seen::Msg { kind: CONTROL, from, code: 5, .. } if from == own), "end node {e}: {got:?}");
    }
    for s in 0..3 {
        let cpu = f.engine(s).unwrap().cpu();
        assert!(!cpu.static_entry(0).valid, "switch {s}: static entry 0 freed");
        assert!(cpu.live(false, 0).is_none(), "switch {s}: no descriptor for CC_ID 0");
        assert!(cpu.live(false, 7).is_some(), "switch {s}: the other contexts stay");
    }

    // The freed context is placed again and works.
    let again = place(&mut f, &mut m, &nodes, 0);
    assert_eq!(again.cc_id, 0, "the lowest free CC_ID (docs/manager.md §6)");
    run(&mut f);
    let log1 = f.log.len();
    barrier(&mut f, &again);
    assert!(nodes.iter().all(|&e| satisfied(&f, log1, e, 0) == 1));
}

/// A link of a tree goes down and the manager re-places the tree (003 [0063]): on a 3-switch flattened
/// butterfly with the participants on s1 and s2 and the source on s0, the tree s0 → {s1, s2} moves to
/// s0 → s2 → s1 when s0-s1 fails. The change plan (removal, then the new configuration) is applied
/// through the fabric and an all-reduce runs on the new tree: s1's partial result goes to s2. The link
/// fails in the simulator too (`Fabric::fail_isl`): the switches route around it (fewest hops over the
/// live links, `docs/fabric.md` §Rerouting), so the change plan's frames for s1's engine (its RESET and
/// new configuration, from the source at s0) go through s2, nothing is lost on the failed link and
/// nothing is unreachable.
#[test]
fn a_tree_moves_off_a_failed_link_through_the_fabric() {
    let t = Topology::flattened_butterfly(3, 2, LinkSpec::default()).unwrap();
    let cfg = SimConfig { hop_latency_ps: HOP_PS, capture: true, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).unwrap();
    f.bring_up(0, 0);
    run(&mut f);
    let mut m = drive::manager_for(&t).unwrap();
    let parts = [2, 3, 4, 5]; // s1.e0, s1.e1, s2.e0, s2.e1
    // The source names its own switch as the master (000 [0113]); left alone, the manager would take s1
    // (one link fewer). A named master is kept when the tree is re-placed.
    let spec = JobSpec { op: INT_SUM, master: Some(SwitchId(0)), ..JobSpec::new(drive::node_ids(&parts), NodeId(0)) };
    let at = f.now();
    let (job, _, ctx) = drive::place_and_apply(&mut f, &mut m, spec, at, &value_of).unwrap();
    assert_eq!(ctx.master(), 0, "the source's switch");
    run(&mut f);
    let link = m.topology().link_between(SwitchId(0), SwitchId(1)).unwrap();
    let change = m.link_down(link);
    assert_eq!(change.replaced, vec![(job, 0)]);
    assert_eq!(f.fail_isl(0, 1).len(), 1);
    let mark_cfg = f.captured.len();
    let at = f.now();
    drive::apply(&mut f, &m, &change.plan, 0, at, &value_of).unwrap();
    run(&mut f);
    // The change plan's frames for s1's engine crossed s0 → s2 → s1.
    let s1_id = f.topo.switches[1].engine_id;
    let to_s1 = |s: &Seen| match *s {
        Seen::Write { addr, .. } => addr >> 16 == u64::from(s1_id),
        Seen::Msg { to, .. } | Seen::Init { to, .. } | Seen::Config { to, .. } => to == s1_id,
    };
    let via_s2 = on(&f, &[isl(&f, 2, 1)], mark_cfg, to_s1);
    assert!(via_s2.iter().any(|s| matches!(s, Seen::Msg { kind: CONTROL, code: 5, .. })), "the RESET for s1 went via s2: {via_s2:?}");
    // s1's new INITIALIZATION went from the source to the master s0, naming s1, and s0 → s2 → s1 as
    // relayed by the engines: the last hop from s1's new parent s2 (000 [0106]-[0107], docs/blocks/cpu.md §Messages).
    let s2_id = f.topo.switches[2].engine_id;
    assert!(via_s2.iter().any(|s| matches!(*s, Seen::Init { from, pid, .. } if from == s2_id && pid == s1_id)), "s1's new INITIALIZATION relayed by s2: {via_s2:?}");
    // Every frame the source sent for s1 (and s0's engine's copy of its RESET to s1, P_ID 0, [0172], and
    // s2's engine's relay of the INITIALIZATION).
    // s1's PBV table, if the change rewrites it, in a configuration message relayed the same way (issue
    // 15 item 5), the last hop from s2.
    let configs = via_s2.iter().filter(|s| matches!(**s, Seen::Config { from, pid, .. } if from == s2_id && pid == s1_id)).count();
    let from_source: Vec<Seen> = via_s2.iter().filter(|s| !matches!(s, Seen::Msg { pid: 0, .. } | Seen::Init { .. } | Seen::Config { .. })).cloned().collect();
    assert_eq!(from_source, on(&f, &[ChannelKind::Up(0)], mark_cfg, to_s1), "every frame for s1 went via s2");
    assert_eq!(via_s2.len(), from_source.len() + 2 + configs);
    let ctx = drive::context_of(&m, job, 0).unwrap();
    let mark = f.captured.len();
    let log0 = f.log.len();
    f.start(&ctx, next_cycle(&f));
    run(&mut f);
    let t_resp = next_cycle(&f);
    f.respond_all(ctx.cc_id, t_resp);
    run(&mut f);
    // Values are end-node index + 1: 3 + 4 + 5 + 6.
    for &e in &parts {
        let id = f.topo.endpoints[e].id;
        let got: Vec<_> = f.log[log0..].iter().filter(|d| d.to == id && d.kind == COMPLETION && d.p_id != NO_PARTICIPANT).collect();
        assert_eq!(got.len(), 1, "end node {e}");
        assert_eq!((got[0].code, got[0].operands.first().copied()), (RESULT, Some(18)), "end node {e}");
    }
    let (s1, s2) = (f.topo.switches[1].engine_id, f.topo.switches[2].engine_id);
    assert_eq!(on(&f, &[isl(&f, 1, 2)], mark, of_cc(ctx.cc_id)), [msg(RESPONSE, s1, s2, ctx.cc_id, NO_PARTICIPANT, 0)], "s1 reports to s2");
    assert!(on(&f, &[isl(&f, 0, 1), isl(&f, 1, 0)], mark_cfg, all).is_empty(), "nothing on the failed link");
    let lost = f.faults.as_ref().unwrap().log.iter().filter(|x| x.kind == inswitch_fabric::faults::FaultKind::LostOnDownLink).count();
    assert_eq!((lost, f.stats.unreachable), (0, 0), "nothing lost, nothing unreachable");
}

/// [0209]: switch 725 as the master a source names (000 [0113]); 720 reports to 725 and 730 reports to
/// 725 via 720. A barrier over every FIG. 7 end node. The manager keeps every transit switch a member of
/// the tree (`docs/manager.md` §9: routing through 720 bypassing its engine is not planned), so 720's
/// engine combines 730's barrier met with its own nodes' and reports once. Checked: the configuration's
/// requesters (the source for the master, 725 for 720, 720 for 730) and the exact frames on the four
/// ISLs during the barrier.
#[test]
fn fig7_barrier_with_725_as_the_master() {
    let (mut f, mut m) = fig7();
    let spec = JobSpec { master: Some(SwitchId(1)), ..JobSpec::new(drive::node_ids(&(0..9).collect::<Vec<_>>()), NodeId(SOURCE as u32)) };
    let at = f.now();
    let (_, _, ctx) = drive::place_and_apply(&mut f, &mut m, spec, at, &value_of).unwrap();
    run(&mut f);
    assert_eq!(ctx.master(), 1);
    // PBVs, engines first: 725 = [720, its three nodes]; 720 = [730, 735, node 1, node 2]; 730 = its three.
    // Every INITIALIZATION from the source to the master 725 (000 [0106], [0157]); 725 relays 720's to
    // 720 and 730's towards it (730 is not in its PBV: every switch participant, i.e. 720), and 720
    // relays 730's to 730 (multi-hop, [0107]): each engine's is re-emitted by its parent.
    let init = |from, to, pbv: u128, pid| Seen::Init { from, to, cc: 0, pbv, p_count: pbv.count_ones() as u16, pid };
    let is_init = |s: &Seen| matches!(s, Seen::Init { .. });
    let inits: Vec<Seen> = on(&f, &[ChannelKind::Up(SOURCE)], 0, is_init);
    assert_eq!(inits, [init(0x0001, SW725, 0b1111, NO_PARTICIPANT), init(0x0001, SW725, 0b1111, SW720), init(0x0001, SW725, 0b111, SW730)]);
    assert_eq!(on(&f, &[ChannelKind::FromEngine(1)], 0, is_init), [init(SW725, SW720, 0b1111, SW720), init(SW725, SW720, 0b111, SW730)]);
    assert_eq!(on(&f, &[ChannelKind::FromEngine(0)], 0, is_init), [init(SW720, SW730, 0b111, SW730)]);
    let stored = |s: usize| f.engine(s).unwrap().cpu().static_entry(0).upstream;
    assert_eq!((stored(1), stored(0), stored(2)), (0x0001, SW725, SW720), "each engine's upstream is the engine that relayed its INITIALIZATION");
    let writes: Vec<(u16, u64, u64)> = on(&f, &[ChannelKind::Up(SOURCE)], 0, |s| matches!(s, Seen::Write { .. }))
        .iter()
        .map(|s| if let Seen::Write { from, addr, .. } = *s { (from, addr >> 16, addr & 0xFFF) } else { unreachable!() })
        .collect();
    // The master's engine: two writes per PBV entry (ID, flags) and three for the static entry (INDEX,
    // WAIT, KEY), from the source. The engines below: their static entries only (requester the master);
    // no PBV or PBV_FLAGS write reaches them from the source (issue 15 item 5).
    // The PBV table and PBV_FLAGS: 64 DWs each (docs/blocks/register_space.md).
    let pbv_block = |off: u64| (u64::from(offset::PBV)..u64::from(offset::PBV) + 0x100).contains(&off) || (u64::from(offset::PBV_FLAGS)..u64::from(offset::PBV_FLAGS) + 0x100).contains(&off);
    assert_eq!(writes.iter().filter(|w| (w.0, w.1) == (0x0001, 0x0010)).count(), 2 * 4 + 3, "725's table written by the source");
    assert_eq!(writes.iter().filter(|w| (w.0, w.1) == (SW725, 0x0000)).count(), 3, "720's static entry by the master 725");
    assert_eq!(writes.iter().filter(|w| (w.0, w.1) == (SW725, 0x0020)).count(), 3, "730's static entry");
    assert!(!writes.iter().any(|w| w.1 != 0x0010 && pbv_block(w.2)), "no PBV write from the source to an engine below: {writes:x?}");
    // Their tables come in FIG. 4 configuration messages (000 [0154]-[0158]), one per engine, from the
    // source to the master 725 naming the engine ([0157]: the master engine sends one configuration
    // packet to each packet engine), relayed down the tree as the INITIALIZATIONs are: 725 → 720 for 720
    // and for 730 (730 is below 720), 720 → 730 for 730 (multi-hop, [0107]).
    let cfg = |from, to, pid, devices: &[u16], subservient: &[u16]| Seen::Config { from, to, cc: 0, pid, devices: devices.to_vec(), subservient: subservient.to_vec() };
    let is_cfg = |s: &Seen| matches!(s, Seen::Config { .. });
    let t720 = f.topo.endpoints.iter().filter(|n| n.switch == 0).map(|n| n.id).collect::<Vec<_>>();
    let t730 = f.topo.endpoints.iter().filter(|n| n.switch == 2).map(|n| n.id).collect::<Vec<_>>();
    let mut d720 = vec![SW730];
    d720.extend(&t720);
    let (c720, c730) = (cfg(0x0001, SW725, SW720, &d720, &[SW730]), cfg(0x0001, SW725, SW730, &t730, &[]));
    assert_eq!(on(&f, &[ChannelKind::Up(SOURCE)], 0, is_cfg), [c720.clone(), c730.clone()]);
    assert_eq!(on(&f, &[ChannelKind::FromEngine(1)], 0, is_cfg), [cfg(SW725, SW720, SW720, &d720, &[SW730]), cfg(SW725, SW720, SW730, &t730, &[])]);
    assert_eq!(on(&f, &[ChannelKind::FromEngine(0)], 0, is_cfg), [cfg(SW720, SW730, SW730, &t730, &[])]);
    // And the engines below hold them: entry i = the message's device i, valid, a switch if named so.
    for (s, devices, switches) in [(0usize, &d720, &[SW730][..]), (2, &t730, &[][..])] {
        let pbv = &f.engine(s).unwrap().cpu().config().pbv;
        for (i, &d) in devices.iter().enumerate() {
            assert_eq!((pbv[i].valid, pbv[i].device_id, pbv[i].switch), (true, d, switches.contains(&d)), "engine {s} entry {i}");
        }
        assert!(!pbv[devices.len()].valid, "engine {s}: nothing past its entries");
    }
    let mark = f.captured.len();
    barrier(&mut f, &ctx);
    let data = |s: &Seen| matches!(s, Seen::Msg { kind: CONTROL | RESPONSE | COMPLETION, cc: 0, .. });
    let sat = |from, to, pid| msg(COMPLETION, from, to, 0, pid, BARRIER_SATISFIED);
    assert_eq!(on(&f, &[isl(&f, 0, 1)], mark, data), [msg(CONTROL, 0x0001, SW725, 0, NO_PARTICIPANT, CMD_START), msg(RESPONSE, SW720, SW725, 0, NO_PARTICIPANT, BARRIER_MET)]);
    assert_eq!(on(&f, &[isl(&f, 1, 0)], mark, data), [msg(CONTROL, SW725, SW720, 0, 0, CMD_START), sat(SW725, SW720, 0), sat(SW725, 0x0001, NO_PARTICIPANT)]);
    assert_eq!(on(&f, &[isl(&f, 0, 2)], mark, data), [msg(CONTROL, SW720, SW730, 0, 0, CMD_START), sat(SW720, SW730, 0)]);
    assert_eq!(on(&f, &[isl(&f, 2, 0)], mark, data), [msg(RESPONSE, SW730, SW720, 0, NO_PARTICIPANT, BARRIER_MET)]);
    let log0 = f.log.iter().position(|d| d.kind == CONTROL && d.to == SW725).unwrap();
    assert!((0..9).all(|e| satisfied(&f, log0, e, 0) == 1), "every end node satisfied once");
}

/// The removal of [0209]'s tree (725 the master, 720 below it, 730 below 720): the source sends one RESET,
/// to 725 (000 [0161]: the engine at the top distributes "reset collective operation" to the other
/// packet engines); 725 copies it to its PBV participants, 720 among them, and 720 to its own, 730 among
/// them (the CPU's CONTROL rule, [0172]; multi-hop, [0107]). No RESET from the source reaches 720 or 730,
/// and every engine's context is freed.
#[test]
fn a_removal_is_relayed_down_two_levels() {
    let (mut f, mut m) = fig7();
    let spec = JobSpec { master: Some(SwitchId(1)), ..JobSpec::new(drive::node_ids(&(0..9).collect::<Vec<_>>()), NodeId(SOURCE as u32)) };
    let at = f.now();
    let (job, _, ctx) = drive::place_and_apply(&mut f, &mut m, spec, at, &value_of).unwrap();
    run(&mut f);
    barrier(&mut f, &ctx);
    assert!((0..3).all(|s| f.engine(s).unwrap().cpu().live(false, 0).is_some()), "the context is live on every engine");
    let removal = m.remove(job).unwrap();
    let mark = f.captured.len();
    let at = f.now();
    drive::apply(&mut f, &m, &removal, SOURCE, at, &value_of).unwrap();
    run(&mut f);
    let is_reset = |s: &Seen| matches!(s, Seen::Msg { kind: CONTROL, code: 5, .. });
    let reset = |from, to, pid| msg(CONTROL, from, to, 0, pid, 5);
    assert_eq!(on(&f, &[ChannelKind::Up(SOURCE)], mark, is_reset), [reset(0x0001, SW725, NO_PARTICIPANT)], "one RESET from the source, to the master");
    // 725's PBV: [720, its three nodes]; 720's: [730, 735, node 1, node 2]; 730's: its three nodes.
    let copies = |from: u16, to: &[u16]| to.iter().enumerate().map(move |(pid, &d)| reset(from, d, pid as u16)).collect::<Vec<_>>();
    assert_eq!(on(&f, &[ChannelKind::FromEngine(1)], mark, is_reset), copies(SW725, &[SW720, 0x0011, 0x0012, 0x0013]));
    assert_eq!(on(&f, &[ChannelKind::FromEngine(0)], mark, is_reset), copies(SW720, &[SW730, 0x0001, 0x0002, 0x0003]));
    assert_eq!(on(&f, &[ChannelKind::FromEngine(2)], mark, is_reset), copies(SW730, &[0x0021, 0x0022, 0x0023]));
    // What reaches 720 and 730: their parent engine's copy only.
    assert_eq!(on(&f, &[ChannelKind::ToEngine(0)], mark, is_reset), [reset(SW725, SW720, 0)]);
    assert_eq!(on(&f, &[ChannelKind::ToEngine(2)], mark, is_reset), [reset(SW720, SW730, 0)]);
    for s in 0..3 {
        let cpu = f.engine(s).unwrap().cpu();
        assert!(!cpu.static_entry(0).valid && cpu.live(false, 0).is_none(), "switch {s}: context 0 freed");
    }
}

/// A scenario file with `"arrangement": "managed"` runs through the manager (`docs/fabric.md` §Scenario
/// files) on a 4 x 4 butterfly: every end node but the source, one ISL frame per command.
#[test]
fn a_managed_scenario_file() {
    let file: inswitch_fabric::scenario::ScenarioFile = serde_json::from_str(r#"{"topology": "fbfly:4x4", "arrangement": "managed", "real_frames": true}"#).unwrap();
    let (r, _) = run_collective(&file.spec().unwrap(), &mut |_| {});
    assert_eq!(r.error, None);
    assert_eq!(r.arrangement, Some(Arrangement::Managed));
    assert!(r.command_exactly_once && r.result_exactly_once);
    // Values 2..=16 (end nodes 1..15).
    assert_eq!(r.result_value, Some((2..=16).sum()));
    assert_eq!(r.frames_per_isl_from_master, (1, 1));
}

/// For one source over Table 1's flattened butterfly the manager's tree is the built-in distributed plan
/// (000 [0100], [0104]-[0111]): the master at the source's switch, one subservient engine in every other
/// switch, the same PBV members in the same order (engines first, as Table 5), so the distributed
/// column of Table 1 is also what the manager would configure.
#[test]
fn the_managers_tree_is_table_1s_distributed_plan() {
    let t = Topology::flattened_butterfly(32, 32, LinkSpec::default()).unwrap();
    let mut m = drive::manager_for(&t).unwrap();
    let parts: Vec<usize> = (1..t.endpoints.len()).collect();
    let (job, _) = m.place(JobSpec::new(drive::node_ids(&parts), NodeId(0))).unwrap();
    let mut managed = drive::context_of(&m, job, 0).unwrap();
    let mut builtin = inswitch_fabric::setup::plan(&t, Arrangement::Distributed, 0, 0, 0, 0);
    managed.participants.sort_unstable();
    builtin.participants.sort_unstable();
    assert_eq!(managed, builtin);
}
