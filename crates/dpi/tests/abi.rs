//! The C ABI from Rust: a model driven through it matches the registry's, and every error path returns
//! the error status with a message naming what is wrong.

use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use inswitch_dpi::*;

fn last() -> String {
    unsafe { CStr::from_ptr(inswitch_last_error()) }.to_string_lossy().into_owned()
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn new(block: &str, params: &str) -> *mut InswitchModel {
    unsafe { inswitch_model_new(c(block).as_ptr(), c(params).as_ptr()) }
}

#[test]
fn drives_an_output_queue_through_the_abi() {
    let m = new("output_queue", "DATA_WIDTH=64");
    assert!(!m.is_null(), "{}", last());
    unsafe {
        let n = inswitch_model_port_count(m);
        let inputs = inswitch_model_input_count(m);
        assert!(inputs > 0 && n > inputs);
        let mut name: *const c_char = null();
        let (mut width, mut out) = (0u32, 0u32);
        let data = inswitch_model_port_index(m, c("s_axis_tdata").as_ptr());
        assert_eq!(inswitch_model_port(m, data as u32, &mut name, &mut width, &mut out), INSWITCH_OK);
        assert_eq!((CStr::from_ptr(name).to_str().unwrap(), width, out), ("s_axis_tdata", 64, 0));
        let idx = |s: &str| inswitch_model_port_index(m, c(s).as_ptr()) as u32;
        // Program route 0 = default route to port 5, send a one-beat frame, see it leave.
        let set = |p: &str, v: &[u32]| assert_eq!(inswitch_model_set_input(m, idx(p), v.as_ptr(), v.len() as u32), INSWITCH_OK, "{}", last());
        set("rst", &[1]);
        assert_eq!(inswitch_model_step(m), INSWITCH_OK);
        set("rst", &[0]);
        set("cfg_route_wr_en", &[1]);
        set("cfg_route_wr_valid", &[1]);
        set("cfg_route_wr_port", &[5]);
        inswitch_model_step(m);
        set("cfg_route_wr_en", &[0]);
        set("s_axis_tdata", &[0xdead_beef, 0x0123_4567]);
        set("s_axis_tkeep", &[0xff]);
        set("s_axis_tvalid", &[1]);
        set("s_axis_tlast", &[1]);
        set("m_axis_tready", &[1]);
        inswitch_model_step(m);
        set("s_axis_tvalid", &[0]);
        let mut seen = None;
        for _ in 0..8 {
            inswitch_model_step(m);
            let mut v = [0u32; 4];
            inswitch_model_output(m, idx("m_axis_tvalid"), v.as_mut_ptr(), 4);
            if v[0] == 1 {
                let mut d = [0u32; 2];
                let mut t = [0u32; 1];
                inswitch_model_output(m, idx("m_axis_tdata"), d.as_mut_ptr(), 2);
                inswitch_model_output(m, idx("m_axis_tdest"), t.as_mut_ptr(), 1);
                seen = Some((d, t[0]));
                break;
            }
        }
        assert_eq!(seen, Some(([0xdead_beef, 0x0123_4567], 5)));
        assert_eq!(inswitch_model_reset(m), INSWITCH_OK);
        let mut v = [7u32; 2];
        inswitch_model_output(m, idx("m_axis_tvalid"), v.as_mut_ptr(), 2);
        assert_eq!(v, [0, 0], "reset clears outputs; extra words are zeroed");
        assert_eq!(inswitch_model_settle(m), INSWITCH_OK);
        inswitch_model_free(m);
    }
}

#[test]
fn every_error_path_returns_an_error_and_says_why() {
    unsafe {
        assert!(inswitch_model_new(null(), null()).is_null());
        assert_eq!(last(), "inswitch_model_new: the block name is a null pointer");
        assert!(new("no_such_block", "").is_null());
        assert!(last().starts_with("inswitch_model_new: no block named `no_such_block` (known: output_queue, "), "{}", last());
        assert!(new("output_queue", "BOGUS=1").is_null());
        assert!(last().starts_with("inswitch_model_new: block `output_queue` has no parameter `BOGUS`"), "{}", last());
        assert!(new("output_queue", "DATA_WIDTH").is_null());
        assert_eq!(last(), "inswitch_model_new: block `output_queue`: cannot read parameter assignment `DATA_WIDTH`: expected NAME=VALUE");
        assert!(new("output_queue", "DEST_ID_WIDTH=8").is_null());
        assert_eq!(last(), "inswitch_model_new: block `output_queue`: the model implements DEST_ID_WIDTH = 16 only (asked for 8)");
        assert!(new("output_queue", "DATA_WIDTH=12").is_null());
        assert!(last().starts_with("inswitch_model_new: block `output_queue`: the model rejects these parameters: "), "{}", last());
        let bad = [0xffu8, 0];
        assert!(inswitch_model_new(bad.as_ptr().cast(), null()).is_null());
        assert_eq!(last(), "inswitch_model_new: the block name is not UTF-8");

        // Null handles.
        assert_eq!(inswitch_model_port_count(null_mut()), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_port_count: the model handle is a null pointer");
        assert_eq!(inswitch_model_input_count(null_mut()), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_input_count: the model handle is a null pointer");
        assert_eq!(inswitch_model_step(null_mut()), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_step: the model handle is a null pointer");
        assert_eq!(inswitch_model_settle(null_mut()), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_settle: the model handle is a null pointer");
        assert_eq!(inswitch_model_reset(null_mut()), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_reset: the model handle is a null pointer");
        inswitch_model_free(null_mut());

        let m = new("output_queue", "");
        assert!(!m.is_null());
        let n = inswitch_model_port_count(m);
        let mut w = [0u32; 16];
        assert_eq!(inswitch_model_port(m, n as u32, null_mut(), null_mut(), null_mut()), INSWITCH_ERROR);
        assert_eq!(last(), format!("inswitch_model_port: block `output_queue` has {n} ports (0..{n}); there is no port {n}"));
        assert_eq!(inswitch_model_port_index(m, c("nope").as_ptr()), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_port_index: block `output_queue` has no port named `nope`");
        assert_eq!(inswitch_model_port_index(m, null()), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_port_index: the port name is a null pointer");
        assert_eq!(inswitch_model_set_input(m, n as u32, w.as_ptr(), 16), INSWITCH_ERROR);
        assert_eq!(last(), format!("inswitch_model_set_input: block `output_queue` has {n} ports (0..{n}); there is no port {n}"));
        let ready = inswitch_model_port_index(m, c("s_axis_tready").as_ptr()) as u32;
        assert_eq!(inswitch_model_set_input(m, ready, w.as_ptr(), 16), INSWITCH_ERROR);
        assert_eq!(last(), format!("inswitch_model_set_input: port {ready} (`s_axis_tready`) of block `output_queue` is an output, not an input"));
        assert_eq!(inswitch_model_output(m, 0, w.as_mut_ptr(), 16), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_output: port 0 (`rst`) of block `output_queue` is an input, not an output");
        assert_eq!(inswitch_model_output(m, n as u32, w.as_mut_ptr(), 16), INSWITCH_ERROR);
        assert_eq!(last(), format!("inswitch_model_output: block `output_queue` has {n} ports (0..{n}); there is no port {n}"));
        let data = inswitch_model_port_index(m, c("s_axis_tdata").as_ptr()) as u32;
        assert_eq!(inswitch_model_set_input(m, data, w.as_ptr(), 2), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_set_input: port `s_axis_tdata` of block `output_queue` is 256 bits: it needs 8 32-bit words, the buffer has 2");
        let mdata = inswitch_model_port_index(m, c("m_axis_tdata").as_ptr()) as u32;
        assert_eq!(inswitch_model_output(m, mdata, w.as_mut_ptr(), 1), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_output: port `m_axis_tdata` of block `output_queue` is 256 bits: it needs 8 32-bit words, the buffer has 1");
        assert_eq!(inswitch_model_set_input(m, 0, null(), 1), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_set_input: the word buffer is a null pointer");
        assert_eq!(inswitch_model_output(m, mdata, null_mut(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_output: the word buffer is a null pointer");
        // The model is unharmed by the refused calls.
        assert_eq!(inswitch_model_step(m), INSWITCH_OK);
        inswitch_model_free(m);
    }
}

#[test]
fn lists_blocks_and_version() {
    let names: Vec<String> = (0..inswitch_block_count())
        .map(|i| unsafe { CStr::from_ptr(inswitch_block_name(i)) }.to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"packet_engine".to_string()) && names.len() == 10, "{names:?}");
    assert!(inswitch_block_name(inswitch_block_count()).is_null());
    let v = unsafe { CStr::from_ptr(inswitch_version()) }.to_str().unwrap();
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
}

#[test]
fn a_packed_cycle_is_the_same_as_port_by_port() {
    let (one, all) = (new("output_queue", "DATA_WIDTH=64"), new("output_queue", "DATA_WIDTH=64"));
    assert!(!one.is_null() && !all.is_null());
    unsafe {
        let (n, ins) = (inswitch_model_port_count(one) as u32, inswitch_model_input_count(one) as u32);
        let (ib, ob) = (inswitch_model_packed_bits(one, 0) as usize, inswitch_model_packed_bits(one, 1) as usize);
        // rst 1 + tdata 64 + tkeep 8 + 1 + 1 + tuser 16 + 1 + 1 + index 4 + 1 + 16 + 16 + port 4.
        assert_eq!((ib, ob), (134, 1 + 64 + 8 + 1 + 1 + 4 + 1));
        let mut x = 7u32;
        for cycle in 0..300u32 {
            let mut packed = vec![0u32; ib.div_ceil(32)];
            let mut off = 0usize;
            for k in 0..ins {
                let mut width = 0;
                inswitch_model_port(one, k, null_mut(), &mut width, null_mut());
                let mut v = [0u32; 2];
                for w in &mut v {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    *w = x;
                }
                if k == 0 {
                    v = [u32::from(cycle < 2), 0];
                }
                assert_eq!(inswitch_model_set_input(one, k, v.as_ptr(), 2), INSWITCH_OK, "{}", last());
                for bit in 0..width as usize {
                    packed[(off + bit) / 32] |= (v[bit / 32] >> (bit % 32) & 1) << ((off + bit) % 32);
                }
                off += width as usize;
            }
            inswitch_model_step(one);
            let mut outs = vec![0xffff_ffffu32; ob.div_ceil(32) + 1];
            assert_eq!(inswitch_model_cycle(all, packed.as_ptr(), packed.len() as u32, outs.as_mut_ptr(), outs.len() as u32), INSWITCH_OK, "{}", last());
            assert_eq!(*outs.last().unwrap(), 0, "words past the outputs are zeroed");
            let mut off = 0usize;
            for k in ins..n {
                let (mut width, mut v) = (0, [0u32; 2]);
                inswitch_model_port(one, k, null_mut(), &mut width, null_mut());
                inswitch_model_output(one, k, v.as_mut_ptr(), 2);
                for bit in 0..width as usize {
                    let have = outs[(off + bit) / 32] >> ((off + bit) % 32) & 1;
                    assert_eq!(have, v[bit / 32] >> (bit % 32) & 1, "cycle {cycle} port {k} bit {bit}");
                }
                off += width as usize;
            }
            let mut again = vec![0u32; ob.div_ceil(32)];
            assert_eq!(inswitch_model_outputs(all, again.as_mut_ptr(), again.len() as u32), INSWITCH_OK);
            assert_eq!(again[..], outs[..again.len()]);
            assert_eq!(inswitch_model_set_inputs(all, packed.as_ptr(), packed.len() as u32), INSWITCH_OK);
        }
        // Errors: short buffers and null pointers, the model unchanged.
        let w = [0u32; 8];
        let mut o = [0u32; 8];
        assert_eq!(inswitch_model_cycle(all, w.as_ptr(), 4, o.as_mut_ptr(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_cycle: port `all inputs` of block `output_queue` is 134 bits: it needs 5 32-bit words, the buffer has 4");
        assert_eq!(inswitch_model_cycle(all, w.as_ptr(), 8, o.as_mut_ptr(), 2), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_cycle: port `all outputs` of block `output_queue` is 80 bits: it needs 3 32-bit words, the buffer has 2");
        assert_eq!(inswitch_model_cycle(all, null(), 8, o.as_mut_ptr(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_cycle: the word buffer is a null pointer");
        assert_eq!(inswitch_model_set_inputs(all, w.as_ptr(), 1), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_set_inputs: port `all inputs` of block `output_queue` is 134 bits: it needs 5 32-bit words, the buffer has 1");
        assert_eq!(inswitch_model_outputs(all, null_mut(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_outputs: the word buffer is a null pointer");
        assert_eq!(inswitch_model_packed_bits(null_mut(), 0), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_packed_bits: the model handle is a null pointer");
        inswitch_model_free(one);
        inswitch_model_free(all);
    }
}

#[test]
fn a_packed_eval_is_set_inputs_settle_outputs() {
    // `inswitch_model_eval` (the drop-in model modules' combinational call) against the three calls it
    // stands for, on a model stepped the same way, with buffers of exact size and with room to spare.
    let (three, one) = (new("output_queue", "DATA_WIDTH=64"), new("output_queue", "DATA_WIDTH=64"));
    assert!(!three.is_null() && !one.is_null());
    unsafe {
        let (iw, ow) = ((inswitch_model_packed_bits(one, 0) as usize).div_ceil(32), (inswitch_model_packed_bits(one, 1) as usize).div_ceil(32));
        let mut x = 11u32;
        for cycle in 0..300u32 {
            let spare = if cycle % 2 == 0 { 0 } else { 3 };
            let mut ins: Vec<u32> = (0..iw + spare)
                .map(|_| {
                    x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    x
                })
                .collect();
            // rst (input 0, bit 0) for the first cycles only.
            ins[0] = ins[0] & !1 | u32::from(cycle < 2);
            let mut want = vec![u32::MAX; ow + spare];
            assert_eq!(inswitch_model_set_inputs(three, ins.as_ptr(), ins.len() as u32), INSWITCH_OK, "{}", last());
            assert_eq!(inswitch_model_settle(three), INSWITCH_OK);
            assert_eq!(inswitch_model_outputs(three, want.as_mut_ptr(), want.len() as u32), INSWITCH_OK);
            let mut got = vec![u32::MAX; ow + spare];
            assert_eq!(inswitch_model_eval(one, ins.as_ptr(), ins.len() as u32, got.as_mut_ptr(), got.len() as u32), INSWITCH_OK, "{}", last());
            assert_eq!(got, want, "cycle {cycle}");
            // Then both take the edge.
            let mut o = [0u32; 8];
            assert_eq!(inswitch_model_cycle(three, ins.as_ptr(), ins.len() as u32, o.as_mut_ptr(), 8), INSWITCH_OK);
            assert_eq!(inswitch_model_cycle(one, ins.as_ptr(), ins.len() as u32, o.as_mut_ptr(), 8), INSWITCH_OK);
        }
        // Errors: short buffers and null pointers (under every name of the call), the model unchanged.
        let w = [u32::MAX; 8];
        let mut before = [0u32; 8];
        inswitch_model_outputs(one, before.as_mut_ptr(), 8);
        let mut o = [0u32; 8];
        assert_eq!(inswitch_model_eval(one, w.as_ptr(), 4, o.as_mut_ptr(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_eval: port `all inputs` of block `output_queue` is 134 bits: it needs 5 32-bit words, the buffer has 4");
        assert_eq!(inswitch_model_eval_256(one, w.as_ptr(), 8, o.as_mut_ptr(), 2), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_eval: port `all outputs` of block `output_queue` is 80 bits: it needs 3 32-bit words, the buffer has 2");
        assert_eq!(inswitch_model_eval_64(one, null(), 8, o.as_mut_ptr(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_eval: the word buffer is a null pointer");
        assert_eq!(inswitch_model_eval_1024(one, w.as_ptr(), 8, null_mut(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_eval: the word buffer is a null pointer");
        assert_eq!(inswitch_model_eval_128(null_mut(), w.as_ptr(), 8, o.as_mut_ptr(), 8), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_eval: the model handle is a null pointer");
        assert_eq!(inswitch_model_eval_512(one, w.as_ptr(), 8, o.as_mut_ptr(), 1), INSWITCH_ERROR);
        let mut after = [0u32; 8];
        inswitch_model_outputs(one, after.as_mut_ptr(), 8);
        assert_eq!(after, before, "a refused eval changed the model");
        inswitch_model_free(three);
        inswitch_model_free(one);
    }
}

#[test]
fn a_panic_inside_the_library_is_an_error_status_and_poisons_the_model() {
    let m = new("output_queue", "");
    assert!(!m.is_null());
    unsafe {
        let w = [0u32; 64];
        let mut o = [0u32; 64];
        testing_panic_on_next_call(m);
        // The panic is caught at the ABI boundary: a status and a message, the process goes on.
        assert_eq!(inswitch_model_cycle(m, w.as_ptr(), 64, o.as_mut_ptr(), 64), INSWITCH_PANIC);
        assert_eq!(last(), "inswitch_model_cycle: the model panicked: planted panic (testing_panic_on_next_call)");
        // The model is poisoned: every later call but free is refused.
        assert_eq!(inswitch_model_step(m), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_step: the model panicked in an earlier call and can only be freed");
        assert_eq!(inswitch_model_set_inputs(m, w.as_ptr(), 64), INSWITCH_ERROR);
        assert_eq!(last(), "inswitch_model_set_inputs: the model panicked in an earlier call and can only be freed");
        inswitch_model_free(m);
        // Other models are unaffected.
        let other = new("output_queue", "");
        assert_eq!(inswitch_model_cycle(other, w.as_ptr(), 64, o.as_mut_ptr(), 64), INSWITCH_OK, "{}", last());
        inswitch_model_free(other);
    }
}
