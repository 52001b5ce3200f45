//! Security between jobs (issue 7): a job cannot disturb another job's reduction by sending frames to
//! its tree address with the wrong context or requester, nor reconfigure an engine it does not own.
//! TLP family, in the fabric, through the engines' real ports. `docs/fabric.md` §Faults.

use inswitch_fabric::campaign::{self, INT_SUM};
use inswitch_fabric::setup::{ContextPlan, Plan};
use inswitch_fabric::sim::{Delivery, Fabric, SimConfig};
use inswitch_fabric::topology::{LinkSpec, Ps, Topology};
use inswitch_fabric::wire;
use inswitch_frames::collective::NO_PARTICIPANT;
use inswitch_model::cpu::event;
use inswitch_model::packet_engine::EngineParams;
use inswitch_model::register_space::{offset, Reg};

const QUIET: Ps = Ps::MAX / 4;

/// Job A: source 0, participants 1, 2 (switch 0) and 5, 6 (switch 1), CC_ID 1. Job B: source 3,
/// participants 4 and 7 (switch 1), CC_ID 2. Node 7 belongs to B only; it is in switch 1's PBV table
/// (the table is shared by the engine's contexts, `docs/blocks/cpu.md` §Not built) but not in A's PBV.
fn two_jobs() -> (Fabric, ContextPlan, ContextPlan) {
    let t = Topology::flattened_butterfly(2, 4, LinkSpec::default()).unwrap();
    let cfg = SimConfig { hop_latency_ps: 50_000, engine_params: EngineParams { tick_cycles: 16, ..EngineParams::default() }, ..SimConfig::default() };
    let mut f = Fabric::new(t.clone(), cfg).unwrap();
    let a = campaign::job_plan(&t, 1, INT_SUM, 0, &[1, 2, 5, 6]);
    let b = campaign::job_plan(&t, 2, INT_SUM, 3, &[4, 7]);
    inswitch_fabric::drive::configure(&mut f, &Plan { contexts: vec![a.clone(), b.clone()] }, 0, &|e| 100 + e as u64).unwrap();
    campaign::set_timeouts(&mut f, 64);
    f.run_until_quiet(QUIET, &mut |_| {});
    (f, a, b)
}

fn root_results<'a>(f: &'a Fabric, c: &ContextPlan) -> Vec<&'a Delivery> {
    let root = f.topo.endpoints[c.source].id;
    f.log.iter().filter(|d| d.to == root && d.cc_id == c.cc_id && d.kind == 6 && d.p_id == NO_PARTICIPANT && d.code == 3).collect()
}

/// Runs A's reduction with its participants answering 2 us after the command; `rogue` frames from B's
/// node 7 go out 0.5 us after the command (while A's engines are waiting). Returns A's result at the
/// root.
fn run_a_with(f: &mut Fabric, a: &ContextPlan, rogue: &[(u16, Vec<u8>)]) -> (u16, bool, u64) {
    f.auto_respond(Some(2_000_000));
    let at = f.now() + 1_000_000;
    f.start(a, at);
    for (_, bytes) in rogue {
        f.send_from(7, at + 500_000, bytes.clone());
    }
    f.run_until_quiet(QUIET, &mut |_| {});
    let r = root_results(f, a);
    assert_eq!(r.len(), 1, "{r:?}");
    (r[0].contributions, r[0].error, r[0].operands[0])
}

fn contribution_frame(f: &Fabric, from: usize, to: u16, cc: u16, pid: u16, value: u64) -> Vec<u8> {
    // TID 0: the contexts are configured once, never re-initialized (001).
    let m = wire::contribution(cc, pid, 0, INT_SUM, vec![value, 0, 0, 0]);
    wire::message_frame(&m, f.topo.endpoints[from].id, to, 0x0ABC)
}

#[test]
fn a_foreign_node_cannot_change_another_jobs_result() {
    let (mut f, a, _b) = two_jobs();
    let expected: u64 = a.participants.iter().map(|&e| 100 + e as u64).sum();
    let (master, sub) = (f.topo.switches[0].engine_id, f.topo.switches[1].engine_id);
    let rogue = vec![
        // Wrong requester: A's context at A's subservient, without a P_ID (the engine looks the
        // requester up: node 7 is in the engine's table, but not in A's PBV).
        (sub, contribution_frame(&f, 7, sub, a.cc_id, NO_PARTICIPANT, 1 << 40)),
        // The same at A's master (node 7 is not in its table at all).
        (master, contribution_frame(&f, 7, master, a.cc_id, NO_PARTICIPANT, 1 << 41)),
        // Wrong context: a CC_ID no engine has.
        (master, contribution_frame(&f, 7, master, 0x777, NO_PARTICIPANT, 1 << 42)),
        // A RESPONSE (a partial result) for A at its master from a node: not a participant.
        (master, {
            let mut m = wire::contribution(a.cc_id, NO_PARTICIPANT, 0, INT_SUM, vec![1 << 43, 0, 0, 0]);
            m.header.kind = 5;
            wire::message_frame(&m, f.topo.endpoints[7].id, master, 0x0ABD)
        }),
    ];
    let before = (f.cpu_event_total(event::UNKNOWN_PARTICIPANT), f.cpu_event_total(event::DROP_UNKNOWN));
    let got = run_a_with(&mut f, &a, &rogue);
    assert_eq!(got, (4, false, expected), "A's result is the reduction of A's four contributions");
    let up = f.cpu_events(1).unwrap()[usize::from(event::UNKNOWN_PARTICIPANT)];
    let upm = f.cpu_events(0).unwrap()[usize::from(event::UNKNOWN_PARTICIPANT)];
    assert_eq!(f.cpu_event_total(event::UNKNOWN_PARTICIPANT) - before.0, 3, "subservient {up}, master {upm}");
    assert_eq!(f.cpu_event_total(event::DROP_UNKNOWN) - before.1, 1, "the unknown context is dropped and counted");
    // The rogue node is told (FAILURE UnknownParticipant), A's root is not disturbed by it.
    let rogue_id = f.topo.endpoints[7].id;
    assert_eq!(f.log.iter().filter(|d| d.to == rogue_id && d.kind == 8 && d.code == 4).count(), 3);
}

/// The P_ID saves the engine the reverse lookup of the requester ([0169]), but it is trusted only for
/// the device its PBV-table entry holds (`docs/blocks/cpu.md` §Messages, `WRONG_SENDER`): a foreign node that sends
/// A's CC_ID with the P_ID of one of A's participants is dropped and counted, not accepted in its place.
/// The same rule keeps a CONTRIBUTION passed up by a subservient (it keeps the P_ID of the subservient's
/// table) from being taken at the master for another participant (the fault campaign's former wrong
/// results, `docs/fabric.md` §Faults).
#[test]
fn a_spoofed_participant_id_is_rejected() {
    let (mut f, a, _b) = two_jobs();
    let expected: u64 = a.participants.iter().map(|&e| 100 + e as u64).sum();
    let sub = f.topo.switches[1].engine_id;
    // Node 5's bit in switch 1's PBV table.
    let pid = (0..128).find(|&i| f.engine(1).unwrap().cpu().config().pbv[i].device_id == f.topo.endpoints[5].id).unwrap() as u16;
    let rogue = vec![(sub, contribution_frame(&f, 7, sub, a.cc_id, pid, 1 << 40))];
    let before = f.cpu_event_total(event::WRONG_SENDER);
    let got = run_a_with(&mut f, &a, &rogue);
    assert_eq!(got, (4, false, expected));
    assert_eq!(f.cpu_events(1).unwrap()[usize::from(event::WRONG_SENDER)], 1, "dropped and counted at the subservient");
    assert_eq!(f.cpu_event_total(event::WRONG_SENDER) - before, 1);
    // Dropped unanswered: the rogue node gets no FAILURE for it.
    let rogue_id = f.topo.endpoints[7].id;
    assert_eq!(f.log.iter().filter(|d| d.to == rogue_id && d.kind == 8).count(), 0);
}

/// The register map locked to A's source (CTRL.lock, MASTER_ID, `docs/blocks/register_space.md`): writes from B's
/// node are rejected and counted (counter 0), the configuration is unchanged, and the owner can still
/// write. The CPU's tables (static entries, PBV copy) are written only through the register space's
/// CPU window (`docs/blocks/register_space.md` §CPU window), so the same lock guards them.
#[test]
fn a_foreign_node_cannot_reconfigure_an_engine_it_does_not_own() {
    let (mut f, a, _b) = two_jobs();
    let owner = f.topo.endpoints[a.source].id;
    let stranger = 7;
    let mut seq = 0x100u16;
    let mut write = |f: &mut Fabric, from: usize, engine: u16, off: u32, v: u32| {
        seq += 1;
        let src = f.topo.endpoints[from].id;
        let at = f.now() + 100_000;
        f.send_from(from, at, wire::register_write(seq, src, engine, off as u16, v));
        f.run_until_quiet(QUIET, &mut |_| {});
    };
    for s in 0..2 {
        let id = f.topo.switches[s].engine_id;
        write(&mut f, a.source, id, offset::MASTER_ID, u32::from(owner));
        write(&mut f, a.source, id, offset::CTRL, 1);
    }
    let snapshot = |f: &Fabric, s: usize| {
        let r = f.engine(s).unwrap().regs();
        (r.read(Reg::Validation), r.read(Reg::Route(0, 0)), r.read(Reg::Route(0, 1)), r.read(Reg::Ctrl), r.read(Reg::MasterId), r.read(Reg::Pbv(0)))
    };
    let before: Vec<_> = (0..2).map(|s| snapshot(&f, s)).collect();
    let rejected0: Vec<u32> = (0..2).map(|s| f.engine(s).unwrap().regs().counter(0)).collect();
    for s in 0..2 {
        let id = f.topo.switches[s].engine_id;
        // Turn off the LCRC check, steal the default route, unlock, take over, rewrite a PBV entry.
        let stranger_id = u32::from(f.topo.endpoints[stranger].id);
        for (off, v) in [(offset::VALIDATION, 0), (offset::ROUTE, 0xFFFF_0007), (offset::ROUTE + 4, 1 << 31 | 5), (offset::CTRL, 0), (offset::MASTER_ID, stranger_id), (offset::PBV, 0x0008_0008)] {
            write(&mut f, stranger, id, off, v);
        }
    }
    for s in 0..2 {
        assert_eq!(snapshot(&f, s), before[s], "engine {s}'s configuration unchanged");
        assert_eq!(f.engine(s).unwrap().regs().counter(0) - rejected0[s], 6, "engine {s}: six writes rejected and counted");
    }
    // The owner still configures its engines, and A still reduces correctly.
    let id0 = f.topo.switches[0].engine_id;
    write(&mut f, a.source, id0, offset::ERROR_REPORTING, 1);
    assert_eq!(f.engine(0).unwrap().regs().read(Reg::ErrorReporting), 1);
    let expected: u64 = a.participants.iter().map(|&e| 100 + e as u64).sum();
    assert_eq!(run_a_with(&mut f, &a, &[]), (4, false, expected));
}

// -------------------------------------------------------------------------------------------------
// Portals family (seed 002), on one engine driven through its ports: the fabric runs only the TLP
// family, so job B's frames are presented to the engine that reduces job A's tree directly.

mod portals {
    use inswitch_frames::ethernet::{EthernetHeader, SoftPortals};
    use inswitch_frames::portals::{ReductionFrame, ReductionHeader, FLAG_MULTICAST};
    use inswitch_model::cpu::event;
    use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams, PacketEngine};
    use inswitch_model::register_space::{offset, Reg};
    use inswitch_model::{Block, Wide};

    const ID: u16 = 0x0010;
    const PORT: u8 = 0;
    const SOURCE: u16 = 0x0001;
    const TREE: u16 = 3;
    /// Job A's VNI, cookie and sequence number (armed), job B's VNI (allowed on the port too).
    const VNI_A: u16 = 0x42;
    const VNI_B: u16 = 0x43;
    const COOKIE_A: u32 = 7;
    const SEQNO_A: u16 = 5;
    /// Register-space counter of the checker's VNI drops (2 + `input_checker::event::VNI`).
    const VNI_COUNTER: usize = 2 + inswitch_model::input_checker::event::VNI as usize;

    /// One engine, its port driven one beat per cycle; its CPU events and its output frames recorded.
    struct OneEngine {
        e: PacketEngine,
        events: Vec<(u8, u16)>,
        out: Vec<Vec<u8>>,
        cur: Vec<u8>,
        vl_taken: u8,
        family: bool,
    }

    impl OneEngine {
        fn new() -> OneEngine {
            let mut x = OneEngine { e: PacketEngine::power_on(EngineParams::default()).unwrap(), events: vec![], out: vec![], cur: vec![], vl_taken: 0, family: false };
            for _ in 0..3 {
                x.step(EngineIn { rst: true, ..x.idle() });
            }
            // The CPU's static entries are writable (through the back door too) once its clearing sweep
            // after the reset is over (docs/blocks/cpu.md §Where the tables live).
            while x.e.cpu().sweep_remaining() > 0 {
                x.step(x.idle());
            }
            x
        }

        fn idle(&self) -> EngineIn {
            EngineIn {
                m_axis_vl_tready: true,
                m_axis_egress_tready: true,
                m_reg_rsp_ready: true,
                vl_credit_return: self.vl_taken,
                cfg_port: PORT,
                cfg_engine_id: ID,
                cfg_family: self.family,
                ..EngineIn::default()
            }
        }

        fn step(&mut self, i: EngineIn) -> EngineOut {
            let o = self.e.step(&i);
            self.vl_taken = 0;
            if o.cpu_stat_valid {
                self.events.push((o.cpu_stat_event, o.cpu_stat_ctx));
            }
            if o.m_axis_vl_tvalid {
                self.vl_taken = 1;
                for k in 0..32 {
                    if o.m_axis_vl_tkeep >> k & 1 == 1 {
                        self.cur.push(o.m_axis_vl_tdata.byte(k));
                    }
                }
                if o.m_axis_vl_tlast {
                    self.out.push(std::mem::take(&mut self.cur));
                }
            }
            o
        }

        /// A CPU write on the back door, offered again while the register space's own CPU writes (its
        /// post-reset copy) take the cycle (`docs/blocks/packet_engine.md` §Timing).
        fn cpu_cfg(&mut self, addr: u16, data: u32) {
            loop {
                let i = EngineIn { cpu_cfg_wr_en: true, cpu_cfg_wr_addr: addr, cpu_cfg_wr_data: data, ..self.idle() };
                self.step(i);
                if !self.e.cpu_backdoor_lost() {
                    break;
                }
            }
        }

        /// Presents `frame` under port family `portals`, then idles 40 cycles (the CPU is done).
        fn send(&mut self, portals: bool, frame: &[u8]) {
            self.family = portals;
            let beats = frame.len().div_ceil(32);
            let mut b = 0;
            while b < beats {
                let chunk = &frame[b * 32..((b + 1) * 32).min(frame.len())];
                let mut d = Wide::ZERO;
                for (k, &x) in chunk.iter().enumerate() {
                    d.set_byte(k, x);
                }
                let i = EngineIn { s_axis_rx_tdata: d, s_axis_rx_tkeep: (1u64 << chunk.len()) - 1, s_axis_rx_tvalid: true, s_axis_rx_tlast: b + 1 == beats, ..self.idle() };
                if self.step(i).s_axis_rx_tready {
                    b += 1;
                }
            }
            for _ in 0..40 {
                let i = self.idle();
                self.step(i);
            }
        }

        fn reg_write(&mut self, off: u32, v: u32) {
            let f = inswitch_fabric::wire::register_write(1, SOURCE, ID, off as u16, v);
            self.send(false, &f);
        }

        fn count(&self, ev: u8) -> usize {
            self.events.iter().filter(|e| e.0 == ev).count()
        }
    }

    fn frame(sfa: u32, vni: u16, cookie: u32, seqno: u16, arm: bool, value: u64) -> Vec<u8> {
        let f = ReductionFrame {
            dfa: u32::from(TREE) << 3,
            sfa,
            vni,
            flags: FLAG_MULTICAST,
            header: ReductionHeader { cookie, count: u32::from(!arm), op: 0x14, arm, seqno, ..Default::default() },
            data: [value, 0, 0, 0],
            ..Default::default()
        };
        let eth = EthernetHeader { dst: [0x01, 0x00, 0x5E, 0, 0, 3], src: [2, 0, 0, 0, 0, 0x99], ethertype: 0x88B5 };
        SoftPortals::new(eth, f).unwrap().to_bytes().unwrap().to_vec()
    }

    /// Job A arms tree 3 (VNI 0x42, cookie 7, seqno 5) on an engine that reduces two children. Before
    /// A's children answer, job B sends contributions to the same tree with its own VNI (allowed on the
    /// port), with A's VNI but a wrong cookie, with A's VNI and cookie but a wrong seqno, and with a VNI
    /// the port does not allow: each is dropped and counted (the CPU's DROP_VNI / DROP_COOKIE /
    /// DROP_SEQNO, 002 (52)-(53); the checker's VNI counter), and A's partial result is A's two values
    /// with count 2.
    #[test]
    fn a_foreign_job_cannot_change_a_portals_reduction() {
        let mut x = OneEngine::new();
        // The tree's static entry: TREE mod STATIC_ENTRIES (direct-mapped, docs/blocks/cpu.md §Static table).
        let entry = 0x100 + 2 * inswitch_model::cpu::config::static_index(TREE, EngineParams::default().static_entries) as u16;
        for (a, d) in [(0x087u16, u32::from(ID)), (0x088, 0x10), (entry, 1 << 31 | 1 << 16 | u32::from(TREE)), (entry + 1, 2)] {
            x.cpu_cfg(a, d);
        }
        for (off, v) in [
            (offset::VNI_ALLOWED, 1 << 31 | u32::from(VNI_A)),
            (offset::VNI_ALLOWED + 4, 1 << 31 | u32::from(VNI_B)),
            (offset::ROUTE, 0),
            (offset::ROUTE + 4, 1 << 31 | u32::from(PORT)),
            (offset::MCAST_INDEX, u32::from(TREE)),
            (offset::MCAST_WAIT, 2),
            (offset::MCAST_KEY, 1 << 31),
        ] {
            x.reg_write(off, v);
        }
        assert_eq!(x.e.regs().read(Reg::VniAllowed(1)), 1 << 31 | u32::from(VNI_B));
        x.send(true, &frame(0x1, VNI_A, COOKIE_A, SEQNO_A, true, 0));
        assert_eq!(x.count(event::ARM), 1, "{:?}", x.events);
        // The arm passes on, unchanged (002 (39)-(40): the engine keeps a copy, the frame continues down).
        assert_eq!(x.out, vec![frame(0x1, VNI_A, COOKIE_A, SEQNO_A, true, 0)], "the arm passed on");
        x.out.clear();
        // Job B's frames.
        x.send(true, &frame(0x21, VNI_B, COOKIE_A, SEQNO_A, false, 1 << 40));
        x.send(true, &frame(0x22, VNI_A, COOKIE_A + 1, SEQNO_A, false, 1 << 41));
        x.send(true, &frame(0x23, VNI_A, COOKIE_A, SEQNO_A + 1, false, 1 << 42));
        x.send(true, &frame(0x24, 0x99, COOKIE_A, SEQNO_A, false, 1 << 43));
        assert_eq!((x.count(event::DROP_VNI), x.count(event::DROP_COOKIE), x.count(event::DROP_SEQNO)), (1, 1, 1), "{:?}", x.events);
        assert_eq!(x.e.regs().counter(VNI_COUNTER), 1, "the VNI the port does not allow is dropped by the checker");
        assert!(x.out.is_empty(), "nothing went up yet");
        // Job A's two children.
        x.send(true, &frame(0x11, VNI_A, COOKIE_A, SEQNO_A, false, 1000));
        x.send(true, &frame(0x12, VNI_A, COOKIE_A, SEQNO_A, false, 2000));
        assert_eq!(x.count(event::ACCEPT), 2);
        assert_eq!(x.out.len(), 1, "one partial result up: {:?}", x.events);
        let up = SoftPortals::parse(&x.out[0]).unwrap().frame;
        assert_eq!((up.vni, up.header.cookie, up.header.count, up.data[0]), (VNI_A, COOKIE_A, 2, 3000));
    }
}
