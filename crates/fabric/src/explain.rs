//! Why a reduction of the fault campaign did not succeed (issue 20, `inswitch goodput --explain`): the
//! faults that hit its frames in its period, each named by what it did to which message between which
//! roles, so that a sweep can say which losses cost the rounds (`docs/fabric.md` §Goodput, diagnosis).
//! Labels only, no judgement: the first fault of a failed round is reported as its cause, which is
//! exact for a round with one fault and the earliest candidate for one with several.

use crate::faults::{Fault, FaultKind, FrameMark};
use crate::setup::{ContextPlan, Role};
use crate::sim::Fabric;

/// The role a device ID plays in a TLP reduction: `src` (the source, its root), `node` (a participant),
/// `master`, `sub` (a subservient engine), `other`.
pub fn tlp_role(f: &Fabric, c: &ContextPlan, id: u16) -> &'static str {
    let t = &f.topo;
    if t.endpoints[c.source].id == id {
        "src"
    } else if c.participants.iter().any(|&p| t.endpoints[p].id == id) {
        "node"
    } else if let Some(e) = c.engines.iter().find(|e| t.switches[e.switch].engine_id == id) {
        if e.role == Role::Master {
            "master"
        } else {
            "sub"
        }
    } else {
        "other"
    }
}

/// What the fault did: `drop`, `dup`, `corrupt`, `late`, `exhaustion`, or the kind's name.
pub fn fault_name(k: &FaultKind) -> &'static str {
    match k {
        FaultKind::Drop => "drop",
        FaultKind::Duplicate => "dup",
        FaultKind::Corrupt { .. } => "corrupt",
        FaultKind::Late { .. } => "late",
        FaultKind::Exhaust { .. } => "exhaustion",
        FaultKind::Release => "release",
        FaultKind::LinkDown => "link down",
        FaultKind::LostOnDownLink => "lost on a down link",
        FaultKind::EngineStop => "engine stop",
        FaultKind::LostAtStoppedEngine => "lost at a stopped engine",
    }
}

/// The name of collective kind `k` (docs/frames.md §4), short as the diagnosis table prints it.
pub fn kind_name(k: u8) -> &'static str {
    use inswitch_frames::collective::Kind;
    match Kind::from(k) {
        Kind::Configuration => "CONFIGURATION",
        Kind::Initialization => "INIT",
        Kind::Control => "CONTROL",
        Kind::Contribution => "CONTRIBUTION",
        Kind::Response => "RESPONSE",
        Kind::Completion => "COMPLETION",
        Kind::Retry => "RETRY",
        Kind::Failure => "FAILURE",
        Kind::Unknown(_) => "?",
    }
}

/// Suffix of an exhaustion episode on another engine than the reduction's: listed, never its first
/// cause ([`first_cause`]).
pub const ELSEWHERE: &str = "(another engine)";

fn exhaustion(ours: bool) -> String {
    if ours {
        "exhaustion (its engine)".into()
    } else {
        format!("exhaustion {ELSEWHERE}")
    }
}

/// The cause reported for a failed reduction with `causes`: the first that is not an exhaustion of
/// another engine (`unexplained` if none).
pub fn first_cause(causes: &[String]) -> &str {
    causes.iter().find(|c| !c.ends_with(ELSEWHERE)).map_or("unexplained", |c| c.as_str())
}

/// Whether `causes` holds one fault that may explain the round (exhaustions of other engines apart).
pub fn single(causes: &[String]) -> bool {
    causes.iter().filter(|c| !c.ends_with(ELSEWHERE)).count() == 1
}

/// A TLP fault as `drop COMPLETION/2 master->src` (the code: COMPLETION's completion code, CONTROL's
/// command, FAILURE's reason), from the fault's mark: the frame as sent, a corrupted one's before its
/// bit flipped.
pub fn tlp_label(f: &Fabric, c: &ContextPlan, x: &Fault) -> String {
    let what = fault_name(&x.kind);
    if matches!(x.kind, FaultKind::Exhaust { .. }) {
        return exhaustion(x.channel.is_some_and(|s| c.engines.iter().any(|e| e.switch == s)));
    }
    let Some(FrameMark::Tlp(t)) = x.mark else { return format!("{what} ?") };
    let role = |id: Option<u16>| id.map_or("?", |id| tlp_role(f, c, id));
    let (kind, code) = match t.message {
        Some(m) if matches!(m.kind, 3 | 6 | 8) => (m.kind, format!("/{}", m.code)),
        Some(m) => (m.kind, String::new()),
        None => (0, String::new()),
    };
    format!("{what} {}{code} {}->{}", kind_name(kind), role(t.requester), role(t.destination))
}

/// A Soft Portals fault as `drop arm`, `late contribution leaf`, `drop partial engine` (the sender by
/// the frame's SFA: the root end node, a leaf, or an engine).
pub fn portals_label(f: &Fabric, root: usize, leaves: &[usize], x: &Fault) -> String {
    let what = fault_name(&x.kind);
    let t = &f.topo;
    if matches!(x.kind, FaultKind::Exhaust { .. }) {
        return exhaustion(x.channel.is_some_and(|s| leaves.iter().chain([&root]).any(|&e| t.endpoints[e].switch == s)));
    }
    let Some(p) = x.portals() else { return format!("{what} portals ?") };
    let sender = if u32::from(t.endpoints[root].id) == p.sfa {
        "root"
    } else if leaves.iter().any(|&l| u32::from(t.endpoints[l].id) == p.sfa) {
        "leaf"
    } else {
        "engine"
    };
    let msg = match (p.arm, sender) {
        (true, "root") => "result/arm from the root",
        (true, _) => "arm passed down",
        (false, "leaf") => "contribution",
        (false, _) => "partial up",
    };
    format!("{what} {msg}")
}

/// A TLP round's frames and faults, one line each in time order, roles named (`INSWITCH_DELIVERY_TRACE`:
/// the campaign prints it for each round that succeeded at the root but missed a participant, the
/// diagnosis of `docs/fabric.md` §Goodput: every participant): deliveries `[from, to)` of the log for
/// context `c`, as `t ps sub->node COMPLETION/3 tid 1 n 3 err v ok`, and the faults on it at `at..end`.
pub fn tlp_round_trace(f: &Fabric, c: &ContextPlan, from: usize, to: usize, at: crate::topology::Ps, end: crate::topology::Ps, expected: u64) -> String {
    let role = |id: u16| tlp_role(f, c, id);
    let mut lines: Vec<(crate::topology::Ps, String)> = f.log[from..to]
        .iter()
        .filter(|d| d.cc_id == c.cc_id)
        .map(|d| {
            let v = match d.operands.first() {
                Some(&v) if v == expected => " v ok",
                Some(_) => " v other",
                None => "",
            };
            let who = |id: u16| format!("{}:{id:#06x}", role(id));
            (d.at, format!("{} {}->{} {}/{} tid {} n {}{}{}", d.at, who(d.from), who(d.to), kind_name(d.kind), d.code, d.tid, d.contributions, if d.error { " err" } else { "" }, v))
        })
        .collect();
    if let Some(faults) = f.faults.as_ref() {
        for x in faults.log.iter().filter(|x| x.at >= at && x.at < end && x.cc_id() == Some(c.cc_id)) {
            lines.push((x.at, format!("{} FAULT {} ({})", x.at, tlp_label(f, c, x), x.what)));
        }
    }
    lines.sort_by_key(|l| l.0);
    lines.into_iter().map(|l| l.1 + "\n").collect()
}

/// A Portals round's frames and faults, one line each in time order (`INSWITCH_CAMPAIGN_TRACE`: the
/// campaign prints it for a wrong or overcounted Portals result): every Portals frame of tree `tree`
/// (multicast address `dfa`) delivered to an end node at `from..end` (`t ps -> leaf:3 arm seqno 5 resno
/// 5 count 0 v 123`), the faults on the frames of the tree under the round's reduction id and the CPU
/// events of that id's context that the campaign's log still holds (the current period's).
pub fn portals_round_trace(f: &Fabric, root: usize, leaves: &[usize], tree: u16, dfa: u32, from: crate::topology::Ps, end: crate::topology::Ps) -> String {
    // The round's reduction id (DFA bits 20-18): the tree's other rounds run under the others.
    let rid = inswitch_frames::portals::ReductionFrame { dfa, ..Default::default() }.reduction_id();
    let role = |e: usize| if e == root { format!("root:{e}") } else if leaves.contains(&e) { format!("leaf:{e}") } else { format!("end:{e}") };
    let mut lines: Vec<(crate::topology::Ps, String)> = f
        .portals
        .log
        .iter()
        .filter(|d| d.at >= from && d.at < end && d.frame.dfa == dfa)
        .map(|d| {
            let h = &d.frame.header;
            (d.at, format!("{} -> {} {} sfa {:#x} seqno {} resno {} count {} v {}", d.at, role(d.to), if h.arm { "arm" } else { "contribution/partial" }, d.frame.sfa, h.seqno, h.resno, h.count, d.frame.data[0]))
        })
        .collect();
    if let Some(faults) = f.faults.as_ref() {
        for x in faults.log.iter().filter(|x| x.at >= from && x.at < end && x.portals().is_some_and(|m| m.tree == tree && m.rid == rid)) {
            lines.push((x.at, format!("{} FAULT {} ({})", x.at, portals_label(f, root, leaves, x), x.what)));
        }
    }
    for &(t, s, e, _) in f.cpu_log.iter().flatten().filter(|x| x.3 == crate::sim::portals::portals_ctx(tree, rid) && x.0 >= from && x.0 < end) {
        lines.push((t, format!("{t} engine {s} {}", inswitch_model::cpu::event::name(e))));
    }
    lines.sort_by_key(|l| l.0);
    lines.into_iter().map(|l| l.1 + "\n").collect()
}
