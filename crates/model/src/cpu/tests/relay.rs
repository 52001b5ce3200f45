//! The master configures its subservients (000 [0106]-[0107], [0157]; docs/blocks/cpu.md §Messages): a
//! FIG. 4 configuration message for an engine below is relayed down the tree as its INITIALIZATION is.

use super::*;

/// A configuration message (kind 1) whose P_ID names an engine below is relayed like an INITIALIZATION
/// for it: to that engine when it is a switch participant of the stored context, else to every switch
/// participant, with this engine as requester, the P_ID, `pbv` (`ConfigFixed`) and `data` (the device-ID
/// slots) unchanged; acknowledged if non-posted; nothing stored. One for this engine (or none) is not the
/// CPU's: the checker applies it (BAD_KIND here); one for a context not stored has nowhere to go.
#[test]
fn a_configuration_message_for_an_engine_below_is_relayed_down() {
    let mut tb = Tb::small();
    let master_pbv = 1 | 1 << 8 | 1 << 9;
    tb.static_entry(0, false, role::MASTER, 0x345, 0);
    tb.send_init(init(0x345, master_pbv, 3, Opcode::IntSum, 0, true));
    tb.take();
    let fixed: u128 = 0x0123_4567_89AB_CDEF_0011_2233_4455_6677;
    let slots = [0x0011_0012_0013_0014, 0x0015_0016_0017_0018, 0, 0];
    let config = CollectiveMsg {
        kind: Kind::CONFIGURATION,
        ctx: 0x345,
        src: u32::from(SOURCE),
        dst: u32::from(ENGINE_ID),
        pid: 0x0209,
        posted: true,
        pbv: fixed,
        data: slots,
        ..CollectiveMsg::default()
    };
    tb.send(config);
    tb.send(CollectiveMsg { pid: 0x0555, ..config });
    tb.send(CollectiveMsg { posted: false, ..config });
    tb.send(CollectiveMsg { pid: ENGINE_ID, ..config });
    tb.send(CollectiveMsg { pid: NO_PARTICIPANT, ..config });
    tb.send(CollectiveMsg { ctx: 0x0AB, ..config });
    let (outs, events) = tb.take();
    assert_eq!(events, [event::INIT_RELAY, event::INIT_RELAY, event::INIT_RELAY, event::BAD_KIND, event::BAD_KIND, event::DROP_UNKNOWN]);
    let got: Vec<(Kind, u32, u32, u16)> = outs.iter().map(|o| (o.kind, o.src, o.dst, o.pid)).collect();
    let me = u32::from(ENGINE_ID);
    assert_eq!(
        got,
        [
            (Kind::CONFIGURATION, me, 0x0209, 0x0209),
            (Kind::CONFIGURATION, me, 0x0208, 0x0555),
            (Kind::CONFIGURATION, me, 0x0209, 0x0555),
            (Kind::CONFIGURATION, me, 0x0209, 0x0209),
            (Kind::COMPLETION, me, u32::from(SOURCE), 0x0209),
        ]
    );
    for o in outs.iter().filter(|o| o.kind == Kind::CONFIGURATION) {
        assert_eq!((o.pbv, o.data, o.ctx), (fixed, slots, 0x345), "the configuration is carried unchanged");
    }
    assert_eq!(outs[4].code, completion::ACKNOWLEDGED);
    let s = tb.entry(0);
    assert_eq!((s.pbv, s.pcount, s.upstream), (master_pbv, 3, SOURCE), "the relaying engine stores nothing");
}
