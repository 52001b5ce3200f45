//! Fault injection for the fabric simulator (issue 7, `docs/fabric.md` §Faults).
//!
//! One seeded generator ([`ChaCha8Rng`]) decides, for every frame that enters a link channel (end node
//! ↔ switch, ISL), whether it is dropped, duplicated or corrupted (one bit flipped, so its LCRC no longer
//! matches: the engine's input checker drops it on `LCRC` and counts it; an end node drops it too), and,
//! for every contribution an end node sends, whether it is late (sent after an extra random delay,
//! possibly after the engines' timeouts). Directed rules drop or duplicate the frames that match a
//! pattern (e.g. the COMPLETION to one participant: a lost Exit, 001). Link failure (a channel down)
//! and engine failure (the engine stops: no more steps, frames to it lost) are switched on at a time by
//! the test; engine exhaustion fills an engine's descriptors with filler contexts
//! ([`crate::sim::Fabric::fill_descriptors`]).
//!
//! Every fault is logged ([`Fault`]: kind, time, channel, frame) so a failing test prints the seed and
//! the list, and the run can be reproduced from the seed.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::topology::Ps;
use crate::wire::{self, LinkFrame};

/// Collective kinds (docs/frames.md §4) as bits of [`FaultConfig::kinds`].
pub mod kinds {
    /// INITIALIZATION.
    pub const INITIALIZATION: u16 = 1 << 2;
    /// CONTROL (START; STOP and RESET only when [`super::FaultConfig::spare_teardown`] is off).
    pub const CONTROL: u16 = 1 << 3;
    /// CONTRIBUTION.
    pub const CONTRIBUTION: u16 = 1 << 4;
    /// RESPONSE.
    pub const RESPONSE: u16 = 1 << 5;
    /// COMPLETION.
    pub const COMPLETION: u16 = 1 << 6;
    /// RETRY.
    pub const RETRY: u16 = 1 << 7;
    /// FAILURE.
    pub const FAILURE: u16 = 1 << 8;
    /// Every collective kind.
    pub const ALL: u16 = 0x1FC;
    /// The data path of a reduction: command, contributions, partial results, results.
    pub const DATA_PATH: u16 = CONTROL | CONTRIBUTION | RESPONSE | COMPLETION;
    /// Soft Portals reduction frames (seed 002; not a collective kind): dropped at the `drop` rate; only
    /// arms (`rt_arm`) are duplicated, at the `duplicate` rate; none is corrupted. A Portals
    /// contribution carries no identity an engine could recognise a copy by (002 relies on a reliable
    /// link layer, (70)): a duplicated one would be counted twice, so the campaign does not inject it.
    pub const PORTALS: u16 = 1 << 9;
}

/// Random faults, per frame that enters a link channel (probabilities in [0, 1]).
#[derive(Clone, Debug, PartialEq)]
pub struct FaultConfig {
    /// The frame is lost.
    pub drop: f64,
    /// The frame is sent twice on the channel.
    pub duplicate: f64,
    /// One bit of the TLP is flipped (never the routing field): the receiver's LCRC check fails.
    pub corrupt: f64,
    /// An end node's contribution leaves after an extra delay drawn from `late_ps`.
    pub late: f64,
    /// Range of the extra delay of a late contribution, ps.
    pub late_ps: (Ps, Ps),
    /// Which collective kinds ([`kinds`]) random drop / duplicate / corrupt apply to. Register writes are
    /// never faulted (configuration goes over the manager's channel).
    pub kinds: u16,
    /// CONTROL STOP / RESET (the teardown of a context) are never faulted.
    pub spare_teardown: bool,
    /// The channels faults apply to (`None`: every link channel).
    pub channels: Option<Vec<usize>>,
}

impl Default for FaultConfig {
    fn default() -> Self {
        FaultConfig { drop: 0.0, duplicate: 0.0, corrupt: 0.0, late: 0.0, late_ps: (0, 0), kinds: kinds::ALL, spare_teardown: true, channels: None }
    }
}

/// What happened to a frame, or to the fabric.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Lost on a channel.
    Drop,
    /// Sent twice on a channel.
    Duplicate,
    /// Bit `bit` of byte `byte` of the framed TLP flipped; the corrupted copy is frame `Fault::frame`.
    Corrupt {
        /// Byte offset in the framed TLP.
        byte: usize,
        /// Bit in the byte.
        bit: u8,
    },
    /// A contribution sent `delay` ps late.
    Late {
        /// Extra delay, ps.
        delay: Ps,
    },
    /// A channel went down (every later frame on it is lost, logged as `LostOnDownLink`).
    LinkDown,
    /// A frame entered a channel that is down.
    LostOnDownLink,
    /// An engine stopped (no more cycles; frames to it are lost, logged as `LostAtStoppedEngine`).
    EngineStop,
    /// A frame reached a stopped engine.
    LostAtStoppedEngine,
    /// An engine's descriptors filled with `n` filler contexts.
    Exhaust {
        /// Filler contexts activated.
        n: usize,
    },
    /// The filler contexts of an engine released.
    Release,
}

/// One injected fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Simulation time, ps.
    pub at: Ps,
    /// What.
    pub kind: FaultKind,
    /// Channel (link faults) or switch index (engine faults).
    pub channel: Option<usize>,
    /// Frame index in `Fabric::frames` (the corrupted copy for `Corrupt`).
    pub frame: Option<u32>,
    /// The frame it hit, read when the fault was logged: before a corruption flips its bits, so a
    /// corrupted frame is known by what was sent (`None`: a link or engine fault, no frame).
    pub mark: Option<FrameMark>,
    /// The frame, summarized for a reader: collective kind, CC_ID, requester → destination, or Portals
    /// tree and round ([`LinkFrame::summary`]); nothing reads it back ([`Fault::mark`] is the record).
    pub what: String,
}

impl Fault {
    /// A fault on frame `frame` (index `f` in `Fabric::frames`, if the fabric holds it), read as it was
    /// sent: its [`FrameMark`] and summary.
    pub fn on_frame(at: Ps, kind: FaultKind, channel: Option<usize>, f: Option<u32>, frame: &LinkFrame) -> Fault {
        Fault { at, kind, channel, frame: f, mark: Some(FrameMark::of(frame)), what: frame.summary() }
    }

    /// The Soft Portals round of the frame it hit, if it was one.
    pub fn portals(&self) -> Option<PortalsMark> {
        match self.mark? {
            FrameMark::Portals(m) => Some(m),
            FrameMark::Tlp(_) => None,
        }
    }

    /// The collective message of the frame it hit, if it was one.
    pub fn message(&self) -> Option<MessageMark> {
        match self.mark? {
            FrameMark::Tlp(t) => t.message,
            FrameMark::Portals(_) => None,
        }
    }

    /// The CC_ID of the frame it hit, if it was a collective message.
    pub fn cc_id(&self) -> Option<u16> {
        self.message().map(|m| m.cc_id)
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:>12} ps {:?}", self.at, self.kind)?;
        if let Some(c) = self.channel {
            write!(f, " ch {c}")?;
        }
        if let Some(x) = self.frame {
            write!(f, " frame {x}")?;
        }
        if !self.what.is_empty() {
            write!(f, " {}", self.what)?;
        }
        Ok(())
    }
}

/// The fields of the frame a fault hit that the campaign and its diagnosis read ([`Fault::mark`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameMark {
    /// A Soft Portals frame.
    Portals(PortalsMark),
    /// A framed TLP.
    Tlp(TlpMark),
}

impl FrameMark {
    /// The mark of a frame as read.
    pub fn of(frame: &LinkFrame) -> FrameMark {
        match frame {
            LinkFrame::Portals(fr) => {
                let h = fr.header;
                FrameMark::Portals(PortalsMark { tree: fr.tree(), rid: fr.reduction_id(), seqno: h.seqno, resno: h.resno, arm: h.arm, sfa: fr.sfa })
            }
            LinkFrame::Tlp { requester, destination, message } => FrameMark::Tlp(TlpMark {
                requester: *requester,
                destination: *destination,
                message: message.as_ref().map(|m| MessageMark { kind: m.header.kind, cc_id: m.header.cc_id, code: message_code(m) }),
            }),
        }
    }
}

/// The round fields of a Soft Portals frame a fault hit ([`Fault::portals`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortalsMark {
    /// The multicast tree (DFA bits 15-3).
    pub tree: u16,
    /// The reduction id (DFA bits 20-18, 002 (61)).
    pub rid: u8,
    /// `rt_seqno`: the round a contribution or partial answers, or the round an arm arms.
    pub seqno: u16,
    /// `rt_resno`: for a result arm, the round whose result it carries.
    pub resno: u16,
    /// The arm bit.
    pub arm: bool,
    /// The sender's fabric address (the root end node, a leaf, or an engine).
    pub sfa: u32,
}

impl PortalsMark {
    /// Whether the frame belongs to the round of reduction `rid` of one of `trees` that runs under
    /// `seqnos` (its own and its restart's): the tree and id are the round's, and so is the seqno, or
    /// the frame is the arm that carries one of those rounds' result (its resno).
    pub fn of_round(&self, trees: &[u16], rid: u8, seqnos: &[u16]) -> bool {
        trees.contains(&self.tree) && self.rid == rid && (seqnos.contains(&self.seqno) || (self.arm && seqnos.contains(&self.resno)))
    }
}

/// The routing fields of a framed TLP a fault hit, and its collective message if it is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlpMark {
    /// Requester ID.
    pub requester: Option<u16>,
    /// Destination device ID.
    pub destination: Option<u16>,
    /// The collective message (`None`: a register write or anything else).
    pub message: Option<MessageMark>,
}

/// The header fields of a collective message a fault hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageMark {
    /// Collective kind (docs/frames.md §4).
    pub kind: u8,
    /// CC_ID.
    pub cc_id: u16,
    /// CONTROL's command, a data message's completion code, FAILURE's reason (0 for the others).
    pub code: u8,
}

/// A directed fault: the next `count` frames matching the pattern (on any link channel) get `action`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `Drop` or `Duplicate`.
    pub action: FaultKind,
    /// Collective kind (`None`: any).
    pub kind: Option<u8>,
    /// CC_ID (`None`: any).
    pub cc_id: Option<u16>,
    /// Destination device ID (`None`: any).
    pub to: Option<u16>,
    /// Requester ID (`None`: any).
    pub from: Option<u16>,
    /// How many more frames it applies to.
    pub count: u32,
}

/// What the simulator does with a frame entering a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Carried as it is.
    Pass,
    /// Lost.
    Drop,
    /// Carried twice.
    Duplicate,
    /// A copy with bit `bit` of byte `byte` flipped is carried instead.
    Corrupt {
        /// Byte offset.
        byte: usize,
        /// Bit.
        bit: u8,
    },
}

/// Bytes a corruption never touches: the link sequence number's high byte is kept and so is the
/// destination (TLP bytes 8-9, the routing field), so a corrupted frame still reaches the device it
/// was sent to, whose LCRC check must catch it.
const ROUTING_BYTES: std::ops::Range<usize> = wire::SEQ_LEN + 8..wire::SEQ_LEN + 10;

/// The injector: configuration, generator, directed rules, the log and counters.
#[derive(Clone, Debug)]
pub struct FaultInjector {
    /// The seed the generator started from.
    pub seed: u64,
    /// Random faults.
    pub cfg: FaultConfig,
    /// Random faults are drawn only while enabled (configuration phases run without them).
    pub enabled: bool,
    /// Directed rules.
    pub rules: Vec<Rule>,
    /// Every fault injected, in time order.
    pub log: Vec<Fault>,
    /// Channels that are down.
    pub down: Vec<bool>,
    rng: ChaCha8Rng,
}

/// Counts of the log by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FaultCounts {
    /// Frames dropped (randomly or by a rule).
    pub dropped: u64,
    /// Frames duplicated.
    pub duplicated: u64,
    /// Frames corrupted.
    pub corrupted: u64,
    /// Late contributions.
    pub late: u64,
    /// Frames lost on down links or at stopped engines.
    pub lost_to_failures: u64,
    /// Links and engines failed.
    pub failures: u64,
    /// Exhaustion episodes (fills).
    pub exhaustions: u64,
}

impl FaultInjector {
    /// An injector with `cfg`, enabled, drawing from `seed`.
    pub fn new(seed: u64, cfg: FaultConfig) -> FaultInjector {
        FaultInjector { seed, cfg, enabled: true, rules: Vec::new(), log: Vec::new(), down: Vec::new(), rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// Whether channel `c` is down.
    pub fn is_down(&self, c: usize) -> bool {
        self.down.get(c).copied().unwrap_or(false)
    }

    /// The fate of `frame` entering channel `c` at `at`.
    pub fn decide(&mut self, at: Ps, c: usize, f: u32, frame: &[u8]) -> Verdict {
        if self.is_down(c) {
            self.log.push(Fault::on_frame(at, FaultKind::LostOnDownLink, Some(c), Some(f), &LinkFrame::parse(frame)));
            return Verdict::Drop;
        }
        if !self.enabled && self.rules.iter().all(|r| r.count == 0) {
            return Verdict::Pass;
        }
        let lf = LinkFrame::parse(frame);
        let msg = lf.message();
        // Every fault below is logged with the frame as read here, before a corruption changes it.
        let fault = |kind| Fault::on_frame(at, kind, Some(c), Some(f), &lf);
        let (kind, cc, code) = match msg {
            Some(m) => (Some(m.header.kind), Some(m.header.cc_id), control_code(m)),
            None => (None, None, None),
        };
        let (to, from) = match &lf {
            LinkFrame::Tlp { destination, requester, .. } => (*destination, *requester),
            LinkFrame::Portals(_) => (None, None),
        };
        if let Some(r) = self.rules.iter_mut().find(|r| {
            r.count > 0
                && msg.is_some()
                && r.kind.is_none_or(|k| Some(k) == kind)
                && r.cc_id.is_none_or(|x| Some(x) == cc)
                && r.to.is_none_or(|x| Some(x) == to)
                && r.from.is_none_or(|x| Some(x) == from)
        }) {
            r.count -= 1;
            let action = r.action;
            self.log.push(fault(action));
            return if action == FaultKind::Duplicate { Verdict::Duplicate } else { Verdict::Drop };
        }
        if self.enabled && self.cfg.kinds & kinds::PORTALS != 0 && self.cfg.channels.as_ref().is_none_or(|v| v.contains(&c)) {
            if let LinkFrame::Portals(fr) = &lf {
                let x: f64 = self.rng.random();
                let (d, u) = (self.cfg.drop, self.cfg.duplicate);
                return if x < d {
                    self.log.push(fault(FaultKind::Drop));
                    Verdict::Drop
                } else if x < d + u && fr.header.arm {
                    self.log.push(fault(FaultKind::Duplicate));
                    Verdict::Duplicate
                } else {
                    Verdict::Pass
                };
            }
        }
        let Some(kind) = kind else { return Verdict::Pass };
        if !self.enabled || self.cfg.kinds >> kind & 1 == 0 || self.cfg.channels.as_ref().is_some_and(|v| !v.contains(&c)) {
            return Verdict::Pass;
        }
        if self.cfg.spare_teardown && kind == 3 && matches!(code, Some(4 | 5)) {
            return Verdict::Pass;
        }
        let x: f64 = self.rng.random();
        let (d, u, k) = (self.cfg.drop, self.cfg.duplicate, self.cfg.corrupt);
        if x < d {
            self.log.push(fault(FaultKind::Drop));
            Verdict::Drop
        } else if x < d + u {
            self.log.push(fault(FaultKind::Duplicate));
            Verdict::Duplicate
        } else if x < d + u + k {
            let byte = loop {
                let b = self.rng.random_range(0..frame.len() - wire::LCRC_LEN);
                if b >= 1 && !ROUTING_BYTES.contains(&b) {
                    break b;
                }
            };
            let bit = self.rng.random_range(0..8u8);
            // The log entry is completed by the simulator with the corrupted copy's frame index.
            self.log.push(Fault { frame: None, ..fault(FaultKind::Corrupt { byte, bit }) });
            Verdict::Corrupt { byte, bit }
        } else {
            Verdict::Pass
        }
    }

    /// The extra delay of a contribution end node `e` sends now, if it is late.
    pub fn late_delay(&mut self) -> Option<Ps> {
        if !self.enabled || self.cfg.late <= 0.0 {
            return None;
        }
        if self.rng.random::<f64>() >= self.cfg.late {
            return None;
        }
        let (lo, hi) = self.cfg.late_ps;
        Some(if hi > lo { self.rng.random_range(lo..hi) } else { lo })
    }

    /// A generator for the test's own random choices, derived from the seed (not the fault stream).
    pub fn side_rng(seed: u64) -> ChaCha8Rng {
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        r.set_stream(1);
        r
    }

    /// Counts of the log by kind.
    pub fn counts(&self) -> FaultCounts {
        let mut c = FaultCounts::default();
        for f in &self.log {
            match f.kind {
                FaultKind::Drop => c.dropped += 1,
                FaultKind::Duplicate => c.duplicated += 1,
                FaultKind::Corrupt { .. } => c.corrupted += 1,
                FaultKind::Late { .. } => c.late += 1,
                FaultKind::LostOnDownLink | FaultKind::LostAtStoppedEngine => c.lost_to_failures += 1,
                FaultKind::LinkDown | FaultKind::EngineStop => c.failures += 1,
                FaultKind::Exhaust { .. } => c.exhaustions += 1,
                FaultKind::Release => {}
            }
        }
        c
    }

    /// The seed and the whole log, one fault a line (what a failing test prints).
    pub fn report(&self) -> String {
        let mut s = format!("fault seed {:#x}: {:?}\n", self.seed, self.counts());
        for f in &self.log {
            s.push_str(&format!("  {f}\n"));
        }
        s
    }
}

fn control_code(m: &inswitch_frames::collective::CollectiveMessage) -> Option<u8> {
    match &m.body {
        inswitch_frames::collective::Body::Control(c) => Some(c.command),
        _ => None,
    }
}

/// The code a diagnosis names a message by ([`MessageMark::code`]).
fn message_code(m: &inswitch_frames::collective::CollectiveMessage) -> u8 {
    use inswitch_frames::collective::Body;
    match &m.body {
        Body::Control(c) => c.command,
        Body::Data { fixed, .. } => fixed.completion,
        Body::Error(e) => e.reason,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The campaign explains a Soft Portals round by the faults on its own frames, known by the mark the
    /// injector logged: tree, reduction id, seqno, resno, arm bit and sender as sent.
    #[test]
    fn a_portals_faults_mark_holds_its_tree_id_seqno_and_resno() {
        use crate::sim::portals::{reduction_dfa, reduction_frame, soft_portals};
        let dfa = reduction_dfa(inswitch_frames::portals::ReductionFrame::multicast_dfa(0x123, 0).unwrap(), 5).unwrap();
        let fr = reduction_frame(dfa, 0x11, 0x42, 0x677d_a123, true, 9, 8, 0, 0x14, 0, [0; 4]);
        let mut inj = FaultInjector::new(1, FaultConfig { drop: 1.0, kinds: kinds::PORTALS, ..FaultConfig::default() });
        assert_eq!(inj.decide(0, 0, 0, &soft_portals(0x11, fr)), Verdict::Drop);
        let x = &inj.log[0];
        let m = x.portals().expect("a Soft Portals frame");
        assert_eq!(m, PortalsMark { tree: 0x123, rid: 5, seqno: 9, resno: 8, arm: true, sfa: 0x11 });
        assert_eq!(x.cc_id(), None);
        // The round of id 5 under seqno 8 (the arm carries its result) or 9 (the arm arms it); not id 4,
        // not another tree, not a round under other seqnos.
        assert!(m.of_round(&[0x123], 5, &[8]) && m.of_round(&[7, 0x123], 5, &[9]));
        assert!(!m.of_round(&[0x123], 4, &[8, 9]) && !m.of_round(&[0x124], 5, &[9]) && !m.of_round(&[0x123], 5, &[7]));
        // A contribution (no arm) belongs to its seqno's round only, whatever its resno.
        let c = PortalsMark { arm: false, ..m };
        assert!(!c.of_round(&[0x123], 5, &[8]) && c.of_round(&[0x123], 5, &[9]));
    }

    /// A corrupted frame is logged as it was sent: its mark (kind, CC_ID, code, requester, destination)
    /// and summary are the original's, also when the flipped bit lands in one of those fields of the
    /// copy the receiver gets (which the loop checks happens, so the property is exercised).
    #[test]
    fn a_corrupted_frames_mark_is_taken_before_the_bit_flips() {
        let f = wire::message_frame(&wire::start(7, 3), 0x0001, 0x0010, 1);
        let sent = LinkFrame::parse(&f);
        let mut inj = FaultInjector::new(5, FaultConfig { corrupt: 1.0, ..FaultConfig::default() });
        let mut fields_changed = 0;
        for i in 0..400 {
            let Verdict::Corrupt { byte, bit } = inj.decide(0, 0, i, &f) else { panic!("corrupt") };
            let copy = FrameMark::of(&LinkFrame::parse(&wire::corrupt(&f, byte, bit)));
            let x = inj.log.last().expect("logged");
            assert_eq!(x.mark, Some(FrameMark::of(&sent)), "byte {byte} bit {bit}");
            assert_eq!(x.what, sent.summary());
            assert_eq!(x.message(), Some(MessageMark { kind: 3, cc_id: 7, code: 1 }));
            fields_changed += usize::from(copy != FrameMark::of(&sent));
        }
        assert!(fields_changed > 0, "no corruption reached a marked field");
    }

    #[test]
    fn a_flipped_bit_breaks_the_lcrc_and_keeps_the_route() {
        let f = wire::message_frame(&wire::start(7, 3), 0x0001, 0x0010, 1);
        assert!(wire::lcrc_ok(&f));
        let mut inj = FaultInjector::new(3, FaultConfig { corrupt: 1.0, ..FaultConfig::default() });
        for _ in 0..200 {
            let Verdict::Corrupt { byte, bit } = inj.decide(0, 0, 0, &f) else { panic!("corrupt") };
            let g = wire::corrupt(&f, byte, bit);
            assert!(!wire::lcrc_ok(&g), "byte {byte} bit {bit}");
            assert_eq!(wire::destination(&g), Some(0x0010));
        }
        assert_eq!(inj.counts().corrupted, 200);
    }

    #[test]
    fn the_same_seed_gives_the_same_faults() {
        let f = wire::message_frame(&wire::start(7, 3), 0x0001, 0x0010, 1);
        let cfg = FaultConfig { drop: 0.1, duplicate: 0.1, corrupt: 0.1, ..FaultConfig::default() };
        let run = |s| {
            let mut inj = FaultInjector::new(s, cfg.clone());
            (0..1000).map(|i| inj.decide(i, 0, i as u32, &f)).collect::<Vec<_>>()
        };
        assert_eq!(run(9), run(9));
        assert_ne!(run(9), run(10));
        let drops = run(9).iter().filter(|v| **v == Verdict::Drop).count();
        assert!((50..150).contains(&drops), "{drops}");
    }

    #[test]
    fn teardown_and_register_writes_are_spared_and_rules_match_once() {
        let stop = {
            let mut m = wire::start(7, 0);
            if let inswitch_frames::collective::Body::Control(c) = &mut m.body {
                c.command = 4;
            }
            wire::message_frame(&m, 1, 0x10, 1)
        };
        let mwr = wire::register_write(1, 1, 0x10, 0x204, 1);
        let mut inj = FaultInjector::new(1, FaultConfig { drop: 1.0, ..FaultConfig::default() });
        assert_eq!(inj.decide(0, 0, 0, &stop), Verdict::Pass);
        assert_eq!(inj.decide(0, 0, 0, &mwr), Verdict::Pass);
        let mut inj = FaultInjector::new(1, FaultConfig::default());
        inj.rules.push(Rule { action: FaultKind::Drop, kind: Some(3), cc_id: Some(7), to: Some(0x10), from: None, count: 1 });
        assert_eq!(inj.decide(0, 0, 0, &stop), Verdict::Drop);
        assert_eq!(inj.decide(0, 0, 0, &stop), Verdict::Pass);
        assert_eq!(inj.log.len(), 1);
    }
}
