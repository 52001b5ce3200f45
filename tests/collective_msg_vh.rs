//! The collective message's field list is written once (`msg_fields!` in crates/model/src/message.rs):
//! the RTL's `rtl/collective_msg.vh` is generated from it, and the Verilated blocks' message ports are
//! exactly its fields at its widths (docs/blocks/collective_message.md §Single source).

use std::path::Path;

use inswitch::verilated::VerilatedDut;
use inswitch_model::input_checker::{InputCheckerIn, InputCheckerOut};
use inswitch_model::cpu::{CpuIn, CpuOut};
use inswitch_model::frame_builder::{FrameBuilderIn, FrameBuilderOut};
use inswitch_model::message::{verilog_header, MsgPort, MSG_WIDTH};
use inswitch_model::Ports;

#[test]
fn the_checked_in_header_is_the_generated_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl/collective_msg.vh");
    let on_disk = std::fs::read_to_string(&path).expect("rtl/collective_msg.vh");
    assert!(
        on_disk == verilog_header(),
        "{} differs from the field list in crates/model/src/message.rs: run \
         `cargo run --release -- msg-header > rtl/collective_msg.vh`",
        path.display()
    );
}

/// The header's packed-bus width and offsets, read back from its text, agree with the Rust list.
#[test]
fn the_header_declares_every_field_at_its_width_and_offset() {
    let text = verilog_header();
    let define = |name: &str| -> u32 {
        let key = format!("`define {name} ");
        let line = text.lines().find(|l| l.starts_with(&key)).unwrap_or_else(|| panic!("no {key}"));
        line[key.len()..].trim().parse().unwrap_or_else(|e| panic!("{line}: {e}"))
    };
    let mut lsb = 0;
    for &(f, w) in MsgPort::FIELDS {
        let up = f.to_ascii_uppercase();
        assert_eq!(define(&format!("COLLECTIVE_MSG_{up}_WIDTH")), w, "{f}");
        assert_eq!(define(&format!("COLLECTIVE_MSG_{up}_LSB")), lsb, "{f}");
        lsb += w;
        for macro_name in ["SINK_PORTS", "SOURCE_PORTS", "WIRES", "CONNECT", "BUS"] {
            let start = text.find(&format!("`define COLLECTIVE_MSG_{macro_name}(")).expect(macro_name);
            let body: String = text[start..].lines().take_while(|l| !l.is_empty()).collect();
            assert!(body.contains(&format!("p``_{f}")) || body.contains(&format!("port``_{f}(net``_{f})")), "{macro_name} lacks {f}");
        }
    }
    assert_eq!(define("COLLECTIVE_MSG_WIDTH"), lsb);
    // docs/blocks/collective_message.md: 626 bits per message.
    assert_eq!(MSG_WIDTH, 626);
    assert_eq!(lsb, MSG_WIDTH);
}

/// Every block that carries a message has one RTL port per field, at the field's width, with the name
/// the Rust struct reports (`<prefix>_<field>`).
#[test]
fn the_verilated_blocks_have_the_message_ports_at_the_field_widths() {
    fn check<I: Ports, O: Ports>(model: &str, prefixes: &[&str]) {
        let dut = VerilatedDut::<I, O>::new(model).unwrap_or_else(|e| panic!("{model}: {e}"));
        for prefix in prefixes {
            for &(f, w) in MsgPort::FIELDS {
                let name = format!("{prefix}_{f}");
                assert_eq!(dut.port_width(&name), Some(w), "{model}: {name}");
                assert!(I::NAMES.contains(&name.as_str()) || O::NAMES.contains(&name.as_str()), "{model}: {name}");
            }
        }
    }
    check::<InputCheckerIn, InputCheckerOut>("input_checker_w256", &["m_msg"]);
    check::<CpuIn, CpuOut>("cpu", &["s_msg", "m_msg"]);
    check::<FrameBuilderIn, FrameBuilderOut>("frame_builder_w256", &["s_msg"]);
}
