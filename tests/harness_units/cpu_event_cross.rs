//! `verif/blocks/cpu/coverage.rs` (`blocks::cpu::event_cross`).

use inswitch::blocks::cpu::event_cross::*;

/// The table above is the RTL's `EV_*` localparams (`rtl/cpu_codes.vh`, which `rtl/cpu.v` includes),
/// name for name and code for code.
#[test]
fn events_are_the_rtl_codes() {
    let v = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rtl/cpu_codes.vh")).expect("rtl/cpu_codes.vh");
    let mut found = 0;
    for part in v.split("EV_").skip(1) {
        let Some((name, rest)) = part.split_once('=') else { continue };
        let name = name.trim();
        let Some(code) = rest.trim().strip_prefix("6'd") else { continue };
        let code: u8 = code.chars().take_while(char::is_ascii_digit).collect::<String>().parse().expect("a code");
        assert_eq!(event(code).map(|i| EVENTS[i]), Some(name), "EV_{name} = {code}");
        found += 1;
    }
    assert_eq!(found, EVENTS.len());
}
