//! A directed stimulus (configuration, then given frames) and a monitor that only records, for the
//! directed tests of the top.

use inswitch_model::packet_engine::{EngineIn, EngineOut, EngineParams};

use crate::checker::{Monitor, Stimulus, Transaction, TransactionLog};
use crate::stimulus::{self, StimRng};

use super::monitor::append;
use super::shared::{ENGINE_ID, PORT};
use super::stimulus::{hold_rx, LinkPartner};

/// A directed stimulus: a reset, CPU configuration writes, then `frames` one after the other on a TLP
/// port (every sink ready, the VL queue returning every slot at once).
pub struct DirectedStimulus {
    link: LinkPartner,
    last: EngineIn,
    r: StimRng,
    cycle: u64,
    family: bool,
    /// The port's link is in PCIe 6 flit mode (`cfg_flit`) for the whole run.
    flit: bool,
}

/// A PCIe 6 flit-mode MWr32 (no OHC, no trailer; docs/frames.md §2) of `payload` from `requester` into
/// engine `id`'s register window at `offset` (the mailbox at 0x800): the frame a flit-mode link delivers,
/// with no sequence number and no LCRC (flit mode protects flits, not TLPs).
pub fn flit_write_frame(requester: u16, id: u16, offset: u16, payload: Vec<u8>, tag: u16) -> Vec<u8> {
    use inswitch_frames::flit::{self, FlitDw0, FlitTlp};
    let address = u32::from(id) << 16 | 0xC000 | u32::from(offset & 0xFFC);
    let length = (payload.len() / 4 % flit::MAX_PAYLOAD_DW) as u16;
    let dw0 = FlitDw0 { tlp_type: flit::types::MWR32, tc: 0, ohc: 0, ts: 0, attr: 0, length };
    // DW1: Requester ID, EP 0, R 0, Tag[13:0].
    let dw1 = u32::from(requester) << 16 | u32::from(tag & ((1 << flit::TAG_BITS) - 1));
    FlitTlp { prefixes: vec![], dw0, header: vec![dw1, address], ohc: vec![], payload, trailer: vec![] }.to_bytes().expect("flit TLP")
}

impl DirectedStimulus {
    /// Sends `frames` after writing `cpu_cfg` into the CPU.
    pub fn new(p: EngineParams, cpu_cfg: Vec<(u16, u32)>, frames: Vec<Vec<u8>>) -> Self {
        Self::mixed(p, cpu_cfg, frames.into_iter().map(|f| (false, f)).collect())
    }

    /// Sends `frames`, each with the port family it is sent under (`true`: Soft Portals).
    pub fn mixed(p: EngineParams, cpu_cfg: Vec<(u16, u32)>, frames: Vec<(bool, Vec<u8>)>) -> Self {
        DirectedStimulus {
            link: LinkPartner::new(&p, cpu_cfg.into(), frames.into()),
            last: EngineIn::default(),
            r: stimulus::rng(0, 1),
            cycle: 0,
            family: false,
            flit: false,
        }
    }

    /// Sends `frames` on a TLP port whose link is in flit mode (`cfg_flit` = 1 throughout: the frames are
    /// flit-mode TLPs, [`flit_write_frame`]), or, with `flit` false, the same bytes on a non-flit link.
    pub fn on_link(p: EngineParams, frames: Vec<Vec<u8>>, flit: bool) -> Self {
        Self { flit, ..Self::new(p, vec![], frames) }
    }
}

impl Stimulus<EngineIn, EngineOut> for DirectedStimulus {
    fn next(&mut self, previous: &EngineOut) -> EngineIn {
        let l = self.last;
        self.link.returned(&l, previous);
        let mut i = EngineIn {
            m_axis_vl_tready: true,
            m_axis_egress_tready: true,
            m_reg_rsp_ready: true,
            cfg_port: PORT,
            cfg_engine_id: ENGINE_ID,
            cfg_src_mac: 0x0200_0000_0010,
            cfg_dst_mac: 0x0200_0000_0001,
            // Walk the PBV read port over the first 8 entries (compared in lockstep).
            pbv_rd_index: (self.cycle % 8) as u8,
            cfg_family: self.family,
            cfg_flit: self.flit,
            ..Default::default()
        };
        self.cycle += 1;
        // The VL queue frees each slot the cycle after it fills.
        if previous.m_axis_vl_tvalid && l.m_axis_vl_tready && !l.rst {
            i.vl_credit_return = 1;
        }
        if self.link.reset(&mut i) {
            self.last = i;
            return i;
        }
        // The back door first; the receive port only when it is idle.
        if !(self.link.cpu_cfg_write(&mut i) || hold_rx(&l, previous, &mut i)) && self.link.credits() > 0 {
            if !self.link.sending() {
                if let Some((fam, f)) = self.link.next_queued() {
                    self.family = fam;
                    i.cfg_family = fam;
                    self.link.send(&f, 32, &mut self.r);
                }
            }
            self.link.offer(&mut i);
        }
        self.last = i;
        i
    }
}

/// A monitor that only records: frames on `m_axis_vl` and `m_axis_egress`, register responses, events.
#[derive(Default)]
pub struct Recorder {
    /// Whole frames that left on `m_axis_vl`, in order.
    pub vl: Vec<Vec<u8>>,
    /// Whole frames that left on `m_axis_egress`, with their tdest.
    pub egress: Vec<(u8, Vec<u8>)>,
    /// Register responses (status, src).
    pub responses: Vec<(u8, u16)>,
    /// CPU events (event, family, ctx).
    pub cpu_events: Vec<(u8, bool, u16)>,
    /// Cycle of each receive frame's last beat (handshake).
    pub rx_done: Vec<u64>,
    /// Cycle of each `m_axis_vl` frame's first beat (handshake).
    pub vl_start: Vec<u64>,
    /// Cycle of each register response (handshake).
    pub rsp_at: Vec<u64>,
    vl_cur: Vec<u8>,
    eg_cur: Vec<u8>,
    log: TransactionLog,
}

impl Monitor<EngineIn, EngineOut> for Recorder {
    fn observe(&mut self, cycle: u64, i: &EngineIn, o: &EngineOut) -> Result<(), String> {
        if i.rst {
            return Ok(());
        }
        if i.s_axis_rx_tvalid && o.s_axis_rx_tready && i.s_axis_rx_tlast {
            self.rx_done.push(cycle);
        }
        if o.m_axis_vl_tvalid && i.m_axis_vl_tready {
            if self.vl_cur.is_empty() {
                self.vl_start.push(cycle);
            }
            append(&mut self.vl_cur, &o.m_axis_vl_tdata, o.m_axis_vl_tkeep);
            if o.m_axis_vl_tlast {
                self.vl.push(std::mem::take(&mut self.vl_cur));
                self.log.push(cycle, "vl frame".into());
            }
        }
        if o.m_axis_egress_tvalid && i.m_axis_egress_tready {
            append(&mut self.eg_cur, &o.m_axis_egress_tdata, o.m_axis_egress_tkeep);
            if o.m_axis_egress_tlast {
                self.egress.push((o.m_axis_egress_tdest, std::mem::take(&mut self.eg_cur)));
            }
        }
        if o.m_reg_rsp_valid && i.m_reg_rsp_ready {
            self.responses.push((o.m_reg_rsp_status, o.m_reg_rsp_src));
            self.rsp_at.push(cycle);
        }
        if o.cpu_stat_valid {
            self.cpu_events.push((o.cpu_stat_event, o.cpu_stat_family, o.cpu_stat_ctx));
        }
        Ok(())
    }

    fn recent(&self) -> Vec<Transaction> {
        self.log.to_vec()
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}
