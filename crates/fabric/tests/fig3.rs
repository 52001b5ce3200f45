//! Seed 000 FIG. 3 in the fabric (`docs/fabric.md` §FIG. 3): boards 302 and 304, two switches each, every
//! pair of switches linked ([0149]); the two contexts of [0148] with different masters run at once
//! through the collective manager and the cycle engines ([0150]-[0152]); and FIG. 8's ladder
//! ([0210]-[0227]) on the components the seed draws it with (310, 316, 318, 334, 340, 342).
//!
//! The expected frames are derived here from the topology and the seed's text (who sends what to whom,
//! [0150]-[0151]), not from the code under test: the contexts' engines from their participants' switches,
//! the links from the topology's ISL list (every switch of FIG. 3 neighbours every other, so a frame
//! between two switches takes their own ISL), the ladder's frames written out from the seed.

use std::collections::BTreeMap;

use inswitch_fabric::drive;
use inswitch_fabric::manager::{JobSpec, NodeId, SwitchId, TopologyMap, Vertex};
use inswitch_fabric::scenario::{self, run_fig3, run_fig3_contexts, value_of, FIG3_CONTEXTS, FIG3_CONTEXTS_ONE_MASTER};
use inswitch_fabric::sim::{ChannelKind, Fabric, SimConfig};
use inswitch_fabric::topology::{LinkSpec, Ps, Topology};
use inswitch_fabric::wire;
use inswitch_frames::collective::{Body, NO_PARTICIPANT};
use inswitch_frames::tlp::{Header, Tlp};

/// Crossbar latency per hop (the realistic default).
const HOP_PS: Ps = 100_000;
/// Gap between participants answering in the ladder: longer than any engine's reaction, so the seed's
/// order of events is the order of the answers.
const GAP_PS: Ps = 1_000_000;

const CONTROL: u8 = 3;
const CONTRIBUTION: u8 = 4;
const RESPONSE: u8 = 5;
const COMPLETION: u8 = 6;
/// CONTROL command START ([0168]).
const CMD_START: u8 = 1;
/// Completion codes: barrier met at an engine, barrier satisfied globally.
const BARRIER_MET: u8 = 1;
const BARRIER_SATISFIED: u8 = 2;

fn sw(t: &Topology, name: &str) -> usize {
    t.switch_named(name).unwrap_or_else(|| panic!("no switch {name}"))
}

fn node(t: &Topology, name: &str) -> usize {
    t.endpoint_named(name).unwrap_or_else(|| panic!("no end node {name}"))
}

/// The board a switch is on ([0132]-[0133]).
fn board(name: &str) -> &'static str {
    match name {
        "306" | "308" => "302",
        "330" | "332" => "304",
        other => panic!("{other} is no FIG. 3 switch"),
    }
}

/// The directed ISL from switch `a` to switch `b`, from the topology's ISL list (ISL `i` is directed ISLs
/// `2i` (a → b) and `2i + 1`, `topology::Routes::directed`).
fn isl(t: &Topology, a: usize, b: usize) -> ChannelKind {
    let i = t.isls.iter().position(|l| (l.a, l.b) == (a, b) || (l.a, l.b) == (b, a)).unwrap_or_else(|| panic!("no ISL {a}-{b}"));
    ChannelKind::Isl(2 * i + usize::from(t.isls[i].a != a))
}

/// A device of the fabric: an end node or a switch's engine.
#[derive(Clone, Copy, Debug)]
enum Dev {
    Node(usize),
    Engine(usize),
}

/// The channels a frame from `a` to `b` crosses: the sender's link up or its engine's port out, the ISL
/// between the two switches (FIG. 3: every pair neighbours), the receiver's link down or its engine's
/// port in.
fn path(t: &Topology, a: Dev, b: Dev) -> Vec<ChannelKind> {
    let switch = |d: Dev| match d {
        Dev::Node(e) => t.endpoints[e].switch,
        Dev::Engine(s) => s,
    };
    let mut v = vec![match a {
        Dev::Node(e) => ChannelKind::Up(e),
        Dev::Engine(s) => ChannelKind::FromEngine(s),
    }];
    if switch(a) != switch(b) {
        v.push(isl(t, switch(a), switch(b)));
    }
    v.push(match b {
        Dev::Node(e) => ChannelKind::Down(e),
        Dev::Engine(s) => ChannelKind::ToEngine(s),
    });
    v
}

/// The engines of a context: its master and the switches of its participants.
fn engines_of(t: &Topology, master: usize, participants: &[usize]) -> Vec<usize> {
    let mut v = vec![master];
    for &p in participants {
        if !v.contains(&t.endpoints[p].switch) {
            v.push(t.endpoints[p].switch);
        }
    }
    v
}

/// The collective frames of one all-reduce per channel, as [0150]-[0151] count them: the source's one
/// initiating frame to the master engine and the final result back; the master's command and final
/// result to each subservient engine and one consolidated partial result back; each engine's command
/// and final result to each of its local participants and one partial response back.
fn expected_frames(f: &Fabric, source: usize, master: usize, participants: &[usize]) -> BTreeMap<usize, u64> {
    let t = &f.topo;
    let mut msgs: Vec<(Dev, Dev, u64)> = vec![(Dev::Node(source), Dev::Engine(master), 1), (Dev::Engine(master), Dev::Node(source), 1)];
    for &e in engines_of(t, master, participants).iter().skip(1) {
        msgs.extend([(Dev::Engine(master), Dev::Engine(e), 2), (Dev::Engine(e), Dev::Engine(master), 1)]);
    }
    for &p in participants {
        let s = t.endpoints[p].switch;
        msgs.extend([(Dev::Engine(s), Dev::Node(p), 2), (Dev::Node(p), Dev::Engine(s), 1)]);
    }
    let mut m = BTreeMap::new();
    for (a, b, n) in msgs {
        for c in path(t, a, b) {
            *m.entry(chan(f, c)).or_insert(0) += n;
        }
    }
    m
}

/// The index of the fabric's channel `kind`.
fn chan(f: &Fabric, kind: ChannelKind) -> usize {
    f.channels().position(|c| c.kind == kind).unwrap_or_else(|| panic!("no channel {kind:?}"))
}

/// A collective frame on a channel: kind, requester, destination, P_ID.
type Msg = (u8, u16, u16, u16);

/// The collective frames captured from `from` on, per channel index, of context `cc` whose engines are
/// `engines` (one of them sent the frame or is its destination).
fn captured_frames(f: &Fabric, from: usize, cc: u16, engines: &[usize]) -> BTreeMap<usize, Vec<Msg>> {
    let ids: Vec<u16> = engines.iter().map(|&s| f.topo.switches[s].engine_id).collect();
    let mut m: BTreeMap<usize, Vec<Msg>> = BTreeMap::new();
    for c in &f.captured[from..] {
        let bytes = &f.frames[c.frame as usize].bytes;
        let Some(msg) = wire::collective_of(bytes) else { continue };
        let (req, dst) = (wire::requester(bytes).unwrap(), wire::destination(bytes).unwrap());
        if msg.header.cc_id == cc && (ids.contains(&req) || ids.contains(&dst)) {
            m.entry(c.channel).or_default().push((msg.header.kind, req, dst, msg.header.p_id));
        }
    }
    m
}

#[test]
fn fig3_is_a_topology_and_a_manager_map_by_name() {
    let t = scenario::topology_from("fig3").unwrap();
    assert_eq!(t, Topology::fig3(LinkSpec::default()));
    assert_eq!(t.to_string(), "fig3 (4 switches, 8 end nodes, 6 ISLs)");
    let m = TopologyMap::fig3();
    assert_eq!(m.switches().iter().map(|s| (s.name.as_str(), s.device_id)).collect::<Vec<_>>(), [("306", 0x0000), ("308", 0x0010), ("330", 0x1000), ("332", 0x1010)]);
    assert_eq!(m.node(m.node_named("352").unwrap()).device_id, 0x1012);
    // [0149]: each switch of board 302 linked to each of board 304, and the boards' own pairs.
    for (a, b) in [("306", "308"), ("330", "332"), ("306", "330"), ("306", "332"), ("308", "330"), ("308", "332")] {
        assert!(m.link_between(m.switch_named(a).unwrap(), m.switch_named(b).unwrap()).is_some(), "{a}-{b}");
    }
    let node_ports = m.nodes_of(m.switch_named("330").unwrap()).map(|n| m.port(m.node(n).link, Vertex::Switch(m.node(n).switch)).unwrap()).collect::<Vec<_>>();
    assert_eq!(node_ports, [0, 1], "end nodes on ports 0-1");
}

/// Checks a run of `specs` ([0148]-[0152]): both initiating frames at the same instant; per context the
/// manager's engines (the named master and the participants' switches), the result (the INT_SUM of the
/// contributions) at every participant from its own switch's engine and at the source from the master,
/// the latency reported, and the collective frames on every link direction and engine port against
/// [`expected_frames`]. Returns each context's engines.
fn check_contexts(r: &scenario::Fig3Run, f: &Fabric, specs: &[scenario::Fig3ContextSpec]) -> Vec<Vec<usize>> {
    assert_eq!(r.error, None);
    let t = &f.topo;
    assert_eq!(r.contexts.len(), specs.len());
    assert!(r.ok(), "{}", r.text());
    assert_eq!(r.unattributed, 0, "every collective frame belongs to a context");
    // Every initiating frame leaves its source at the same instant.
    let starts: Vec<Ps> = specs
        .iter()
        .map(|c| {
            let up = chan(f, ChannelKind::Up(node(t, c.source)));
            f.captured[r.first_collective_capture..].iter().find(|x| x.channel == up).expect("the source sent its initiating frame").start
        })
        .collect();
    assert!(starts.iter().all(|&s| s == r.started_at), "{starts:?}");
    let mut engines_by_context = Vec::new();
    for (c, got) in specs.iter().zip(&r.contexts) {
        let (source, master) = (node(t, c.source), sw(t, c.master));
        let parts: Vec<usize> = c.participants.iter().map(|p| node(t, p)).collect();
        let engines = engines_of(t, master, &parts);
        // The manager took the named master and exactly the participants' switches ([0148]).
        let names: Vec<&str> = engines.iter().map(|&s| t.switches[s].name.as_str()).collect();
        assert_eq!(got.engines, names, "context {}", c.name);
        // The result is the reduction (INT_SUM) of the contributions, at every participant (from its own
        // switch's engine) and at the source (the master's upstream copy).
        let sum: u64 = parts.iter().map(|&p| value_of(p)).sum();
        assert_eq!((got.expected_value, got.source_result), (sum, Some(sum)), "context {}", c.name);
        assert!(got.ok, "context {}: {got:?}", c.name);
        let log = |to: usize, from: usize, upstream: bool| -> Vec<(Ps, u64)> {
            let (to, from) = (t.endpoints[to].id, t.switches[from].engine_id);
            f.log.iter().filter(|d| d.kind == COMPLETION && d.cc_id == got.cc_id && d.to == to && d.from == from && (d.p_id == NO_PARTICIPANT) == upstream).map(|d| (d.at, d.operands[0])).collect()
        };
        for &p in &parts {
            assert_eq!(log(p, t.endpoints[p].switch, false).iter().map(|x| x.1).collect::<Vec<_>>(), [sum], "context {}: {}", c.name, t.endpoints[p].name);
        }
        let at_source = log(source, master, true);
        assert_eq!(at_source.len(), 1);
        assert_eq!(got.latency_ps, at_source[0].0 - r.started_at);

        // Per link and engine port, exactly the frames of [0150]-[0151], counted from the topology.
        let want = expected_frames(f, source, master, &parts);
        let seen = captured_frames(f, r.first_collective_capture, got.cc_id, &engines);
        let counts: BTreeMap<usize, u64> = seen.iter().map(|(k, v)| (*k, v.len() as u64)).collect();
        assert_eq!(counts, want, "context {}", c.name);
        // [0151]: a link between the master and a subservient engine carries 3 frames, 2 away from the
        // master (initiating frame and final result), 1 towards it (partial result).
        for &e in engines.iter().skip(1) {
            assert_eq!((counts[&chan(f, isl(t, master, e))], counts[&chan(f, isl(t, e, master))]), (2, 1), "context {}: {}-{}", c.name, c.master, t.switches[e].name);
        }
        // The scenario's summary reports the same counts for the links (not the engine ports).
        let links: Vec<(String, u64)> = want
            .iter()
            .filter(|(&k, _)| !matches!(f.channel(k).kind, ChannelKind::ToEngine(_) | ChannelKind::FromEngine(_)))
            .map(|(&k, n)| (scenario::channel_name(f, k), *n))
            .collect();
        let mut reported = got.link_frames.clone();
        reported.sort();
        let mut links = links;
        links.sort();
        assert_eq!(reported, links, "context {}", c.name);
        engines_by_context.push(engines);
    }
    engines_by_context
}

/// [0148]-[0152]: context N (source 316, master engine 312 in 306, participants the local nodes of board
/// 302 but 328) and context M (source 318, master engine 336 in 330, participants the nodes of board 304)
/// placed by the manager with their named masters, started at the same instant, reduced by the cycle
/// engines.
#[test]
fn fig3_contexts_n_and_m_with_different_masters_at_once() {
    let (r, f) = run_fig3(HOP_PS, &mut |_| {});
    let f = f.expect("the run was built");
    let t = &f.topo;
    let engines_by_context = check_contexts(&r, &f, &FIG3_CONTEXTS);
    // The two trees share no engine ([0148]).
    assert!(engines_by_context[0].iter().all(|s| !engines_by_context[1].contains(s)));

    // [0148]: 328 takes part in nothing: no frame reaches it, in configuration or collective.
    let n328 = node(t, "328");
    assert!(f.captured.iter().all(|c| f.channel(c.channel).kind != ChannelKind::Down(n328)), "a frame went to 328");
    assert!(f.log.iter().all(|d| d.to != t.endpoints[n328].id));

    // [0152]: M's traffic stays on board 304 but for its initiating frame from 318 and its final result
    // to 318, which cross board 302's switch 306 and one ISL between the boards.
    let (n318, s306, s330) = (node(t, "318"), sw(t, "306"), sw(t, "330"));
    let (id318, id334) = (t.endpoints[n318].id, t.switches[s330].engine_id);
    let on_302 = |k: ChannelKind| match k {
        ChannelKind::Up(e) | ChannelKind::Down(e) => board(&t.switches[t.endpoints[e].switch].name) == "302",
        ChannelKind::Isl(i) => {
            let (a, b, _) = f.routes.directed(i);
            board(&t.switches[a].name) == "302" || board(&t.switches[b].name) == "302"
        }
        ChannelKind::ToEngine(s) | ChannelKind::FromEngine(s) => board(&t.switches[s].name) == "302",
    };
    let m_frames = captured_frames(&f, r.first_collective_capture, r.contexts[1].cc_id, &engines_by_context[1]);
    let m_on_302: BTreeMap<usize, Vec<Msg>> = m_frames.into_iter().filter(|(k, _)| on_302(f.channel(*k).kind)).collect();
    let initiating = (CONTROL, id318, id334, NO_PARTICIPANT);
    let result = (COMPLETION, id334, id318, NO_PARTICIPANT);
    let want: BTreeMap<usize, Vec<Msg>> = [
        (ChannelKind::Up(n318), vec![initiating]),
        (isl(t, s306, s330), vec![initiating]),
        (isl(t, s330, s306), vec![result]),
        (ChannelKind::Down(n318), vec![result]),
    ]
    .into_iter()
    .map(|(k, v)| (chan(&f, k), v))
    .collect();
    assert_eq!(m_on_302, want);
    // And N's stays on board 302.
    let n_frames = captured_frames(&f, r.first_collective_capture, r.contexts[0].cc_id, &engines_by_context[0]);
    assert!(n_frames.keys().all(|&k| on_302(f.channel(k).kind)), "{n_frames:?}");
    // The summary names both contexts and says ok.
    let text = r.text();
    assert!(r.ok() && text.contains("context N") && text.contains("context M") && !text.contains("WRONG"), "{text}");
}

/// [0153]: context M mastered by collective engine 312 (switch 306) too. Both results still right, the
/// frames per link as [0150]-[0151] count them for the new trees (M's master feeds 330 and 332 over the
/// ISLs between the boards), and engine 310's port carries the frames of both contexts: as N's and M's
/// masters have the same fan-out (2 children), exactly twice what it carries as N's master alone
/// ("a single master engine is configured to process twice the frames"). The other engines carry only
/// their own context's frames in both runs.
#[test]
fn fig3_one_master_for_both_contexts_processes_twice_the_frames() {
    let (own, f_own) = run_fig3(HOP_PS, &mut |_| {});
    let (one, f_one) = run_fig3_contexts(&FIG3_CONTEXTS_ONE_MASTER, HOP_PS, &mut |_| {});
    let (f_own, f_one) = (f_own.unwrap(), f_one.unwrap());
    check_contexts(&own, &f_own, &FIG3_CONTEXTS);
    check_contexts(&one, &f_one, &FIG3_CONTEXTS_ONE_MASTER);
    assert_ne!(one.contexts[0].cc_id, one.contexts[1].cc_id, "the trees share engine 310, so their CC_IDs differ");
    let t = &f_one.topo;
    // Engine port counts from [0150]-[0151], summed over the contexts.
    let port = |f: &Fabric, specs: &[scenario::Fig3ContextSpec], s: usize| -> (u64, u64) {
        let mut io = (0, 0);
        for c in specs {
            let want = expected_frames(f, node(t, c.source), sw(t, c.master), &c.participants.iter().map(|p| node(t, p)).collect::<Vec<_>>());
            io.0 += want.get(&chan(f, ChannelKind::ToEngine(s))).copied().unwrap_or(0);
            io.1 += want.get(&chan(f, ChannelKind::FromEngine(s))).copied().unwrap_or(0);
        }
        io
    };
    for (r, f, specs) in [(&own, &f_own, &FIG3_CONTEXTS), (&one, &f_one, &FIG3_CONTEXTS_ONE_MASTER)] {
        let got: Vec<(u64, u64)> = r.engine_frames.iter().map(|x| (x.1, x.2)).collect();
        let want: Vec<(u64, u64)> = (0..t.switches.len()).map(|s| port(f, specs, s)).collect();
        assert_eq!(got, want, "{}", r.text());
    }
    let s306 = sw(t, "306");
    let (a, b) = (own.engine_frames[s306].clone(), one.engine_frames[s306].clone());
    assert_eq!((b.1, b.2), (2 * a.1, 2 * a.2), "engine 310 alone vs for both contexts");
}

/// What a frame on a link is, in the seed's terms (the ladder).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    /// A collective message: kind, requester, destination, CC_ID, P_ID, code (CONTROL command or data
    /// message completion code).
    Msg { kind: u8, from: u16, to: u16, cc: u16, pid: u16, code: u8 },
    /// INITIALIZATION: requester, destination, CC_ID, PBV, p_count.
    /// P_ID: 0xFFFF for the destination engine, else the engine below it the INITIALIZATION is for
    /// (relayed by the engines, `docs/blocks/cpu.md` §Messages).
    Init { from: u16, to: u16, cc: u16, pbv: u128, p_count: u16, pid: u16 },
    /// A register write into an engine's window: requester, byte address, First BE, data.
    Write { from: u16, addr: u64, be: u8, data: u32 },
    /// A FIG. 4 configuration message: requester, destination, P_ID (the engine it is for), device IDs.
    Config { from: u16, to: u16, pid: u16, devices: Vec<u16> },
}

fn msg(kind: u8, from: u16, to: u16, pid: u16, code: u8) -> Seen {
    Seen::Msg { kind, from, to, cc: 0, pid, code }
}

fn seen(bytes: &[u8]) -> Seen {
    if let Some(m) = wire::collective_of(bytes) {
        let (from, to) = (wire::requester(bytes).unwrap(), wire::destination(bytes).unwrap());
        let (cc, pid) = (m.header.cc_id, m.header.p_id);
        return match m.body {
            Body::Initialization(i) => Seen::Init { from, to, cc, pbv: i.pbv, p_count: i.p_count, pid },
            Body::Control(c) => Seen::Msg { kind: m.header.kind, from, to, cc, pid, code: c.command },
            Body::Data { fixed, .. } => Seen::Msg { kind: m.header.kind, from, to, cc, pid, code: fixed.completion },
            Body::Configuration { device_ids, .. } => Seen::Config { from, to, pid, devices: device_ids },
            _ => panic!("unexpected collective message {m:?}"),
        };
    }
    let t = Tlp::parse(&bytes[wire::SEQ_LEN..bytes.len() - wire::LCRC_LEN]).expect("a TLP");
    let Header::Memory { req, address } = &t.header else { panic!("unexpected TLP {t:?}") };
    Seen::Write { from: req.requester_id, addr: address.byte_address(), be: req.first_be, data: u32::from_le_bytes(t.payload[..4].try_into().unwrap()) }
}

/// Engine `engine`'s register `off` of its window at 0x00ii_C000 ([0175]), as a byte address.
fn reg(engine: u16, off: u32) -> u64 {
    u64::from(engine) << 16 | 0xC000 | u64::from(off)
}

/// A PBV entry as the manager programs it ([0175]: entry i at byte offset 2i of the window, First BE 0011
/// for an even entry and 1100 for an odd one; then its flags in PBV_FLAGS at 0x500, bit 0 valid and bit
/// 1 switch, `docs/blocks/register_space.md`).
fn pbv_entry(from: u16, engine: u16, index: u32, dev: u16, switch: bool) -> [Seen; 2] {
    let (be, shift) = if index % 2 == 0 { (0x3, 0) } else { (0xC, 16) };
    let flags = 1 | u32::from(switch) << 1;
    [
        Seen::Write { from, addr: reg(engine, (index * 2) & !3), be, data: u32::from(dev) << shift },
        Seen::Write { from, addr: reg(engine, 0x500 | ((index * 2) & !3)), be, data: flags << shift },
    ]
}

/// The CPU static entry of a TLP context in slot 0 (`docs/blocks/register_space.md` CPU window: STATIC_INDEX at
/// 0x600 := 0, STATIC_WAIT at 0x608, 0 for TLP, then STATIC_KEY at 0x604 = valid (31) | role (21:20, 1 master) |
/// family 0 | key).
fn static_entry(from: u16, engine: u16, master: bool) -> [Seen; 3] {
    [
        Seen::Write { from, addr: reg(engine, 0x600), be: 0xF, data: 0 },
        Seen::Write { from, addr: reg(engine, 0x608), be: 0xF, data: 0 },
        Seen::Write { from, addr: reg(engine, 0x604), be: 0xF, data: 1 << 31 | u32::from(master) << 20 },
    ]
}

/// FIG. 8 ([0210]-[0227]) on FIG. 3's own components: master packet engine 310 (switch 306, named
/// master), source node 316, local node 318, packet engine 334 (remote switch 330), remote nodes 340 and
/// 342; a barrier over the four nodes. The model's differences from the ladder are those of
/// `tests/flows.rs::fig8_ladder_on_fig7` (configuration packets are register writes, 820 is sent by the
/// source to the master naming 334 and re-emitted by the master, 825-835 are the replicated CONTROL START, and the master also
/// answers its upstream). Here the one hop of [0214] is the ISL between the boards, and the two switches
/// that take no part (308, 332) see nothing.
#[test]
fn fig8_ladder_on_fig3() {
    let t = Topology::fig3(LinkSpec::default());
    let mut f = Fabric::new(t.clone(), SimConfig { hop_latency_ps: HOP_PS, capture: true, ..SimConfig::default() }).unwrap();
    let mut m = drive::manager_for(&t).unwrap();
    let (n316, n318, n340, n342) = (node(&t, "316"), node(&t, "318"), node(&t, "340"), node(&t, "342"));
    let (s306, s308, s330, s332) = (sw(&t, "306"), sw(&t, "308"), sw(&t, "330"), sw(&t, "332"));
    f.bring_up(n316, 0);
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    f.captured.clear();
    let spec = JobSpec { master: Some(SwitchId(s306 as u32)), ..JobSpec::new(drive::node_ids(&[n316, n318, n340, n342]), NodeId(n316 as u32)) };
    let at = f.now();
    let ctx = drive::place_and_apply(&mut f, &mut m, spec, at, &value_of).unwrap().2;
    assert_eq!((ctx.cc_id, ctx.master()), (0, s306));
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    f.start(&ctx, f.now() + GAP_PS);
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});
    let t0 = f.now() + GAP_PS;
    // 840, 845, 850, then 860: the last local participant.
    for (k, e) in [n316, n340, n342, n318].into_iter().enumerate() {
        f.respond(e, 0, t0 + k as Ps * GAP_PS);
    }
    f.run_until_quiet(Ps::MAX / 4, &mut |_| {});

    let on = |kinds: &[ChannelKind]| -> Vec<Seen> {
        let chans: Vec<usize> = kinds.iter().map(|&k| chan(&f, k)).collect();
        let mut v: Vec<(Ps, usize, Seen)> = f.captured.iter().enumerate().filter(|(_, c)| chans.contains(&c.channel)).map(|(i, c)| (c.start, i, seen(&f.frames[c.frame as usize].bytes))).collect();
        v.sort_by_key(|x| (x.0, x.1));
        v.into_iter().map(|x| x.2).collect()
    };
    let id = |e: usize| t.endpoints[e].id;
    let (e310, e334) = (t.switches[s306].engine_id, t.switches[s330].engine_id);
    let (src, local, r340, r342) = (id(n316), id(n318), id(n340), id(n342));
    // PBVs (engines first, then end nodes in device-ID order, Table 5): 310 = [334, 316, 318], 334 =
    // [340, 342]. 805: the master's configuration from the source; 810: packet engine 334's: its static
    // entry written with the master's requester ID ([0175]), its PBV table in a FIG. 4 configuration
    // message from the source to the master, which relays it to 334 (000 [0157]; issue 15 item 5).
    let cfg310 = [pbv_entry(src, e310, 0, e334, true).to_vec(), pbv_entry(src, e310, 1, src, false).to_vec(), pbv_entry(src, e310, 2, local, false).to_vec(), static_entry(src, e310, true).to_vec()].concat();
    let cfg334 = static_entry(e310, e334, false).to_vec();
    let config334_to_master = Seen::Config { from: src, to: e310, pid: e334, devices: vec![r340, r342] };
    let config334 = Seen::Config { from: e310, to: e334, pid: e334, devices: vec![r340, r342] };
    // 815, 820.
    // 815, 820: 334's from the source to the master, naming 334, re-emitted by the master to 334 (000
    // [0106], [0157], docs/blocks/cpu.md §Messages).
    let init310 = Seen::Init { from: src, to: e310, cc: 0, pbv: 0b111, p_count: 3, pid: NO_PARTICIPANT };
    let init334_to_master = Seen::Init { from: src, to: e310, cc: 0, pbv: 0b11, p_count: 2, pid: e334 };
    let init334 = Seen::Init { from: e310, to: e334, cc: 0, pbv: 0b11, p_count: 2, pid: e334 };
    let mut want = [cfg310, cfg334.clone()].concat();
    want.extend([
        init310,
        config334_to_master,
        init334_to_master,
        config334.clone(),
        init334.clone(),
        // The set-up command ([0184]) and its copies (825-835).
        msg(CONTROL, src, e310, NO_PARTICIPANT, CMD_START),
        msg(CONTROL, e310, e334, 0, CMD_START),
        msg(CONTROL, e310, src, 1, CMD_START),
        msg(CONTROL, e310, local, 2, CMD_START),
        msg(CONTROL, e334, r340, 0, CMD_START),
        msg(CONTROL, e334, r342, 1, CMD_START),
        // 840, 845, 850; 855: packet engine 334's barrier met to the master; 860.
        msg(CONTRIBUTION, src, e310, 1, 0),
        msg(CONTRIBUTION, r340, e334, 0, 0),
        msg(CONTRIBUTION, r342, e334, 1, 0),
        msg(RESPONSE, e334, e310, NO_PARTICIPANT, BARRIER_MET),
        msg(CONTRIBUTION, local, e310, 2, 0),
        // 865, 870, 875 and the upstream copy; 880, 885.
        msg(COMPLETION, e310, e334, 0, BARRIER_SATISFIED),
        msg(COMPLETION, e310, src, 1, BARRIER_SATISFIED),
        msg(COMPLETION, e310, local, 2, BARRIER_SATISFIED),
        msg(COMPLETION, e310, src, NO_PARTICIPANT, BARRIER_SATISFIED),
        msg(COMPLETION, e334, r340, 0, BARRIER_SATISFIED),
        msg(COMPLETION, e334, r342, 1, BARRIER_SATISFIED),
    ]);
    let senders = [ChannelKind::Up(n316), ChannelKind::Up(n318), ChannelKind::Up(n340), ChannelKind::Up(n342), ChannelKind::FromEngine(s306), ChannelKind::FromEngine(s330)];
    assert_eq!(on(&senders), want);
    // [0214]: one hop between 310 and 334, the ISL 306 → 330 between the boards: 810, 820, the command
    // and 865 down; 855 up.
    let mut down = cfg334;
    down.extend([config334, init334, msg(CONTROL, e310, e334, 0, CMD_START), msg(COMPLETION, e310, e334, 0, BARRIER_SATISFIED)]);
    assert_eq!(on(&[isl(&t, s306, s330)]), down);
    assert_eq!(on(&[isl(&t, s330, s306)]), [msg(RESPONSE, e334, e310, NO_PARTICIPANT, BARRIER_MET)]);
    // Local switch 308 and remote switch 332 take no part: nothing on any of their ISLs or engine ports.
    let quiet: Vec<ChannelKind> = [s308, s332]
        .into_iter()
        .flat_map(|s| (0..4).filter(move |&o| o != s).flat_map(move |o| [(s, o), (o, s)]))
        .map(|(a, b)| isl(&t, a, b))
        .chain([ChannelKind::ToEngine(s308), ChannelKind::ToEngine(s332), ChannelKind::FromEngine(s308), ChannelKind::FromEngine(s332)])
        .collect();
    assert!(on(&quiet).is_empty());
}
