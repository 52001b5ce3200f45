//! `verif/blocks/register_space.rs`.

use inswitch::blocks::register_space::*;
use inswitch_model::register_space::{self, offset};

#[test]
fn the_documented_table_agrees_with_the_model_offsets() {
    let t = register_table();
    for off in [offset::CTRL, offset::MASTER_ID, offset::ETHERTYPE, offset::VNI_ALLOWED, offset::ROUTE + 4, offset::MCAST_INDEX] {
        assert!(t.contains_key(&off), "{off:#x}");
        assert!(register_space::decode(off as u16).is_some());
    }
    assert!(register_space::decode(offset::MCAST_PORTS as u16 + 4).is_none() && !t.contains_key(&(offset::MCAST_PORTS + 4)));
}
