//! Helpers of `tests/manager.rs`: names to ids, a plan's PBV and INITIALIZATION steps, and the plan's
//! frames run through the register-space and CPU models (what the engines would hold after them).

use std::collections::{BTreeMap, VecDeque};

use inswitch_fabric::manager::plan;
use inswitch_fabric::manager::{Action, DeviceId, Manager, NodeId, Plan, SwitchId, TopologyMap};
use inswitch_frames::collective::{self, Body};
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::cpu::{Cpu, CpuIn, CpuParams};
use inswitch_model::message::{CollectiveMsg, Kind};
use inswitch_model::register_space::{RegisterSpace, RegisterSpaceIn};
use inswitch_model::Block;

pub fn node(t: &TopologyMap, name: &str) -> NodeId {
    t.node_named(name).unwrap_or_else(|| panic!("no node {name}"))
}

pub fn sw(t: &TopologyMap, name: &str) -> SwitchId {
    t.switch_named(name).unwrap_or_else(|| panic!("no switch {name}"))
}

/// PBV entries a plan programs on `engine`: (index, device ID, switch flag), by [0175]'s register writes
/// or (an engine below the master) in a FIG. 4 configuration message relayed by the master, which
/// carries the engine's whole table.
pub fn pbv_writes(p: &Plan, engine: SwitchId) -> Vec<(u8, DeviceId, bool)> {
    p.for_engine(engine)
        .flat_map(|s| match &s.action {
            &Action::PbvEntry { index, device_id, switch, .. } => vec![(index, device_id, switch)],
            Action::Configure { entries, .. } => entries.iter().enumerate().map(|(i, &(d, sw))| (i as u8, d, sw)).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The INITIALIZATION of `engine` in a plan: (upstream, CC_ID, PBV, p_count).
pub fn init_of(p: &Plan, engine: SwitchId) -> Option<(DeviceId, u16, u128, u16)> {
    p.for_engine(engine).find_map(|s| match s.action {
        Action::Initialize { upstream, cc_id, pbv, p_count, .. } => Some((upstream, cc_id, pbv, p_count)),
        _ => None,
    })
}

/// Every frame of a plan, emitted to bytes and parsed back (it must be the same TLP).
pub fn frames_round_trip(m: &Manager, p: &Plan) -> plan::Encoded {
    let enc = p.encode(m.topology()).expect("plan encodes");
    for f in &enc.frames {
        let bytes = f.tlp.to_bytes().expect("emit");
        let back = Tlp::parse(&bytes).expect("parse");
        assert_eq!(back, f.tlp, "frame of step {} round-trips", f.step);
    }
    enc
}

/// Replays a plan's register writes addressed to `dev` into a register-space model.
pub fn register_space_after(enc: &plan::Encoded, dev: DeviceId) -> RegisterSpace {
    register_space_and_cpu_writes(enc, dev).0
}

/// Replays a plan's register writes addressed to `dev` into a register-space model (the engine's strap
/// `cfg_engine_id` = `dev`); returns it with every CPU write it forwarded on `cpu_cfg_wr_*`, the
/// post-reset copy first (`docs/blocks/register_space.md` §CPU window).
pub fn register_space_and_cpu_writes(enc: &plan::Encoded, dev: DeviceId) -> (RegisterSpace, Vec<(u16, u32)>) {
    let mut r = RegisterSpace::new();
    let mut cpu = Vec::new();
    let idle = RegisterSpaceIn { m_reg_rsp_ready: true, cfg_engine_id: dev, ..Default::default() };
    let mut step = |r: &mut RegisterSpace, i: &RegisterSpaceIn| {
        let o = r.step(i);
        if o.cpu_cfg_wr_en {
            cpu.push((o.cpu_cfg_wr_addr, o.cpu_cfg_wr_data));
        }
        o
    };
    // After a reset the register space first copies its CPU registers to the CPU, one write per cycle,
    // and clears its copy of the static entries, and takes no access until both are done
    // (docs/blocks/register_space.md §CPU window, §Static entries).
    for _ in 0..r.reset_cycles() {
        step(&mut r, &idle);
    }
    for f in &enc.frames {
        // A FIG. 4 configuration message for this engine (P_ID = `dev`), sent to its master and relayed
        // down the tree (docs/blocks/cpu.md §Messages): its input checker turns it into register writes
        // (docs/blocks/input_checker.md §Configuration messages), replayed here as the checker's model
        // makes them.
        if let Some(w) = config_writes_for(f, dev) {
            for a in w {
                step(&mut r, &RegisterSpaceIn { s_reg_valid: true, s_reg_write: true, s_reg_addr: a.addr, s_reg_be: a.be, s_reg_wdata: a.wdata, s_reg_src: a.src, ..idle });
                let o = step(&mut r, &idle);
                assert_eq!(o.m_reg_rsp_status, 0, "configuration write to {:#x} accepted", a.addr);
                step(&mut r, &idle);
            }
            continue;
        }
        if f.to != dev {
            continue;
        }
        let Header::Memory { req, address } = &f.tlp.header else { continue };
        let a = address.byte_address();
        assert_eq!(a >> 16, u64::from(dev), "[0175]: the write is in the engine's own 64 KiB");
        assert_eq!(a & 0xF000, 0xC000, "[0175]: engine at 0xC000");
        let data = u32::from_le_bytes(f.tlp.payload[..4].try_into().unwrap());
        step(
            &mut r,
            &RegisterSpaceIn { s_reg_valid: true, s_reg_write: true, s_reg_addr: (a & 0xFFF) as u16, s_reg_be: req.first_be, s_reg_wdata: data, s_reg_src: req.requester_id, ..idle },
        );
        let o = step(&mut r, &idle);
        assert_eq!(o.m_reg_rsp_status, 0, "write to {a:#x} accepted");
        // A PBV / PBV_FLAGS DW with both entries' bytes enabled forwards a second CPU write.
        step(&mut r, &idle);
    }
    (r, cpu)
}

/// The register writes of frame `f` if it is a configuration message for engine `dev` (P_ID = `dev`).
pub fn config_writes_for(f: &plan::PlannedFrame, dev: DeviceId) -> Option<Vec<inswitch_model::input_checker::RegAccess>> {
    let m = collective::from_vdm(&f.tlp).ok()?;
    if m.header.kind != 1 || m.header.p_id != dev {
        return None;
    }
    let payload = m.to_bytes().ok()?;
    let mut c = [0u8; inswitch_model::input_checker::CAPTURE_BYTES];
    c[..payload.len()].copy_from_slice(&payload);
    let w = inswitch_model::input_checker::ConfigWrites::new(&c, 0, f.tlp.requester_id().unwrap_or(0), 0);
    Some((0..w.count()).map(|k| w.write(k)).collect())
}

/// Replays a plan's frames for `engine` into a CPU model: its register writes through the register-space
/// model (the CPU writes it forwards, `docs/blocks/register_space.md` §CPU window), then its INITIALIZATION messages.
pub fn cpu_after(m: &Manager, enc: &plan::Encoded, engine: SwitchId) -> Cpu {
    cpus_after(m, enc).remove(&m.topology().switch(engine).device_id).unwrap()
}

/// Every engine's CPU after the plan's frames: its register writes, then the INITIALIZATIONs offered to
/// the engines they are addressed to (all to a tree's master, docs/blocks/cpu.md §Messages) and every CPU output
/// addressed to another engine fed to it, so that the masters' relays reach the engines below
/// (000 [0106]-[0107]). Outputs to end nodes (acknowledgements) are dropped.
/// Steps the CPU models `cycles` cycles, each taking the head of its queue of collective messages;
/// a message a CPU sends goes to its destination's queue, or to `elsewhere` if no CPU has that ID.
pub fn exchange(cpus: &mut BTreeMap<DeviceId, Cpu>, queues: &mut BTreeMap<DeviceId, VecDeque<CollectiveMsg>>, cycles: usize, elsewhere: &mut dyn FnMut(CollectiveMsg)) {
    for _ in 0..cycles {
        let mut sent = Vec::new();
        for (dev, cpu) in cpus.iter_mut() {
            let mut i = CpuIn { m_msg_ready: true, ..Default::default() };
            let offered = queues[dev].front().copied();
            if let Some(msg) = offered {
                i.set_msg(&msg);
            }
            let o = cpu.step(&i);
            if offered.is_some() && o.s_msg_ready {
                queues.get_mut(dev).unwrap().pop_front();
            }
            if o.m_msg_valid {
                sent.push(o.msg());
            }
        }
        for msg in sent {
            match queues.get_mut(&(msg.dst as u16)) {
                Some(q) => q.push_back(msg),
                None => elsewhere(msg),
            }
        }
    }
}

pub fn cpus_after(m: &Manager, enc: &plan::Encoded) -> BTreeMap<DeviceId, Cpu> {
    let t = m.topology();
    let mut cpus = BTreeMap::new();
    let mut queues: BTreeMap<DeviceId, VecDeque<CollectiveMsg>> = BTreeMap::new();
    for s in t.switch_ids() {
        let dev = t.switch(s).device_id;
        // The CPU the manager planned for: its static entries are the engine's capacity (the manager
        // puts a context at its key's entry, key mod that).
        let mut cpu = Cpu::new(CpuParams { static_entries: t.switch(s).capacity.contexts, ..CpuParams::default() }).unwrap();
        // Static entries are writable once the clearing sweep after the reset is over (docs/blocks/cpu.md
        // §Where the tables live); the engine's register space holds its accesses as long.
        while cpu.sweep_remaining() > 0 {
            cpu.step(&CpuIn::default());
        }
        for (a, d) in register_space_and_cpu_writes(enc, dev).1 {
            cpu.step(&CpuIn::cfg(a, d));
        }
        assert_eq!(cpu.config().engine_id, dev, "the post-reset copy gives the CPU the strap");
        cpus.insert(dev, cpu);
        queues.insert(dev, Default::default());
    }
    for f in enc.frames.iter().filter(|f| matches!(f.tlp.header, Header::Message(_))) {
        let msg = collective::from_vdm(&f.tlp).expect("a collective VDM");
        let Body::Initialization(b) = msg.body else { continue };
        // The input checker's normalization (docs/blocks/collective_message.md), written out.
        let n = CollectiveMsg {
            kind: Kind::INITIALIZATION,
            ctx: msg.header.cc_id,
            src: u32::from(f.tlp.requester_id().unwrap()),
            dst: u32::from(f.to),
            pid: msg.header.p_id,
            count: u32::from(b.p_count),
            posted: !msg.header.non_posted,
            op: b.operation,
            pbv: b.pbv,
            ..Default::default()
        };
        queues.get_mut(&f.to).expect("an INITIALIZATION to an engine").push_back(n);
    }
    exchange(&mut cpus, &mut queues, 20_000, &mut |_| {});
    assert!(queues.values().all(|q| q.is_empty()), "every INITIALIZATION taken");
    cpus
}
