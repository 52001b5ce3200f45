//! Configuration plans: the ordered per-engine actions that set up or tear down a tree, and their
//! encoding into frames (`crates/frames`): memory writes into the engines' register windows (the CPU's
//! configuration through the register space's CPU window, `docs/blocks/register_space.md` §CPU window) and collective
//! messages. `docs/manager.md` §5.

use inswitch_frames::collective::{self, Body, CollectiveMessage, CommonHeader, ConfigFixed, ControlBody, InitBody, Command};
use inswitch_frames::tlp::{Header, Tlp};
use inswitch_model::cpu::config as cpu_cfg;
use inswitch_model::input_checker::config::CONFIG_RELAY_SLOTS;
use inswitch_model::register_space::{mcast_entry_writes, offset, reset as reg_reset, static_entry_writes, ENGINE_BASE, MAX_CPU_STATIC_ENTRIES};

use super::topology::{DeviceId, NodeId, SwitchId, TopologyMap};
use super::job::{Family, JobId, Role};

/// Ports a multicast PORTS register can name (bits 15:0).
pub const MCAST_PORTS: u8 = 16;
/// Bits of a PBV_FLAGS half-DW (one PBV entry): bit 0 valid, bit 1 switch (`docs/blocks/register_space.md`).
const PBV_FLAG_VALID: u32 = 1;
const PBV_FLAG_SWITCH: u32 = 1 << 1;
/// Bytes between consecutive `VNI_ALLOWED` entries (`docs/blocks/register_space.md`).
pub const VNI_STRIDE: u32 = 4;
/// Bit 31 of a `VNI_ALLOWED` entry: the entry is valid.
pub const VNI_VALID: u32 = 1 << 31;
/// First Byte Enable of a whole-DW register write.
const ALL_BYTES: u8 = 0xF;

/// One thing to do on one engine (or end node).
// Each variant's doc names its fields; a doc line per field would repeat it.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// PBV-table entry `index` of `engine` := `device_id` (000 \[0155\], \[0157\], \[0175\]-\[0178\]); `switch`:
    /// the participant is an engine below this one (000 \[0096\]). Encodes as the 2-byte memory write of
    /// \[0175\] into the PBV table, then a 2-byte write of the entry's PBV_FLAGS (valid, switch); the
    /// register space forwards both to the CPU's own table (`docs/blocks/register_space.md` §CPU window).
    PbvEntry { engine: SwitchId, index: u8, device_id: DeviceId, switch: bool },
    /// The CPU's PBV entry `index` is invalidated (no context refers to it any more): its PBV_FLAGS
    /// half written 0.
    PbvClear { engine: SwitchId, index: u8 },
    /// CPU static entry `slot` := the tree's context (`docs/blocks/cpu.md` §Context model, §Ports): key (CC_ID or multicast
    /// tree), family, role (000 \[0104\]-\[0111\]), Portals wait count, reduce to one target (a master's
    /// result to its `upstream` only, 003 \[0052\]). Encodes as `STATIC[slot].WAIT` (wait count, bit 31 one
    /// target), then `STATIC[slot].KEY` (writing the key makes the context at the CPU): through the
    /// register space's window, `STATIC_INDEX` := slot, `STATIC_WAIT`, `STATIC_KEY`.
    StaticEntry { engine: SwitchId, slot: u16, key: u16, family: Family, role: Role, wait: u32, one_target: bool },
    /// CPU static entry `slot` is freed (`STATIC_INDEX` := slot, `STATIC_KEY` written 0).
    StaticClear { engine: SwitchId, slot: u16 },
    /// The multicast entry of `tree` in the register space (002 (39), (49)-(50)): tree → downward ports
    /// and the wait count (children). Encodes as MCAST_INDEX := tree, MCAST_WAIT, MCAST_PORTS, then
    /// MCAST_KEY (the commit) memory writes (`docs/blocks/register_space.md` §Multicast entries).
    Multicast { engine: SwitchId, tree: u16, wait: u32, ports: Vec<u8> },
    /// The multicast entry of `tree` is invalidated (MCAST_INDEX := tree, MCAST_KEY written with valid = 0).
    MulticastClear { engine: SwitchId, tree: u16 },
    /// `VNI_ALLOWED[slot]` := valid | `vni` (002 (52), (99)): the engine's input checker admits the
    /// Portals frames of this protection key. One memory write into the register space.
    Vni { engine: SwitchId, slot: u8, vni: u16 },
    /// `VNI_ALLOWED[slot]` is invalidated (no tree of the engine uses the VNI any more).
    VniClear { engine: SwitchId, slot: u8 },
    /// `ENGINE_SFA` := `sfa` (002 (94)): the source fabric address of the engine's own Portals frames
    /// (its partial results); the register space forwards it to the CPU. One memory write.
    EngineSfa { engine: SwitchId, sfa: u32 },
    /// INITIALIZATION (000 \[0141\], \[0165\]-\[0167\]) of the context on `engine`, sent by `upstream`
    /// (the parent engine, or the source at the master): the engine stores `upstream` as the requester
    /// its results go to (`docs/blocks/cpu.md` §Messages), so this is how it learns its parent (003 \[0051\]).
    /// `relay`: the tree's master when `engine` is below it (000 \[0106\]-\[0107\], \[0157\]): the frame
    /// goes from the step's requester (the source) to the master with P_ID = `engine`'s device ID, and
    /// the engines replicate it down to `engine` (`docs/blocks/cpu.md` §Messages), the last hop from `upstream`.
    /// `None`: sent to `engine` from `upstream`.
    Initialize { engine: SwitchId, upstream: DeviceId, cc_id: u16, pbv: u128, p_count: u16, op: u8, tid: u8, relay: Option<SwitchId> },
    /// A FIG. 4 configuration message (000 \[0154\]-\[0158\]) for the PBV table of `engine`, below the
    /// tree's `master`: entries 0 .. n-1 := `entries` (device ID, switch), the whole table the engine will
    /// hold. Sent from the step's requester (the source) to the master with P_ID = `engine`'s device ID
    /// and CC_ID = the tree's; the master's checker hands it to its CPU, which relays it down the
    /// context's switch participants as it relays an INITIALIZATION (\[0157\]: the master engine sends
    /// one configuration packet to each packet engine; multi-hop, \[0107\]), and `engine`'s checker turns it
    /// into the PBV and PBV_FLAGS writes of the entries (and the fixed writes: the timeouts and
    /// error-reporting registers at their reset values), `docs/blocks/input_checker.md` §Configuration
    /// messages. It replaces `engine`'s [`Action::PbvEntry`] steps when the table is a prefix without a
    /// hole and its slots fit the relay ([`relayed_table`]); it must follow the INITIALIZATIONs of the
    /// engines it passes (they relay it with their stored context).
    Configure { engine: SwitchId, master: SwitchId, cc_id: u16, entries: Vec<(DeviceId, bool)> },
    /// CONTROL RESET of the context on `engine` (\[0142\], \[0168\]): the descriptor and stored state freed.
    /// `relay`: the tree's master when `engine` is below it and reached through engines that are up
    /// (000 \[0161\], \[0172\], \[0107\]): the step has no frame of its own; the master's RESET (its own
    /// step, from the source) is replicated by each engine to its PBV participants, the engines below
    /// among them (the CPU's CONTROL rule, `docs/blocks/cpu.md` §Messages), so the copy reaches `engine`
    /// from its parent. `None`: sent to `engine` with `upstream` as the requester.
    Reset { engine: SwitchId, upstream: DeviceId, cc_id: u16, relay: Option<SwitchId> },
    /// End node configuration (003 \[0050\]): where `node` sends its (node-level) result; host software,
    /// no frame. `p_id` is its PBV index at `send_to` (0xFFFF when it sends to its representative).
    EndNode { node: NodeId, send_to: DeviceId, cc_id: u16, p_id: u16, pre_reduce_from: Vec<DeviceId> },
    /// A target that reduces several roots' end results into one (003 \[0062\]); host software, no frame.
    /// `send_down`: the roots are SUBSERVIENT to the node (an all-reduce, `Job::combines_at_target`): it
    /// takes each root's end result as a RESPONSE and answers every root with a COMPLETION carrying the
    /// job's result, which the root engines replicate down their trees; else it only collects the
    /// COMPLETIONs the roots' masters send it.
    Target { node: NodeId, roots: Vec<DeviceId>, cc_ids: Vec<u16>, send_down: bool },
    /// The end node is no longer part of the context (host software, no frame).
    EndNodeClear { node: NodeId, cc_id: u16 },
}

impl Action {
    /// The engine the action configures, if it is an engine action.
    pub fn engine(&self) -> Option<SwitchId> {
        match *self {
            Action::PbvEntry { engine, .. }
            | Action::PbvClear { engine, .. }
            | Action::StaticEntry { engine, .. }
            | Action::StaticClear { engine, .. }
            | Action::Multicast { engine, .. }
            | Action::MulticastClear { engine, .. }
            | Action::Vni { engine, .. }
            | Action::VniClear { engine, .. }
            | Action::EngineSfa { engine, .. }
            | Action::Initialize { engine, .. }
            | Action::Configure { engine, .. }
            | Action::Reset { engine, .. } => Some(engine),
            Action::EndNode { .. } | Action::Target { .. } | Action::EndNodeClear { .. } => None,
        }
    }
}

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The job.
    pub job: JobId,
    /// Index of the tree in the job's tree list.
    pub tree: usize,
    /// Device that sends the step's frames (requester ID): the source for the master engine, the master
    /// engine for the others (000 \[0175\]: the master writes the subservient switches' PBV tables).
    pub requester: DeviceId,
    /// What to do.
    pub action: Action,
}

/// An ordered list of steps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The steps, in the order they are to be applied.
    pub steps: Vec<Step>,
}

/// A frame of a plan: a TLP for the fabric and the device it is addressed to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedFrame {
    /// Index of the step that produced it.
    pub step: usize,
    /// Destination device (the engine's switch).
    pub to: DeviceId,
    /// The TLP.
    pub tlp: Tlp,
}

/// A plan turned into what travels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    /// Frames, in plan order. A relayed RESET step (`Action::Reset` with `relay`) has none: the
    /// master's copies carry it.
    pub frames: Vec<PlannedFrame>,
    /// Steps with no frame (end-node and target configuration: host software).
    pub host_steps: Vec<usize>,
}

/// Why an action cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named in each variant's message
pub enum EncodeError {
    /// A multicast port does not fit the 16-bit PORTS register.
    #[error("step {step}: multicast port {port} does not fit PORTS[15:0] (docs/blocks/register_space.md)")]
    PortOutOfRange { step: usize, port: u8 },
    /// A static slot beyond the CPU's largest static table, which `STATIC_INDEX` reaches (4096 entries;
    /// an engine with fewer answers STATIC_KEY / STATIC_WAIT at an index beyond its own UNMAPPED).
    #[error("step {step}: static slot {slot} is beyond the CPU's largest static table ({MAX_CPU_STATIC_ENTRIES} entries, docs/blocks/register_space.md)")]
    SlotOutOfRange { step: usize, slot: u16 },
    /// The frames crate refused the frame.
    #[error("step {step}: frame encoder: {detail}")]
    Frame { step: usize, detail: String },
}

/// The register-space address of `offset` in switch `dev`'s engine window (\[0175\], `docs/blocks/register_space.md`).
pub fn register_address(dev: DeviceId, off: u32) -> u64 {
    u64::from(dev) << 16 | u64::from(ENGINE_BASE) | u64::from(off & 0xFFF)
}

/// A 1-DW memory write of `value` with First BE `be` to `dev`'s register window at DW-aligned `off`.
pub fn register_write(requester: DeviceId, tag: u16, dev: DeviceId, off: u32, value: u32, be: u8) -> Result<Tlp, inswitch_frames::Error> {
    let mut t = Tlp::memory_write(requester, tag, register_address(dev, off & !3), value.to_le_bytes().to_vec())?;
    if let Header::Memory { req, .. } = &mut t.header {
        req.first_be = be;
    }
    Ok(t)
}

/// The 2-byte write of PBV entry `index` := `device_id` (\[0175\]: entry i at byte offset 2i): First BE
/// 0011 for an even entry, 1100 for an odd one, data in the enabled lanes (little-endian).
pub fn pbv_write(requester: DeviceId, tag: u16, dev: DeviceId, index: u8, device_id: DeviceId) -> Result<Tlp, inswitch_frames::Error> {
    let off = offset::PBV + 2 * u32::from(index);
    let (be, v) = if off % 4 == 0 { (0x3, u32::from(device_id)) } else { (0xC, u32::from(device_id) << 16) };
    register_write(requester, tag, dev, off, v, be)
}

/// The 2-byte write of PBV entry `index`'s flags into PBV_FLAGS (the byte lanes of the PBV table's DW,
/// `docs/blocks/register_space.md`): `valid`, `switch` (000 \[0096\]); the register space forwards the entry's CPU
/// word (device ID from the PBV table, these flags).
pub fn pbv_flags_write(requester: DeviceId, tag: u16, dev: DeviceId, index: u8, valid: bool, switch: bool) -> Result<Tlp, inswitch_frames::Error> {
    let off = offset::PBV_FLAGS + 2 * u32::from(index);
    let flags = if valid { PBV_FLAG_VALID } else { 0 } | if switch { PBV_FLAG_SWITCH } else { 0 };
    let (be, v) = if off % 4 == 0 { (0x3, flags) } else { (0xC, flags << 16) };
    register_write(requester, tag, dev, off, v, be)
}


fn message(kind: collective::Kind, cc_id: u16, body: Body) -> CollectiveMessage {
    CollectiveMessage {
        header: CommonHeader { version: collective::VERSION, kind: kind.into(), cc_id, p_id: collective::NO_PARTICIPANT, ..Default::default() },
        body,
    }
}

/// The INITIALIZATION message of an [`Action::Initialize`] (posted: the manager does not wait for the
/// acknowledgement of `docs/blocks/cpu.md` §Messages), carrying the tree's transaction ID `tid` (001: the engine takes
/// it as the context's).
pub fn init_message(cc_id: u16, pbv: u128, p_count: u16, op: u8, tid: u8) -> CollectiveMessage {
    let mut m = message(collective::Kind::Initialization, cc_id, Body::Initialization(InitBody { p_count, operation: op, pbv, ..Default::default() }));
    m.header.tid = tid;
    m
}

/// The table of a [`Action::Configure`], if a configuration message can carry it: `table[i]` is PBV
/// entry i of the engine (device ID and switch flag, `None` free); the entries in use must be 0 .. n-1
/// (the message writes entries from 0 on and would make a free one valid), and their slots (n device IDs
/// and one subservient ID per switch entry) must fit the relay through the CPU (`CONFIG_RELAY_SLOTS`).
pub fn relayed_table(table: &[Option<(DeviceId, bool)>]) -> Option<Vec<(DeviceId, bool)>> {
    let used = table.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
    let entries: Vec<(DeviceId, bool)> = table[..used].iter().copied().collect::<Option<_>>()?;
    let switches = entries.iter().filter(|e| e.1).count();
    (!entries.is_empty() && entries.len() + switches <= CONFIG_RELAY_SLOTS).then_some(entries)
}

/// The configuration message of an [`Action::Configure`] (posted, as the INITIALIZATIONs): `ConfigFixed`
/// with the master's device ID, the entries' IDs, and the switch entries' IDs as the subservient engines
/// (their PBV_FLAGS switch bit); ISL port, validation 0 (no register holds them); the error-reporting
/// and timeout registers it also writes keep their reset values (no block reads them).
pub fn config_message(cc_id: u16, master: DeviceId, engine: DeviceId, entries: &[(DeviceId, bool)]) -> CollectiveMessage {
    let device_ids: Vec<u16> = entries.iter().map(|e| e.0).collect();
    let subservient_ids: Vec<u16> = entries.iter().filter(|e| e.1).map(|e| e.0).collect();
    let fixed = ConfigFixed {
        master_id: master,
        isl_port: 0,
        validation: 0,
        error_reporting: 0,
        n_subservient: subservient_ids.len() as u8,
        n_devices: device_ids.len() as u16,
        subservient_timeout: reg_reset::SUB_TIMEOUT,
        master_timeout: reg_reset::MASTER_TIMEOUT,
    };
    let mut m = message(collective::Kind::Configuration, cc_id, Body::Configuration { fixed, device_ids, subservient_ids });
    m.header.p_id = engine;
    m
}

/// The CONTROL RESET message of an [`Action::Reset`].
pub fn reset_message(cc_id: u16) -> CollectiveMessage {
    message(collective::Kind::Control, cc_id, Body::Control(ControlBody { command: Command::Reset.into(), ..Default::default() }))
}

impl Plan {
    /// Appends a step.
    pub fn push(&mut self, job: JobId, tree: usize, requester: DeviceId, action: Action) {
        self.steps.push(Step { job, tree, requester, action });
    }

    /// Appends another plan.
    pub fn extend(&mut self, other: Plan) {
        self.steps.extend(other.steps);
    }

    /// Steps that touch `engine`.
    pub fn for_engine(&self, engine: SwitchId) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(move |s| s.action.engine() == Some(engine))
    }

    /// Encodes every step as frames through the frames crate: register writes as memory writes into the
    /// engine window (the CPU's configuration through the CPU window), messages as vendor-defined
    /// messages routed by ID. Tags count the frames modulo 256.
    pub fn encode(&self, topo: &TopologyMap) -> Result<Encoded, EncodeError> {
        self.encode_with(&|s| topo.switch(s).device_id)
    }

    /// [`Self::encode`] with the engines' device IDs from `device_of` instead of a map (the simulator's
    /// built-in plans, on fabrics the map cannot describe, e.g. more than 256 ports on a switch).
    pub fn encode_with(&self, device_of: &dyn Fn(SwitchId) -> DeviceId) -> Result<Encoded, EncodeError> {
        let mut out = Encoded::default();
        for (i, step) in self.steps.iter().enumerate() {
            let err = |e: inswitch_frames::Error| EncodeError::Frame { step: i, detail: e.to_string() };
            let req = step.requester;
            let frame = |out: &mut Encoded, to: DeviceId, tlp: Tlp| out.frames.push(PlannedFrame { step: i, to, tlp });
            // A full-DW register write of `v` at `off` of `engine`'s window.
            let write = |out: &mut Encoded, engine: SwitchId, off: u32, v: u32| -> Result<(), EncodeError> {
                let dev = device_of(engine);
                let t = register_write(req, next_tag(out), dev, off, v, ALL_BYTES).map_err(err)?;
                frame(out, dev, t);
                Ok(())
            };
            let slot_ok = |slot: u16| if usize::from(slot) < MAX_CPU_STATIC_ENTRIES { Ok(()) } else { Err(EncodeError::SlotOutOfRange { step: i, slot }) };
            match &step.action {
                &Action::PbvEntry { engine, index, device_id, switch } => {
                    let dev = device_of(engine);
                    // [0175]'s write of the ID, then the CPU's flags: the second forwarded word is final.
                    let t = pbv_write(req, next_tag(&out), dev, index, device_id).map_err(err)?;
                    frame(&mut out, dev, t);
                    let t = pbv_flags_write(req, next_tag(&out), dev, index, true, switch).map_err(err)?;
                    frame(&mut out, dev, t);
                }
                &Action::PbvClear { engine, index } => {
                    let dev = device_of(engine);
                    let t = pbv_flags_write(req, next_tag(&out), dev, index, false, false).map_err(err)?;
                    frame(&mut out, dev, t);
                }
                &Action::StaticEntry { engine, slot, key, family, role, wait, one_target } => {
                    slot_ok(slot)?;
                    // docs/blocks/register_space.md §CPU window: INDEX, WAIT, then KEY (writing the key makes the context).
                    let key = cpu_cfg::static_word0(true, family == Family::Portals, role.code(), key);
                    for (off, v) in static_entry_writes(slot, key, cpu_cfg::static_word1(wait, one_target)) {
                        write(&mut out, engine, off, v)?;
                    }
                }
                &Action::StaticClear { engine, slot } => {
                    slot_ok(slot)?;
                    write(&mut out, engine, offset::STATIC_INDEX, u32::from(slot))?;
                    write(&mut out, engine, offset::STATIC_KEY, 0)?;
                }
                Action::Multicast { engine, tree, wait, ports } => {
                    let mut bits = 0u32;
                    for &p in ports {
                        if p >= MCAST_PORTS {
                            return Err(EncodeError::PortOutOfRange { step: i, port: p });
                        }
                        bits |= 1 << p;
                    }
                    // docs/blocks/register_space.md: INDEX, WAIT and PORTS, then KEY (writing KEY commits the entry).
                    for (off, v) in mcast_entry_writes(*tree, true, *wait, bits as u16) {
                        write(&mut out, *engine, off, v)?;
                    }
                }
                &Action::MulticastClear { engine, tree } => {
                    let [index, .., key] = mcast_entry_writes(tree, false, 0, 0);
                    for (off, v) in [index, key] {
                        write(&mut out, engine, off, v)?;
                    }
                }
                &Action::Vni { engine, slot, vni } => write(&mut out, engine, offset::VNI_ALLOWED + VNI_STRIDE * u32::from(slot), VNI_VALID | u32::from(vni))?,
                &Action::VniClear { engine, slot } => write(&mut out, engine, offset::VNI_ALLOWED + VNI_STRIDE * u32::from(slot), 0)?,
                &Action::EngineSfa { engine, sfa } => write(&mut out, engine, offset::ENGINE_SFA, sfa)?,
                &Action::Initialize { engine, upstream, cc_id, pbv, p_count, op, tid, relay } => {
                    let dev = device_of(engine);
                    let mut m = init_message(cc_id, pbv, p_count, op, tid);
                    // Relayed: to the master, P_ID naming the engine it is for (docs/blocks/cpu.md §Messages).
                    let (from, to) = match relay {
                        Some(master) => {
                            m.header.p_id = dev;
                            (req, device_of(master))
                        }
                        None => (upstream, dev),
                    };
                    let t = collective::to_vdm(&m, from, to, next_tag(&out) as u8).map_err(err)?;
                    frame(&mut out, to, t);
                }
                Action::Configure { engine, master, cc_id, entries } => {
                    let to = device_of(*master);
                    let m = config_message(*cc_id, to, device_of(*engine), entries);
                    let t = collective::to_vdm(&m, req, to, next_tag(&out) as u8).map_err(err)?;
                    frame(&mut out, to, t);
                }
                // Relayed: the master's copies carry it (the master's own step sends the frame).
                Action::Reset { relay: Some(_), .. } => {}
                &Action::Reset { engine, upstream, cc_id, relay: None } => {
                    let dev = device_of(engine);
                    let t = collective::to_vdm(&reset_message(cc_id), upstream, dev, next_tag(&out) as u8).map_err(err)?;
                    frame(&mut out, dev, t);
                }
                Action::EndNode { .. } | Action::Target { .. } | Action::EndNodeClear { .. } => out.host_steps.push(i),
            }
        }
        Ok(out)
    }
}

/// Tags count the plan's frames modulo 256 (they only need to differ between outstanding requests).
fn next_tag(e: &Encoded) -> u16 {
    (e.frames.len() % 256) as u16
}
