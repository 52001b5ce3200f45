//! Output queue (seed 000 \[0092\], \[0144\]): queues frames from the processing blocks until they are
//! injected into the data path, with a route-table lookup (destination device ID -> egress port).
//!
//! Cycle model of `rtl/output_queue.v`; interface and timing in `docs/blocks/output_queue.md`. The
//! register names below are the RTL's without the `_reg` suffix.

use crate::signal::{Block, Wide, WIDE_MAX_BITS};
use crate::ports;

/// Width of a destination device ID: a PCIe Requester/Completer ID (bus 8, device 5, function 3).
pub const DEST_ID_WIDTH: u32 = 16;

/// Parameters of one output queue instance (the RTL module parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputQueueParams {
    /// Data bus width in bits: a multiple of 8, at most 512.
    pub data_width: usize,
    /// Width of an egress port number (at most 8).
    pub port_width: u32,
    /// Beat FIFO depth: a power of two, at least 2.
    pub fifo_depth: usize,
    /// Route-table entries (at most 256).
    pub route_entries: usize,
}

impl Default for OutputQueueParams {
    /// The RTL defaults.
    fn default() -> Self {
        OutputQueueParams { data_width: 256, port_width: 4, fifo_depth: 32, route_entries: 16 }
    }
}

/// A parameter set the block cannot be built with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// `data_width` is not a multiple of 8 in 8..=512.
    #[error("data_width {0} is not a multiple of 8 between 8 and {WIDE_MAX_BITS}")]
    DataWidth(usize),
    /// `port_width` is not in 1..=8.
    #[error("port_width {0} is not between 1 and 8")]
    PortWidth(u32),
    /// `fifo_depth` is not a power of two >= 2.
    #[error("fifo_depth {0} is not a power of two of at least 2")]
    FifoDepth(usize),
    /// `route_entries` is not in 1..=256.
    #[error("route_entries {0} is not between 1 and 256")]
    RouteEntries(usize),
}

impl OutputQueueParams {
    /// Checks the parameter set, as the RTL does at elaboration.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.data_width == 0 || self.data_width % 8 != 0 || self.data_width > WIDE_MAX_BITS {
            return Err(ParamError::DataWidth(self.data_width));
        }
        if !(1..=8).contains(&self.port_width) {
            return Err(ParamError::PortWidth(self.port_width));
        }
        if self.fifo_depth < 2 || !self.fifo_depth.is_power_of_two() {
            return Err(ParamError::FifoDepth(self.fifo_depth));
        }
        if !(1..=256).contains(&self.route_entries) {
            return Err(ParamError::RouteEntries(self.route_entries));
        }
        Ok(())
    }

    /// Width of tkeep: one bit per data byte.
    pub fn keep_width(&self) -> usize {
        self.data_width / 8
    }

    /// Width of a route-table index (`ROUTE_INDEX_WIDTH`: `$clog2(ROUTE_ENTRIES)`, at least 1).
    pub fn route_index_width(&self) -> u32 {
        if self.route_entries > 1 {
            usize::BITS - (self.route_entries - 1).leading_zeros()
        } else {
            1
        }
    }
}

ports! {
    /// Inputs of `rtl/output_queue.v` (clk aside).
    pub struct OutputQueueIn {
        /// Synchronous, active-high reset: flushes the FIFO and invalidates every route entry.
        pub rst: bool,
        /// Frame data from the processing blocks (byte 0 = bits 7:0).
        pub s_axis_tdata: Wide,
        /// One bit per valid data byte.
        pub s_axis_tkeep: u64,
        /// A beat is offered.
        pub s_axis_tvalid: bool,
        /// Last beat of a frame.
        pub s_axis_tlast: bool,
        /// Destination device ID; sampled on the first beat of a frame.
        pub s_axis_tuser: u16,
        /// The data path takes the beat on m_axis.
        pub m_axis_tready: bool,
        /// Write route-table entry `cfg_route_wr_index` this cycle.
        pub cfg_route_wr_en: bool,
        /// Route-table entry to write (writes beyond `route_entries` are ignored).
        pub cfg_route_wr_index: u8,
        /// The entry takes part in lookups.
        pub cfg_route_wr_valid: bool,
        /// Device ID the entry matches ...
        pub cfg_route_wr_dest_id: u16,
        /// ... on the bits set here (all zero: a default route).
        pub cfg_route_wr_dest_mask: u16,
        /// Egress port of matching frames.
        pub cfg_route_wr_port: u8,
    }
}

ports! {
    /// Outputs of `rtl/output_queue.v`.
    pub struct OutputQueueOut {
        /// A beat offered on s_axis is taken (FIFO not full and not in reset).
        pub s_axis_tready: bool,
        /// Frame data towards the data path.
        pub m_axis_tdata: Wide,
        /// One bit per valid data byte.
        pub m_axis_tkeep: u64,
        /// A beat is offered.
        pub m_axis_tvalid: bool,
        /// Last beat of a frame.
        pub m_axis_tlast: bool,
        /// Egress port of the frame.
        pub m_axis_tdest: u8,
        /// One-cycle pulse: a frame was dropped because no route matched its destination.
        pub stat_route_miss: bool,
    }
}

#[derive(Clone, Copy, Default, Debug, PartialEq)]
struct Beat {
    tdata: Wide,
    tkeep: u64,
    tlast: bool,
    tuser: u16,
}

#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct RouteEntry {
    valid: bool,
    dest_id: u16,
    dest_mask: u16,
    port: u8,
}

impl RouteEntry {
    fn matches(&self, dest: u16) -> bool {
        self.valid && (dest ^ self.dest_id) & self.dest_mask == 0
    }
}

/// The output queue's registers and memories.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputQueue {
    p: OutputQueueParams,
    keep_mask: u64,
    index_mask: u8,
    port_mask: u8,
    fifo: Vec<Beat>,
    // Pointers count modulo 2 * depth, like the RTL's extra pointer bit.
    wr_ptr: usize,
    rd_ptr: usize,
    route: Vec<RouteEntry>,
    out: OutputQueueOut,
    frame_start: bool,
    frame_drop: bool,
    frame_port: u8,
}

impl OutputQueue {
    /// A queue in its reset state.
    pub fn new(p: OutputQueueParams) -> Result<Self, ParamError> {
        p.validate()?;
        let low_bits = |n: u32| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        Ok(OutputQueue {
            p,
            keep_mask: low_bits(p.keep_width() as u32),
            index_mask: low_bits(p.route_index_width()) as u8,
            port_mask: low_bits(p.port_width) as u8,
            fifo: vec![Beat::default(); p.fifo_depth],
            wr_ptr: 0,
            rd_ptr: 0,
            route: vec![RouteEntry::default(); p.route_entries],
            out: OutputQueueOut::default(),
            frame_start: true,
            frame_drop: false,
            frame_port: 0,
        })
    }

    /// The instance parameters.
    pub fn params(&self) -> &OutputQueueParams {
        &self.p
    }

    /// Beats in the FIFO.
    pub fn fifo_level(&self) -> usize {
        self.wr_ptr.wrapping_sub(self.rd_ptr) % (2 * self.p.fifo_depth)
    }

    fn lookup(&self, dest: u16) -> Option<u8> {
        self.route.iter().find(|e| e.matches(dest)).map(|e| e.port)
    }
}

impl Block for OutputQueue {
    type In = OutputQueueIn;
    type Out = OutputQueueOut;

    #[inline(always)]
    fn step(&mut self, i: &OutputQueueIn) -> OutputQueueOut {
        let depth = self.p.fifo_depth;
        let ptr_mod = 2 * depth;
        let empty = self.wr_ptr == self.rd_ptr;
        let full = self.fifo_level() == depth;
        let s_axis_tready = !full && !i.rst;
        let out = OutputQueueOut { s_axis_tready, ..self.out };

        // Combinational lookup on the FIFO head, from this cycle's registers. Only a head that can pop
        // is read, and the route table is searched only for a frame's first beat (the RTL's lookup
        // result is unused otherwise; reading both every cycle was most of this step, issue 23).
        let head = if empty { None } else { Some(self.fifo[self.rd_ptr % depth]) };
        let hit = if self.frame_start { head.and_then(|h| self.lookup(h.tuser)) } else { None };
        let beat_drop = if self.frame_start { hit.is_none() } else { self.frame_drop };
        let beat_port = if self.frame_start { hit.unwrap_or(0) } else { self.frame_port };
        let output_free = !self.out.m_axis_tvalid || i.m_axis_tready;
        let pop = head.is_some() && (beat_drop || output_free);
        let push = i.s_axis_tvalid && s_axis_tready;

        // Rising edge.
        if push {
            self.fifo[self.wr_ptr % depth] = Beat {
                tdata: i.s_axis_tdata.truncated(self.p.data_width),
                tkeep: i.s_axis_tkeep & self.keep_mask,
                tlast: i.s_axis_tlast,
                tuser: i.s_axis_tuser,
            };
            self.wr_ptr = (self.wr_ptr + 1) % ptr_mod;
        }
        self.out.m_axis_tvalid &= !i.m_axis_tready;
        self.out.stat_route_miss = false;
        if let Some(head) = head.filter(|_| pop) {
            self.rd_ptr = (self.rd_ptr + 1) % ptr_mod;
            if self.frame_start {
                self.frame_drop = hit.is_none();
                self.frame_port = beat_port;
                self.out.stat_route_miss = hit.is_none();
            }
            self.frame_start = head.tlast;
            if !beat_drop {
                self.out.m_axis_tdata = head.tdata;
                self.out.m_axis_tkeep = head.tkeep;
                self.out.m_axis_tvalid = true;
                self.out.m_axis_tlast = head.tlast;
                self.out.m_axis_tdest = beat_port;
            }
        }
        let index = usize::from(i.cfg_route_wr_index & self.index_mask);
        if i.cfg_route_wr_en && index < self.p.route_entries {
            self.route[index] = RouteEntry {
                valid: i.cfg_route_wr_valid,
                dest_id: i.cfg_route_wr_dest_id,
                dest_mask: i.cfg_route_wr_dest_mask,
                port: i.cfg_route_wr_port & self.port_mask,
            };
        }
        if i.rst {
            self.wr_ptr = 0;
            self.rd_ptr = 0;
            self.out = OutputQueueOut::default();
            self.frame_start = true;
            self.frame_drop = false;
            self.frame_port = 0;
            for e in &mut self.route {
                e.valid = false;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idle() -> OutputQueueIn {
        OutputQueueIn { m_axis_tready: true, ..Default::default() }
    }

    fn queue() -> OutputQueue {
        let mut q = OutputQueue::new(OutputQueueParams::default()).unwrap();
        q.step(&OutputQueueIn { rst: true, ..idle() });
        // Entry 0: board 0x001x -> port 3 (seed 000 Table 3); entry 1: default route -> port 1.
        q.step(&OutputQueueIn {
            cfg_route_wr_en: true,
            cfg_route_wr_index: 0,
            cfg_route_wr_valid: true,
            cfg_route_wr_dest_id: 0x0010,
            cfg_route_wr_dest_mask: 0xfff0,
            cfg_route_wr_port: 3,
            ..idle()
        });
        q
    }

    fn beat(dest: u16, data: u64, last: bool) -> OutputQueueIn {
        let mut tdata = Wide::ZERO;
        tdata.0[0] = data;
        OutputQueueIn { s_axis_tdata: tdata, s_axis_tkeep: u64::from(u32::MAX), s_axis_tvalid: true, s_axis_tlast: last, s_axis_tuser: dest, ..idle() }
    }

    #[test]
    fn routes_with_two_cycles_of_latency() {
        let mut q = queue();
        assert!(q.step(&beat(0x0012, 0xaa, false)).s_axis_tready);
        let o = q.step(&beat(0, 0xbb, true));
        assert!(!o.m_axis_tvalid, "one cycle after the first beat nothing is out yet");
        let o = q.step(&idle());
        assert!(o.m_axis_tvalid && !o.m_axis_tlast);
        assert_eq!((o.m_axis_tdest, o.m_axis_tdata.0[0]), (3, 0xaa));
        let o = q.step(&idle());
        assert!(o.m_axis_tvalid && o.m_axis_tlast);
        assert_eq!((o.m_axis_tdest, o.m_axis_tdata.0[0]), (3, 0xbb), "later beats keep the first beat's port");
        assert!(!q.step(&idle()).m_axis_tvalid);
    }

    #[test]
    fn a_miss_drops_the_whole_frame_and_pulses_once() {
        let mut q = queue();
        q.step(&beat(0x0021, 1, false));
        q.step(&beat(0x0010, 2, true));
        let outs: Vec<_> = (0..4).map(|_| q.step(&idle())).collect();
        assert!(outs.iter().all(|o| !o.m_axis_tvalid));
        assert_eq!(outs.iter().filter(|o| o.stat_route_miss).count(), 1);
    }

    #[test]
    fn lowest_matching_index_wins_and_writes_apply_next_cycle() {
        let mut q = queue();
        q.step(&OutputQueueIn {
            cfg_route_wr_en: true,
            cfg_route_wr_index: 5,
            cfg_route_wr_valid: true,
            cfg_route_wr_dest_mask: 0,
            cfg_route_wr_port: 9,
            ..idle()
        });
        assert_eq!(q.lookup(0x0013), Some(3));
        assert_eq!(q.lookup(0x0021), Some(9));
    }

    #[test]
    fn backpressure_fills_the_fifo_then_deasserts_ready_without_loss() {
        let mut q = queue();
        let depth = q.params().fifo_depth;
        let stalled = |b: OutputQueueIn| OutputQueueIn { m_axis_tready: false, ..b };
        let mut accepted = 0;
        for n in 0..depth + 4 {
            if q.step(&stalled(beat(0x0010, n as u64, true))).s_axis_tready {
                accepted += 1;
            }
        }
        // The FIFO holds `depth` beats and the output register one more.
        assert_eq!(accepted, depth + 1);
        let mut seen = Vec::new();
        for _ in 0..depth + 4 {
            let o = q.step(&idle());
            if o.m_axis_tvalid {
                seen.push(o.m_axis_tdata.0[0]);
            }
        }
        assert_eq!(seen, (0..accepted as u64).collect::<Vec<_>>());
    }

    #[test]
    fn reset_flushes_and_invalidates_routes() {
        let mut q = queue();
        q.step(&beat(0x0010, 1, true));
        q.step(&OutputQueueIn { rst: true, ..idle() });
        assert_eq!(q.fifo_level(), 0);
        assert_eq!(q.lookup(0x0010), None);
        assert_eq!(q.step(&idle()), OutputQueueOut { s_axis_tready: true, ..Default::default() });
    }

    #[test]
    fn bad_parameters_are_rejected() {
        let d = OutputQueueParams::default();
        assert_eq!(OutputQueue::new(OutputQueueParams { fifo_depth: 24, ..d }).unwrap_err(), ParamError::FifoDepth(24));
        assert_eq!(OutputQueue::new(OutputQueueParams { data_width: 520, ..d }).unwrap_err(), ParamError::DataWidth(520));
        assert_eq!(OutputQueueParams { route_entries: 12, ..d }.route_index_width(), 4);
        assert_eq!(OutputQueueParams { route_entries: 1, ..d }.route_index_width(), 1);
    }
}
