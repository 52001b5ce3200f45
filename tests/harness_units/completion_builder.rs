//! `verif/blocks/completion_builder.rs`.

use inswitch::blocks::completion_builder::*;

fn mrd(length_dw: u32, first_be: u8, last_be: u8, addr: u8) -> Expected {
    Expected { status: Some(1), data: 0, requester_id: 0, tag: 0, tc: 0, attr: 0, mem_read: true, locked: false, length_dw, first_be, last_be, addr, completer_id: 0, seq: 0 }
}

#[test]
fn the_scoreboard_byte_count_is_the_span_of_enabled_bytes() {
    assert_eq!(mrd(1, 0b0110, 0, 0).byte_count(), 2);
    assert_eq!(mrd(1, 0b0000, 0, 0).byte_count(), 1);
    assert_eq!(mrd(2, 0b1000, 0b0001, 0).byte_count(), 2);
    assert_eq!(mrd(1024, 0xF, 0xF, 0).byte_count(), 0);
    assert_eq!(mrd(1, 0b0100, 0, 0x11).lower_address(), 0x12);
}
