//! FIG. 3 of seed 000: two contexts with different masters on the two-board fabric (\[0148\], \[0153\]).

use inswitch_frames::collective::NO_PARTICIPANT;

use super::collective::{cycle_after, value_of, INT_SUM};
use crate::drive;
use crate::manager::{JobSpec, NodeId, SwitchId};
use crate::setup::ContextPlan;
use crate::sim::{ChannelKind, Fabric, SimConfig};
use crate::topology::{LinkSpec, Ps, Topology, FIG3_BOARD_SHIFT};

/// One context of FIG. 3 as 000 \[0148\] sets it up, by the figure's reference numerals: the end node that
/// starts it, the switch whose engine it names as master, and the participating end nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fig3ContextSpec {
    /// The seed's name of the context.
    pub name: &'static str,
    /// Source node.
    pub source: &'static str,
    /// Switch of the master engine.
    pub master: &'static str,
    /// Participating end nodes.
    pub participants: &'static [&'static str],
}

/// The two contexts of 000 \[0148\] on [`Topology::fig3`]:
///
/// * N: source node 316 names collective engine 312 (master switch 306) as master; participants: the
///   local nodes of board 302 except 328 (\[0148\]) and except the source, the initiator, which is sent no
///   frame (\[0150\]): 318 and 326. Both switches of board 302 are engines of the context (306 the
///   master, 308 for 326). \[0150\] also says 318 is not a participant of N, against \[0148\]'s "all ...
///   except local node 328"; this project follows \[0148\], so that 318 is in N and the source of M at
///   once.
/// * M: local node 318 names collective engine 336 (remote switch 330) as master; participants: the end
///   nodes of board 304 (340, 342, 350, 352), engines 330 (master) and 332.
pub const FIG3_CONTEXTS: [Fig3ContextSpec; 2] = [
    Fig3ContextSpec { name: "N", source: "316", master: "306", participants: &["318", "326"] },
    Fig3ContextSpec { name: "M", source: "318", master: "330", participants: &["340", "342", "350", "352"] },
];

/// \[0153\]'s alternative: context M's master is not collective engine 336 but the engine local to its
/// source, 312 (switch 306), which then serves both contexts.
pub const FIG3_CONTEXTS_ONE_MASTER: [Fig3ContextSpec; 2] =
    [FIG3_CONTEXTS[0], Fig3ContextSpec { name: "M", source: "318", master: "306", participants: &["340", "342", "350", "352"] }];

/// What one context of the FIG. 3 scenario got.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fig3Context {
    /// How it was set up.
    pub spec: Fig3ContextSpec,
    /// Its CC_ID (the manager's key; the two contexts share no engine, so both may get the same one).
    pub cc_id: u16,
    /// Names of the switches whose engines the manager put in the context, the master first.
    pub engines: Vec<String>,
    /// INT_SUM of the participants' values.
    pub expected_value: u64,
    /// Lane 0 of the final result the master sent the source (its upstream copy, P_ID 0xFFFF).
    pub source_result: Option<u64>,
    /// Every participant got exactly one result, from its own switch's engine, equal to `expected_value`,
    /// and the source got exactly one upstream copy.
    pub ok: bool,
    /// From the initiating frame leaving the source to the source holding the final result, ps.
    pub latency_ps: Ps,
    /// Collective frames of this context per link direction during the collective (channel name,
    /// frames), for the links it used, in the fabric's channel order.
    pub link_frames: Vec<(String, u64)>,
}

/// The FIG. 3 scenario (`inswitch sim --scenario fig3`, [`run_fig3`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Fig3Run {
    /// Topology.
    pub topology: String,
    /// Why the run could not be done.
    pub error: Option<String>,
    /// N, then M.
    pub contexts: Vec<Fig3Context>,
    /// Collective frames on the links during the collective that belong to neither context.
    pub unattributed: u64,
    /// Frames of the configuration (both plans) that crossed between the boards.
    pub config_frames_between_boards: u64,
    /// When both sources sent their initiating frames, ps.
    pub started_at: Ps,
    /// Index of the fabric's first capture of the collective phase (after the configuration).
    pub first_collective_capture: usize,
    /// Per switch: name, frames into its engine and out of it during the collective (both contexts).
    pub engine_frames: Vec<(String, u64, u64)>,
}

impl Fig3Run {
    /// Both contexts right.
    pub fn ok(&self) -> bool {
        self.error.is_none() && !self.contexts.is_empty() && self.contexts.iter().all(|c| c.ok) && self.unattributed == 0
    }

    /// The summary `inswitch sim --scenario fig3` prints.
    pub fn text(&self) -> String {
        let names: Vec<&str> = self.contexts.iter().map(|c| c.spec.name).collect();
        let masters: Vec<&str> = self.contexts.iter().map(|c| c.spec.master).collect();
        let mut s = format!("fig3: INT_SUM all-reduces {} at once, master engines in {}, placed by the collective manager, cycle engines\n", names.join(" and "), masters.join(" and "));
        if let Some(e) = &self.error {
            return s + &format!("  not run: {e}\n");
        }
        for c in &self.contexts {
            let result = c.source_result.map_or("none".to_string(), |v| v.to_string());
            s += &format!(
                "  context {} (CC_ID {}): source {}, master engine in {}, engines {}, participants {}: result {result} at the source (expected {}), {:.1} ns from the initiating frame to the result at the source: {}\n",
                c.spec.name,
                c.cc_id,
                c.spec.source,
                c.spec.master,
                c.engines.join(" "),
                c.spec.participants.join(" "),
                c.expected_value,
                c.latency_ps as f64 / 1e3,
                if c.ok { "ok" } else { "WRONG" }
            );
        }
        s += "  collective frames per link direction (seed [0151]: 2 away from the master, 1 towards it):\n";
        for c in &self.contexts {
            let links: Vec<String> = c.link_frames.iter().map(|(n, k)| format!("{n} {k}")).collect();
            s += &format!("    {}: {}\n", c.spec.name, links.join(", "));
        }
        let engines: Vec<String> = self.engine_frames.iter().map(|(n, i, o)| format!("{n} {i} in / {o} out")).collect();
        s += &format!("  frames through each engine's port: {}\n", engines.join(", "));
        s + &format!(
            "  frames of neither context: {}; configuration frames between the boards (the sources' plans): {}\n",
            self.unattributed, self.config_frames_between_boards
        )
    }
}

/// A channel's name for reports: `316->306` (an end node's link up), `306->316`, `306->330` (an ISL),
/// `306->engine`, `engine->306`.
pub fn channel_name(f: &Fabric, c: usize) -> String {
    let sw = |s: usize| f.topo.switches[s].name.clone();
    let ep = |e: usize| &f.topo.endpoints[e];
    match f.channel(c).kind {
        ChannelKind::Up(e) => format!("{}->{}", ep(e).name, sw(ep(e).switch)),
        ChannelKind::Down(e) => format!("{}->{}", sw(ep(e).switch), ep(e).name),
        ChannelKind::Isl(i) => {
            let (a, b, _) = f.routes.directed(i);
            format!("{}->{}", sw(a), sw(b))
        }
        ChannelKind::ToEngine(s) => format!("{}->engine", sw(s)),
        ChannelKind::FromEngine(s) => format!("engine->{}", sw(s)),
    }
}

/// Collective frames per context and link channel (end-node links and ISLs, not engine ports) among the
/// captures from `from_capture` on. A frame belongs to the context one of whose engines sent it or is
/// its destination (every collective message has an engine at one end); `None` collects the rest.
pub fn link_frames_by_context(f: &Fabric, from_capture: usize, ctxs: &[ContextPlan]) -> (Vec<std::collections::BTreeMap<usize, u64>>, u64) {
    let engines: Vec<Vec<u16>> = ctxs.iter().map(|c| c.engines.iter().map(|e| f.topo.switches[e.switch].engine_id).collect()).collect();
    let mut per = vec![std::collections::BTreeMap::new(); ctxs.len()];
    let mut rest = 0;
    for cap in &f.captured[from_capture..] {
        if matches!(f.channel(cap.channel).kind, ChannelKind::ToEngine(_) | ChannelKind::FromEngine(_)) {
            continue;
        }
        let bytes = &f.frames[cap.frame as usize].bytes;
        let Some(m) = crate::wire::collective_of(bytes) else { continue };
        let ends = [crate::wire::requester(bytes), crate::wire::destination(bytes)];
        let owner = (0..ctxs.len()).find(|&k| ctxs[k].cc_id == m.header.cc_id && ends.iter().any(|d| d.is_some_and(|d| engines[k].contains(&d))));
        match owner {
            Some(k) => *per[k].entry(cap.channel).or_insert(0) += 1,
            None => rest += 1,
        }
    }
    (per, rest)
}

/// FIG. 3 with the two contexts of 000 \[0148\] ([`FIG3_CONTEXTS`]): [`run_fig3_contexts`].
pub fn run_fig3(hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> (Fig3Run, Option<Fabric>) {
    run_fig3_contexts(&FIG3_CONTEXTS, hop_latency_ps, progress)
}

/// FIG. 3 with the contexts `contexts` (\[0148\]: [`FIG3_CONTEXTS`]; \[0153\]: [`FIG3_CONTEXTS_ONE_MASTER`]), run at the same time: the collective
/// manager places each (the master named by its source, [`JobSpec::master`]) and its plan configures the
/// cycle engines from that source; both sources then send their initiating frame (CONTROL START) at the
/// same instant, every participant answers as soon as the command arrives, and the engines reduce
/// (INT_SUM of `value_of`) and return the results. Real frame lengths, `hop_latency_ps` per hop, every
/// frame captured. Returns the fabric too (for tests and pcap).
pub fn run_fig3_contexts(contexts: &[Fig3ContextSpec], hop_latency_ps: Ps, progress: &mut dyn FnMut(Ps)) -> (Fig3Run, Option<Fabric>) {
    let topology = Topology::fig3(LinkSpec::default());
    let mut out = Fig3Run { topology: topology.name.clone(), ..Fig3Run::default() };
    let limit = Ps::MAX / 4;
    let mut setup = || -> Result<(Fabric, Vec<ContextPlan>, usize), String> {
        let index = |name: &str, found: Option<usize>| found.ok_or_else(|| format!("FIG. 3 has no {name}"));
        let mut f = Fabric::new(topology.clone(), SimConfig { hop_latency_ps, capture: true, ..SimConfig::default() }).map_err(|e| e.to_string())?;
        let mut m = drive::manager_for(&topology).map_err(|e| e.to_string())?;
        let first = contexts.first().ok_or("no context")?;
        let first_source = index(first.source, topology.endpoint_named(first.source))?;
        f.bring_up(first_source, 0);
        f.run_until_quiet(limit, progress);
        let configured = f.captured.len();
        let mut ctxs = Vec::new();
        for c in contexts {
            let source = index(c.source, topology.endpoint_named(c.source))?;
            let master = index(c.master, topology.switch_named(c.master))?;
            let parts = c.participants.iter().map(|&p| index(p, topology.endpoint_named(p))).collect::<Result<Vec<_>, _>>()?;
            let spec = JobSpec { op: INT_SUM, master: Some(SwitchId(master as u32)), ..JobSpec::new(drive::node_ids(&parts), NodeId(source as u32)) };
            let at = f.now();
            let (_, _, ctx) = drive::place_and_apply(&mut f, &mut m, spec, at, &value_of).map_err(|e| format!("context {}: {e}", c.name))?;
            ctxs.push(ctx);
        }
        f.run_until_quiet(limit, progress);
        Ok((f, ctxs, configured))
    };
    let (mut f, ctxs, configured) = match setup() {
        Ok(x) => x,
        Err(e) => {
            out.error = Some(e);
            return (out, None);
        }
    };
    // ISLs 306-330, 306-332, 308-330, 308-332 join the boards; the board is in the device ID.
    let board = |s: usize| f.topo.switches[s].engine_id >> FIG3_BOARD_SHIFT;
    out.config_frames_between_boards = f.captured[configured..]
        .iter()
        .filter(|c| matches!(f.channel(c.channel).kind, ChannelKind::Isl(i) if board(f.routes.directed(i).0) != board(f.routes.directed(i).1)))
        .count() as u64;
    let cap0 = f.captured.len();
    let log0 = f.log.len();
    f.auto_respond(Some(0));
    let t = cycle_after(f.now());
    for c in &ctxs {
        f.start(c, t);
    }
    f.run_until_quiet(limit, progress);
    (out.started_at, out.first_collective_capture) = (t, cap0);
    let (per, rest) = link_frames_by_context(&f, cap0, &ctxs);
    out.unattributed = rest;
    let port_frames = |k: ChannelKind| f.captured[cap0..].iter().filter(|c| f.channel(c.channel).kind == k).count() as u64;
    out.engine_frames = (0..f.topo.switches.len()).map(|s| (f.topo.switches[s].name.clone(), port_frames(ChannelKind::ToEngine(s)), port_frames(ChannelKind::FromEngine(s)))).collect();
    for ((spec, c), links) in contexts.iter().zip(&ctxs).zip(per) {
        let master_id = f.topo.switches[c.master()].engine_id;
        let source_id = f.topo.endpoints[c.source].id;
        let results = |d: &&crate::sim::Delivery| d.kind == 6 && d.cc_id == c.cc_id;
        let expected = c.participants.iter().map(|&e| value_of(e)).fold(0u64, u64::wrapping_add);
        let mut ok = true;
        for &e in &c.participants {
            let ep = &f.topo.endpoints[e];
            let own = f.topo.switches[ep.switch].engine_id;
            let got: Vec<_> = f.log[log0..].iter().filter(results).filter(|d| d.to == ep.id && d.from == own && d.p_id != NO_PARTICIPANT).collect();
            ok &= got.len() == 1 && got[0].operands.first() == Some(&expected);
        }
        let upstream: Vec<_> = f.log[log0..].iter().filter(results).filter(|d| d.to == source_id && d.from == master_id && d.p_id == NO_PARTICIPANT).collect();
        ok &= upstream.len() == 1 && upstream[0].operands.first() == Some(&expected);
        out.contexts.push(Fig3Context {
            spec: *spec,
            cc_id: c.cc_id,
            engines: c.engines.iter().map(|e| f.topo.switches[e.switch].name.clone()).collect(),
            expected_value: expected,
            source_result: upstream.first().and_then(|d| d.operands.first().copied()),
            ok,
            latency_ps: upstream.first().map_or(0, |d| d.at - t),
            link_frames: links.into_iter().map(|(ch, n)| (channel_name(&f, ch), n)).collect(),
        });
    }
    (out, Some(f))
}
