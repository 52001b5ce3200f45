//! Completion builder: PCIe completions for the engine's non-posted requests (seed 000 \[0097\], claim
//! 14: a non-posted message expects a response or completion; \[0113\]: the engine is an addressable
//! endpoint, so it completes the memory reads of its register window).
//!
//! Cycle model of `rtl/completion_builder.v`; ports, frame layout and timing are
//! `docs/blocks/completion_builder.md`. Two request streams become one stream of one-beat completion
//! frames, in the data-link form the rest of the engine uses (`{0000, seq[11:0]}`, TLP, LCRC
//! little-endian, `docs/frames.md` §7):
//!
//! * `s_rsp_*`, the register space's responses: a read answered OK becomes a CplD with the read data
//!   (Successful Completion); a read to an unmapped offset a Cpl with status Unsupported Request; a read
//!   the register space rejected a Cpl with status Completer Abort; a write (a posted MWr) nothing;
//! * `s_ur_*`, non-posted requests the input checker dropped (`docs/blocks/input_checker.md` §Unsupported Requests):
//!   a Cpl (CplLk for a locked read) with status Unsupported Request.
//!
//! Completer ID = `cfg_engine_id`; Requester ID, Tag (10 bits), TC and Attr from the request; Byte Count
//! and Lower Address by PCIe Base Specification §2.2.9 / §2.3.1.1 (Tables 2-40, 2-41) for memory reads, 4
//! and 0 for every other request. The Portals family has no completions (its reductions are posted).

use crate::code_table;
// The register space's response status (`s_rsp_status`).
use crate::register_space::status as rsp_status;
use crate::frame_buf::FrameBuf;
// The request fields the input checker also puts out on `m_ur_*`: one type.
use crate::input_checker::RequestFields;
use crate::ports;
use crate::signal::{Block, Wide, WIDE_MAX_BITS};

/// Bytes of the sequence-number field in front of a TLP (data-link form).
pub const SEQ_BYTES: usize = 2;
/// Bytes of a completion header (3 DW).
pub const HEADER_BYTES: usize = 12;
/// Bytes of the read data of a CplD (the register space's DW).
pub const DATA_BYTES: usize = 4;
/// Bytes of the LCRC.
pub const LCRC_BYTES: usize = 4;
/// A Cpl / CplLk frame: sequence field, header, LCRC.
pub const CPL_FRAME_BYTES: usize = SEQ_BYTES + HEADER_BYTES + LCRC_BYTES;
/// A CplD frame: sequence field, header, one data DW, LCRC.
pub const CPLD_FRAME_BYTES: usize = CPL_FRAME_BYTES + DATA_BYTES;
/// Sequence numbers are 12 bits.
pub const SEQ_MASK: u16 = 0xFFF;

code_table! {
    /// Completion Status field values (PCIe §2.2.9, Table 2-34).
    pub mod cpl_status: "CPL", 3 bits {
        SC = 0b000, "Successful Completion.";
        UR = 0b001, "Unsupported Request.";
        CA = 0b100, "Completer Abort.";
    }
}

code_table! {
    /// Type field of a completion's DW0 (PCIe §2.2.1; Fmt 000 without data, 010 with).
    pub mod tlp_type: "TYPE", 5 bits {
        CPL = 0b01010, "Cpl / CplD.";
        CPL_LK = 0b01011, "CplLk / CplDLk (completion of a locked read).";
    }
}

/// Completion Status (PCIe §2.2.9, Table 2-34).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CplStatus {
    /// 000 Successful Completion.
    Sc,
    /// 001 Unsupported Request.
    Ur,
    /// 100 Completer Abort.
    Ca,
}

impl CplStatus {
    /// The 3-bit field value.
    pub fn code(self) -> u8 {
        match self {
            CplStatus::Sc => cpl_status::SC,
            CplStatus::Ur => cpl_status::UR,
            CplStatus::Ca => cpl_status::CA,
        }
    }
}

code_table! {
    /// `stat_event` bits (one pulse per request taken, the cycle after).
    pub mod event: "EV", 2 bits as u32 {
        CPLD = 0, "A CplD with Successful Completion was built (a register read).";
        UR = 1, "A Cpl / CplLk with Unsupported Request was built.";
        CA = 2, "A Cpl with Completer Abort was built.";
        POSTED = 3, "A response to a posted write was taken; it needs no completion.";
    }
    /// Number of event bits (the width of `stat_event`).
    pub const COUNT: u32 = TABLE.len() as u32;
}

/// One completion to build, whichever stream it came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CompletionRequest {
    /// Completion Status.
    pub status: Option<CplStatus>,
    /// Read data of a Successful Completion (little-endian: bits 7:0 are the lowest-addressed byte).
    pub data: u32,
    /// The request it answers.
    pub request: RequestFields,
}

/// Offset of the first enabled byte of the first DW (Table 2-41: 0000 and xxx1 give 0).
pub fn first_be_offset(first_be: u8) -> u16 {
    match first_be & 0xF {
        0 => 0,
        be => be.trailing_zeros() as u16,
    }
}

/// Byte Count of a completion to `r` (§2.3.1.1 and Table 2-40 for memory reads; 4 otherwise). The 12-bit
/// field: 4096 is 0.
pub fn byte_count(r: &RequestFields) -> u16 {
    if !r.mem_read {
        return 4;
    }
    let bytes = if r.last_be & 0xF == 0 {
        // 1 DW: from the first enabled byte to the last one; 0000 (a zero-length read) counts 1.
        let be = r.first_be & 0xF;
        if be == 0 { 1 } else { 8 - be.leading_zeros() as u16 - be.trailing_zeros() as u16 }
    } else {
        let dw = if r.length & 0x3FF == 0 { 1024 } else { r.length & 0x3FF };
        let last_gap = (r.last_be & 0xF).leading_zeros() as u16 - 4;
        4 * dw - first_be_offset(r.first_be) - last_gap
    };
    bytes & 0xFFF
}

/// Lower Address of a completion to `r` (Table 2-41 for memory reads; 0 otherwise).
pub fn lower_address(r: &RequestFields) -> u8 {
    if r.mem_read { (r.addr & 0x7C) | first_be_offset(r.first_be) as u8 } else { 0 }
}

/// The completion frame for `r` (`None` for a posted write: no completion), completer `engine_id`,
/// sequence number `seq`: `{0000, seq}`, the 3-DW header, the data DW of a CplD, the LCRC.
pub fn completion_frame(r: &CompletionRequest, engine_id: u16, seq: u16) -> Option<Vec<u8>> {
    completion_frame_buf(r, engine_id, seq).map(|f| f.to_vec())
}

/// [`completion_frame`] into a fixed buffer: no heap allocation (the model's step path, issue 23).
pub fn completion_frame_buf(r: &CompletionRequest, engine_id: u16, seq: u16) -> Option<FrameBuf<CPLD_FRAME_BYTES>> {
    let status = r.status?;
    let with_data = status == CplStatus::Sc;
    let fmt: u8 = if with_data { 0b010 } else { 0b000 };
    let q = &r.request;
    let ty: u8 = if q.locked { tlp_type::CPL_LK } else { tlp_type::CPL };
    let bc = byte_count(q);
    let tag = q.tag & 0x3FF;
    let mut f = FrameBuf::new();
    f.extend_from_slice(&(seq & SEQ_MASK).to_be_bytes());
    f.push(fmt << 5 | ty);
    f.push(((tag >> 9) as u8 & 1) << 7 | (q.tc & 7) << 4 | ((tag >> 8) as u8 & 1) << 3 | (q.attr >> 2 & 1) << 2);
    f.push((q.attr & 3) << 4);
    f.push(u8::from(with_data));
    f.extend_from_slice(&engine_id.to_be_bytes());
    f.push(status.code() << 5 | (bc >> 8) as u8);
    f.push(bc as u8);
    f.extend_from_slice(&q.src.to_be_bytes());
    f.push(tag as u8);
    f.push(lower_address(q) & 0x7F);
    if with_data {
        f.extend_from_slice(&r.data.to_le_bytes());
    }
    let crc = crate::crc32::crc32_frame(&f);
    f.extend_from_slice(&crc.to_le_bytes());
    Some(f)
}

ports! {
    /// Inputs of `rtl/completion_builder.v` (clk aside).
    pub struct CompletionBuilderIn {
        /// Synchronous, active-high reset: the completion on the output is dropped, `seq` = 0.
        pub rst: bool,
        /// A register-space response is offered.
        pub s_rsp_valid: bool,
        /// The response is to a write (posted: no completion).
        pub s_rsp_write: bool,
        /// Register-space status: 0 OK, 1 rejected, 2 unmapped.
        pub s_rsp_status: u8,
        /// Read data.
        pub s_rsp_rdata: u32,
        /// Requester ID of the access.
        pub s_rsp_src: u16,
        /// Tag of the access (10 bits).
        pub s_rsp_tag: u16,
        /// Byte offset of the access (bits 6:2 give the Lower Address).
        pub s_rsp_addr: u16,
        /// Byte enables of the access (the request's First DW BE).
        pub s_rsp_be: u8,
        /// A dropped non-posted request is offered (needs an Unsupported Request completion).
        pub s_ur_valid: bool,
        /// Its Requester ID.
        pub s_ur_src: u16,
        /// Its tag (10 bits).
        pub s_ur_tag: u16,
        /// Its Traffic Class.
        pub s_ur_tc: u8,
        /// Its Attr\[2:0\].
        pub s_ur_attr: u8,
        /// It was a memory read (MRd, MRdLk).
        pub s_ur_mem_read: bool,
        /// It was a locked memory read (MRdLk).
        pub s_ur_locked: bool,
        /// Its Length field (0 = 1024 DW).
        pub s_ur_length: u16,
        /// Its First DW BE.
        pub s_ur_first_be: u8,
        /// Its Last DW BE.
        pub s_ur_last_be: u8,
        /// Its address bits 6:0.
        pub s_ur_addr: u8,
        /// The consumer takes the beat.
        pub m_axis_tready: bool,
        /// The engine's device ID: the Completer ID.
        pub cfg_engine_id: u16,
    }
}

ports! {
    /// Outputs of `rtl/completion_builder.v`.
    pub struct CompletionBuilderOut {
        /// The response is taken.
        pub s_rsp_ready: bool,
        /// The dropped request is taken.
        pub s_ur_ready: bool,
        /// Frame data (one beat).
        pub m_axis_tdata: Wide,
        /// Byte enables.
        pub m_axis_tkeep: u64,
        /// A completion frame is offered.
        pub m_axis_tvalid: bool,
        /// Last beat (every completion is one beat).
        pub m_axis_tlast: bool,
        /// Requester ID: the destination device ID the output queue routes on.
        pub m_axis_tuser: u16,
        /// Pulses ([`event`]).
        pub stat_event: u8,
    }
}

impl CompletionBuilderIn {
    /// The completion the register-space response on `s_rsp_*` asks for (status `None`: a posted write).
    pub fn rsp_request(&self) -> CompletionRequest {
        let status = match (self.s_rsp_write, self.s_rsp_status & 3) {
            (true, _) => None,
            (false, rsp_status::OK) => Some(CplStatus::Sc),
            (false, rsp_status::UNMAPPED) => Some(CplStatus::Ur),
            // Rejected (and the undefined status 3): the register space refused a request it decoded.
            (false, _) => Some(CplStatus::Ca),
        };
        CompletionRequest {
            status,
            data: self.s_rsp_rdata,
            request: RequestFields {
                src: self.s_rsp_src,
                tag: self.s_rsp_tag & 0x3FF,
                tc: 0,
                attr: 0,
                mem_read: true,
                locked: false,
                length: 1,
                first_be: self.s_rsp_be & 0xF,
                last_be: 0,
                addr: (self.s_rsp_addr & 0x7F) as u8,
            },
        }
    }

    /// The completion the dropped request on `s_ur_*` asks for.
    pub fn ur_request(&self) -> CompletionRequest {
        CompletionRequest {
            status: Some(CplStatus::Ur),
            data: 0,
            request: RequestFields {
                src: self.s_ur_src,
                tag: self.s_ur_tag & 0x3FF,
                tc: self.s_ur_tc & 7,
                attr: self.s_ur_attr & 7,
                mem_read: self.s_ur_mem_read,
                locked: self.s_ur_locked,
                length: self.s_ur_length & 0x3FF,
                first_be: self.s_ur_first_be & 0xF,
                last_be: self.s_ur_last_be & 0xF,
                addr: self.s_ur_addr & 0x7F,
            },
        }
    }
}

/// Parameters (the RTL parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletionBuilderParams {
    /// Data width in bits: 256 or 512 (a completion, at most 22 bytes, is one beat).
    pub data_width: usize,
}

impl Default for CompletionBuilderParams {
    fn default() -> Self {
        CompletionBuilderParams { data_width: 256 }
    }
}

/// A parameter set the block does not support.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// `DATA_WIDTH` must be 256 or 512.
    #[error("completion builder: DATA_WIDTH {0} is not 256 or 512")]
    DataWidth(usize),
}

/// The completion builder's registers.
#[derive(Clone, Debug, PartialEq)]
pub struct CompletionBuilder {
    p: CompletionBuilderParams,
    valid: bool,
    tdata: Wide,
    tkeep: u64,
    tuser: u16,
    seq: u16,
    stat_event: u8,
}

impl CompletionBuilder {
    /// A builder in its reset state.
    pub fn new(p: CompletionBuilderParams) -> Result<Self, ParamError> {
        if !(p.data_width == 256 || p.data_width == 512) || p.data_width > WIDE_MAX_BITS {
            return Err(ParamError::DataWidth(p.data_width));
        }
        Ok(Self::reset_state(p))
    }

    fn reset_state(p: CompletionBuilderParams) -> Self {
        CompletionBuilder { p, valid: false, tdata: Wide::ZERO, tkeep: 0, tuser: 0, seq: 0, stat_event: 0 }
    }

    /// The next TLP sequence number.
    pub fn seq(&self) -> u16 {
        self.seq
    }
}

impl Block for CompletionBuilder {
    type In = CompletionBuilderIn;
    type Out = CompletionBuilderOut;

    #[inline(always)]
    fn step(&mut self, i: &CompletionBuilderIn) -> CompletionBuilderOut {
        let free = !i.rst && (!self.valid || i.m_axis_tready);
        let out = CompletionBuilderOut {
            s_rsp_ready: free,
            // Register responses first: they keep the register space (and the checker behind it) moving.
            s_ur_ready: free && !i.s_rsp_valid,
            m_axis_tdata: self.tdata,
            m_axis_tkeep: self.tkeep,
            m_axis_tvalid: self.valid,
            m_axis_tlast: self.valid,
            m_axis_tuser: self.tuser,
            stat_event: self.stat_event,
        };

        // Rising edge.
        self.stat_event = 0;
        if self.valid && i.m_axis_tready {
            self.valid = false;
        }
        let req = if i.s_rsp_valid && out.s_rsp_ready {
            Some(i.rsp_request())
        } else if i.s_ur_valid && out.s_ur_ready {
            Some(i.ur_request())
        } else {
            None
        };
        if let Some(r) = req {
            self.stat_event = 1 << match r.status {
                None => event::POSTED,
                Some(CplStatus::Sc) => event::CPLD,
                Some(CplStatus::Ur) => event::UR,
                Some(CplStatus::Ca) => event::CA,
            };
            if let Some(f) = completion_frame_buf(&r, i.cfg_engine_id, self.seq) {
                self.tdata = Wide::ZERO;
                for (k, &b) in f.iter().enumerate() {
                    self.tdata.set_byte(k, b);
                }
                self.tkeep = (1u64 << f.len()) - 1;
                self.tuser = r.request.src;
                self.valid = true;
                self.seq = (self.seq + 1) & SEQ_MASK;
            }
        }
        if i.rst {
            *self = Self::reset_state(self.p);
        }
        out
    }
}

/// The text of `rtl/completion_builder_codes.vh`, to be included inside module `completion_builder`.
pub fn verilog_header() -> String {
    use crate::codes::{integers, Header};
    let mut h = Header::new(&[
        "// The completion builder's codes and frame sizes (docs/blocks/completion_builder.md), included inside",
        "// module completion_builder (rtl/completion_builder.v).",
        "// GENERATED from crates/model/src/completion_builder.rs (and the register space's response status,",
        "// crates/model/src/register_space/map.rs): do not edit; run",
        "// `INSWITCH_BLESS=1 cargo test --release -p inswitch-model completion_builder_codes` (the same test checks it).",
        "// The response status names a code the builder folds into `else` (REJECTED), hence UNUSEDPARAM off.",
        "",
        "// verilator lint_off UNUSEDPARAM",
    ]);
    h.section("Register-space response status (s_rsp_status)", &rsp_status::localparams());
    h.section("Completion Status (PCIe Table 2-34)", &cpl_status::localparams());
    h.section("Completion Type field (Fmt 000 Cpl, 010 CplD)", &tlp_type::localparams());
    let count = format!("localparam EV_COUNT = {};\n", event::COUNT);
    h.section("Event bits: the bit of stat_event a request taken pulses (EV_COUNT bits in all)", &(event::localparams() + &count));
    let sizes = integers([
        ("HEADER_END", (SEQ_BYTES + HEADER_BYTES) as u64),
        ("CPL_FRAME_BYTES", CPL_FRAME_BYTES as u64),
        ("CPLD_FRAME_BYTES", CPLD_FRAME_BYTES as u64),
    ]);
    h.section("Frame bytes: sequence field + 3-DW header (HEADER_END), a Cpl, a CplD (data DW, LCRC)", &sizes);
    h.section("LCRC: the reflected CRC-32 of a whole frame as XOR trees (crates/model/src/input_checker/crc_matrix.rs)", &crate::input_checker::crc_matrix::rows_localparams());
    h.line("// verilator lint_on UNUSEDPARAM");
    h.text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input_checker::crc32_byte;

    #[test]
    fn completion_builder_codes_vh_is_current() {
        crate::codes::check_generated("completion_builder_codes.vh", &verilog_header(), "completion_builder_codes");
    }

    fn mrd(first_be: u8, last_be: u8, length: u16, addr: u8) -> RequestFields {
        RequestFields { mem_read: true, first_be, last_be, length, addr, ..Default::default() }
    }

    #[test]
    fn byte_count_follows_table_2_40() {
        for (be, bc) in [(0b1001, 4), (0b1111, 4), (0b0101, 3), (0b0111, 3), (0b1010, 3), (0b1110, 3), (0b0011, 2), (0b0110, 2), (0b1100, 2), (0b0001, 1), (0b0010, 1), (0b0100, 1), (0b1000, 1), (0b0000, 1)] {
            assert_eq!(byte_count(&mrd(be, 0, 1, 0)), bc, "first BE {be:04b}");
        }
        // Multi-DW: 4 * length minus the disabled bytes at both ends.
        assert_eq!(byte_count(&mrd(0b1110, 0b0011, 3, 0)), 12 - 1 - 2);
        assert_eq!(byte_count(&mrd(0b1111, 0b1111, 0, 0)), 0, "1024 DW = 4096 bytes is encoded 0");
        assert_eq!(byte_count(&RequestFields { mem_read: false, ..mrd(0b0001, 0, 1, 0) }), 4);
    }

    #[test]
    fn lower_address_follows_table_2_41() {
        for (be, la) in [(0b0000, 0), (0b0001, 0), (0b1111, 0), (0b0010, 1), (0b1110, 1), (0b0100, 2), (0b1100, 2), (0b1000, 3)] {
            assert_eq!(lower_address(&mrd(be, 0, 1, 0x40)), 0x40 | la, "first BE {be:04b}");
        }
        assert_eq!(lower_address(&mrd(0b0100, 0, 1, 0x7F)), 0x7E, "address bits 1:0 (PH) ignored");
    }

    #[test]
    fn cpld_and_cpl_frames_have_the_documented_bytes() {
        let request = RequestFields { src: 0x0001, tag: 0x3A5, mem_read: true, length: 1, first_be: 0xF, addr: 0x00, ..Default::default() };
        let r = CompletionRequest { status: Some(CplStatus::Sc), data: 0x1C0E_0001, request };
        let f = completion_frame(&r, 0x0010, 5).unwrap();
        assert_eq!(f.len(), CPLD_FRAME_BYTES);
        assert_eq!(&f[..18], &[0x00, 0x05, 0x4A, 0x88, 0x00, 0x01, 0x00, 0x10, 0x00, 0x04, 0x00, 0x01, 0xA5, 0x00, 0x01, 0x00, 0x0E, 0x1C]);
        assert_eq!(f.iter().fold(u32::MAX, |c, &b| crc32_byte(c, b)), crate::input_checker::CRC32_RESIDUE);
        let ur = completion_frame(&CompletionRequest { status: Some(CplStatus::Ur), request: RequestFields { locked: true, ..request }, ..r }, 0x0010, 6).unwrap();
        assert_eq!(ur.len(), CPL_FRAME_BYTES);
        assert_eq!(&ur[2..6], &[0x0B, 0x88, 0x00, 0x00]);
        assert_eq!(ur[8] >> 5, 1);
        assert!(completion_frame(&CompletionRequest { status: None, ..r }, 0, 0).is_none());
    }

    #[test]
    fn bad_width_is_a_typed_error() {
        assert_eq!(CompletionBuilder::new(CompletionBuilderParams { data_width: 64 }).err(), Some(ParamError::DataWidth(64)));
    }
}
