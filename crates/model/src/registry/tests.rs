use super::*;

#[test]
fn every_model_port_is_an_rtl_port_of_the_same_direction_and_back() {
    for b in blocks() {
        let p = b.defaults();
        let model = b.ports(&p);
        for port in &model {
            let r = b.rtl.ports.iter().find(|r| r.name == port.name);
            let r = r.unwrap_or_else(|| panic!("{}: model port `{}` is not an RTL port", b.name, port.name));
            assert_eq!(r.output, port.output, "{}: direction of `{}`", b.name, port.name);
        }
        for r in b.rtl.ports.iter().filter(|r| r.name != "clk") {
            assert!(model.iter().any(|p| p.name == r.name), "{}: RTL port `{}` has no model field", b.name, r.name);
        }
        assert!(b.rtl_ports(&p).iter().any(|p| p.name == "clk" && !p.output), "{}: no clk", b.name);
    }
}

#[test]
fn widths_follow_parameters() {
    let oq = block("output_queue").unwrap();
    let p = oq.params_from_str("DATA_WIDTH=64, ROUTE_ENTRIES=4").unwrap();
    let w = |n: &str| oq.ports(&p).into_iter().find(|x| x.name == n).unwrap().width;
    assert_eq!((w("s_axis_tdata"), w("s_axis_tkeep"), w("cfg_route_wr_index"), w("rst")), (64, 8, 2, 1));
    assert_eq!(p.to_string(), "DATA_WIDTH=64,KEEP_WIDTH=8,DEST_ID_WIDTH=16,PORT_WIDTH=4,FIFO_DEPTH=32,ROUTE_ENTRIES=4,ROUTE_INDEX_WIDTH=2");
}

#[test]
fn errors_name_what_is_wrong() {
    let e = |r: Result<ParamSet, RegistryError>| r.unwrap_err().to_string();
    assert!(block("nope").unwrap_err().to_string().starts_with("no block named `nope` (known: output_queue, axis_register"));
    let oq = block("output_queue").unwrap();
    assert_eq!(
        e(oq.params_from_str("WIDTH=3")),
        "block `output_queue` has no parameter `WIDTH` (parameters: DATA_WIDTH, KEEP_WIDTH, DEST_ID_WIDTH, PORT_WIDTH, FIFO_DEPTH, ROUTE_ENTRIES, ROUTE_INDEX_WIDTH)"
    );
    assert_eq!(e(oq.params_from_str("DATA_WIDTH")), "block `output_queue`: cannot read parameter assignment `DATA_WIDTH`: expected NAME=VALUE");
    assert_eq!(e(oq.params_from_str("DATA_WIDTH=x")), "block `output_queue`: cannot read parameter assignment `DATA_WIDTH=x`: unknown name `x`");
    assert_eq!(e(oq.params_from_str("DEST_ID_WIDTH=8")), "block `output_queue`: the model implements DEST_ID_WIDTH = 16 only (asked for 8)");
    assert_eq!(e(oq.params_from_str("DATA_WIDTH=64,KEEP_WIDTH=32")), "block `output_queue`: the model implements KEEP_WIDTH = 8 only (asked for 32)");
    assert!(oq.params_from_str("DATA_WIDTH=64,KEEP_WIDTH=8").is_ok());
    let bad = oq.params_from_str("DATA_WIDTH=12").unwrap();
    let msg = oq.instantiate(&bad).err().unwrap().to_string();
    assert!(msg.starts_with("block `output_queue`: the model rejects these parameters: "), "{msg}");
    let mut m = oq.instantiate(&oq.defaults()).unwrap();
    let n = m.ports().len();
    let mut w = [0u32; 16];
    assert_eq!(m.set_input(n, &w).unwrap_err().to_string(), format!("block `output_queue` has {n} ports (0..{n}); there is no port {n}"));
    let ready = m.port_index("s_axis_tready").unwrap();
    assert_eq!(m.set_input(ready, &w).unwrap_err().to_string(), format!("port {ready} (`s_axis_tready`) of block `output_queue` is an output, not an input"));
    assert_eq!(m.output(0, &mut w).unwrap_err().to_string(), "port 0 (`rst`) of block `output_queue` is an input, not an output");
    let data = m.port_index("s_axis_tdata").unwrap();
    assert_eq!(m.set_input(data, &w[..2]).unwrap_err().to_string(), "port `s_axis_tdata` of block `output_queue` is 256 bits: it needs 8 32-bit words, the buffer has 2");
    assert_eq!(m.port_index("bogus").unwrap_err().to_string(), "block `output_queue` has no port named `bogus`");
}

#[test]
fn a_dyn_block_is_the_typed_model() {
    // The output queue through the registry and directly: same outputs every cycle from the same inputs.
    use crate::output_queue::{OutputQueue, OutputQueueParams};
    let spec = block("output_queue").unwrap();
    let mut d = spec.instantiate(&spec.defaults()).unwrap();
    let mut m = OutputQueue::new(OutputQueueParams::default()).unwrap();
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as u32
    };
    let ports = d.ports().to_vec();
    for cycle in 0..2000 {
        let mut i = OutputQueueIn::default();
        for (k, p) in ports.iter().enumerate().filter(|(_, p)| !p.output) {
            let mut w = [0u32; MAX_PORT_WORDS];
            for x in w.iter_mut().take(p.words()) {
                *x = rand();
            }
            if p.name == "rst" {
                w[0] = u32::from(cycle < 3 || rand() % 500 == 0);
            }
            d.set_input(k, &w).unwrap();
            // The typed model sees the same value, truncated to the port width.
            let mut t = [0u32; MAX_PORT_WORDS];
            t[..p.words()].copy_from_slice(&w[..p.words()]);
            if p.width % 32 != 0 {
                t[p.words() - 1] &= (1 << (p.width % 32)) - 1;
            }
            i.port_from_words(k, &t);
        }
        d.step();
        let o = m.step(&i);
        for (k, p) in ports.iter().enumerate().filter(|(_, p)| p.output) {
            let mut a = [0u32; MAX_PORT_WORDS];
            let mut b = [0u32; MAX_PORT_WORDS];
            d.output(k, &mut a).unwrap();
            o.port_to_words(k - spec.input_count(), &mut b);
            assert_eq!(a[..p.words()], b[..p.words()], "cycle {cycle} port {}", p.name);
        }
    }
    d.reset();
    let mut w = [0u32; 16];
    d.output(d.port_index("m_axis_tvalid").unwrap(), &mut w).unwrap();
    assert_eq!(w[0], 0);
}

#[test]
fn every_block_builds_at_its_defaults() {
    for b in blocks() {
        let mut m = b.instantiate(&b.defaults()).unwrap_or_else(|e| panic!("{e}"));
        m.step();
        m.settle();
    }
}

/// Parameter sets whose port widths are not compiled in (`fixed_table.rs`): the packed calls read a
/// run-time slot table. A bus wider than 64 bits ends mid-word (`WIDTH=100`) and a narrow one is not a
/// multiple of 8 (`WIDTH=33`, `ROUTE_ENTRIES=4`: a 2-bit index).
const TABLE_SETS: [(&str, &str); 3] = [("output_queue", "DATA_WIDTH=64,ROUTE_ENTRIES=4"), ("axis_register", "WIDTH=33"), ("axis_register", "WIDTH=100")];

#[test]
fn packed_inputs_and_outputs_match_port_by_port() {
    // The same stimulus through set_input/output and through the packed vector gives the same outputs,
    // for every layout compiled in and for run-time tables.
    // (block, parameters, the run-time layout asked for, a compiled layout expected)
    let mut cases: Vec<(&'static BlockSpec, ParamSet, bool, bool)> = Vec::new();
    for b in blocks() {
        for (_, p) in super::fixed_gen::param_sets(b) {
            cases.push((b, p.clone(), false, true));
            cases.push((b, p, true, false));
        }
    }
    for (name, params) in TABLE_SETS {
        let b = block(name).unwrap();
        cases.push((b, b.params_from_str(params).unwrap(), false, false));
    }
    for (b, p, table, compiled) in cases {
        let make = || if table { b.instantiate_with_runtime_layout(&p).unwrap() } else { b.instantiate(&p).unwrap() };
        let (mut one, mut all) = (make(), make());
        assert_eq!(all.compiled_layout(), compiled, "{}: {p}: layout compiled in", b.name);
        // A third copy stepped through the one-call cycle (`cycle_packed`) must give the same outputs.
        let mut cyc = make();
        // A fourth one too, its inputs followed by words of ones (as a caller's vector wider than the
        // ports may be: the reads past the last input must drop them) and its outputs in exactly as many
        // words as they need (the writes of the last outputs must not reach past them).
        let mut padded = make();
        let ports = one.ports().to_vec();
        let ins = b.input_count();
        let (ib, ob) = (packed_bits(&ports, false), packed_bits(&ports, true));
        let mut x = 0x1234_5678u32;
        for cycle in 0..200 {
            let mut packed = vec![0u32; ib.div_ceil(32)];
            let mut off = 0;
            for (k, port) in ports.iter().enumerate().take(ins) {
                let mut w = [0u32; MAX_PORT_WORDS];
                for word in w.iter_mut().take(port.words()) {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    *word = x;
                }
                if port.name == "rst" {
                    w[0] = u32::from(cycle < 3);
                }
                one.set_input(k, &w).unwrap();
                for bit in 0..port.width as usize {
                    if w[bit / 32] >> (bit % 32) & 1 == 1 {
                        packed[(off + bit) / 32] |= 1 << ((off + bit) % 32);
                    }
                }
                off += port.width as usize;
            }
            all.set_inputs_packed(&packed).unwrap();
            // The outputs for these inputs without an edge (`eval_packed`) are those `settle` gives.
            one.settle();
            let mut settled = vec![u32::MAX; ob.div_ceil(32)];
            cyc.eval_packed(&packed, &mut settled).unwrap();
            let mut off = 0;
            for (k, port) in ports.iter().enumerate().skip(ins) {
                let mut w = [0u32; MAX_PORT_WORDS];
                one.output(k, &mut w).unwrap();
                let mut want = vec![0u32; ob.div_ceil(32)];
                write_bits(&mut want, off, port.width as usize, &w);
                let mut have = [0u32; MAX_PORT_WORDS];
                read_bits(&settled, off, port.width as usize, &mut have);
                assert_eq!(have[..port.words()], w[..port.words()], "{}: {p}: cycle {cycle}: eval_packed port {}", b.name, port.name);
                off += port.width as usize;
            }
            one.step();
            all.step();
            let mut got = vec![0u32; ob.div_ceil(32) + 1];
            all.outputs_packed(&mut got).unwrap();
            // Over a buffer of ones: every word is written, those past the outputs zeroed.
            let mut by_cycle = vec![u32::MAX; got.len()];
            cyc.cycle_packed(&packed, &mut by_cycle).unwrap();
            assert_eq!(by_cycle, got, "{}: {p}: cycle {cycle}: cycle_packed vs set_inputs_packed, step, outputs_packed", b.name);
            let mut wide_in = packed.clone();
            if ib % 32 != 0 {
                *wide_in.last_mut().unwrap() |= u32::MAX << (ib % 32);
            }
            wide_in.extend([u32::MAX; 3]);
            // Outputs in exactly as many words as they need, or (every other cycle) in nine more, which
            // must all be zeroed (past the first eight words the zeroing takes another path).
            let extra = if cycle % 2 == 0 { 0 } else { 9 };
            let mut exact_out = vec![u32::MAX; ob.div_ceil(32) + extra];
            padded.cycle_packed(&wide_in, &mut exact_out).unwrap();
            assert_eq!(exact_out[..got.len().min(exact_out.len())], got[..got.len().min(exact_out.len())], "{}: {p}: cycle {cycle}: cycle_packed with ones past the inputs, outputs in {} words", b.name, exact_out.len());
            assert!(exact_out[ob.div_ceil(32)..].iter().all(|&w| w == 0), "{}: {p}: cycle {cycle}: words past the outputs are zeroed", b.name);
            let mut off = 0;
            for (k, port) in ports.iter().enumerate().skip(ins) {
                let mut w = [0u32; MAX_PORT_WORDS];
                one.output(k, &mut w).unwrap();
                for bit in 0..port.width as usize {
                    let want = w[bit / 32] >> (bit % 32) & 1;
                    let have = got[(off + bit) / 32] >> ((off + bit) % 32) & 1;
                    assert_eq!(have, want, "{}: {p}: cycle {cycle} port {} bit {bit}", b.name, port.name);
                }
                off += port.width as usize;
            }
            assert_eq!(*got.last().unwrap(), 0, "{}: words past the outputs are zeroed", b.name);
        }
        let short = vec![0u32; ib.div_ceil(32) - 1];
        assert_eq!(
            all.set_inputs_packed(&short).unwrap_err().to_string(),
            format!("port `all inputs` of block `{}` is {ib} bits: it needs {} 32-bit words, the buffer has {}", b.name, ib.div_ceil(32), short.len())
        );
        // A refused cycle names the short buffer (outputs checked first) and leaves the model as it was.
        let short_out = vec![0u32; ob.div_ceil(32) - 1];
        let mut full_out = vec![0u32; ob.div_ceil(32)];
        let mut before = vec![0u32; ob.div_ceil(32)];
        cyc.outputs_packed(&mut before).unwrap();
        assert_eq!(
            cyc.cycle_packed(&short, &mut short_out.clone()).unwrap_err().to_string(),
            format!("port `all outputs` of block `{}` is {ob} bits: it needs {} 32-bit words, the buffer has {}", b.name, ob.div_ceil(32), short_out.len())
        );
        assert_eq!(
            cyc.cycle_packed(&short, &mut full_out).unwrap_err().to_string(),
            format!("port `all inputs` of block `{}` is {ib} bits: it needs {} 32-bit words, the buffer has {}", b.name, ib.div_ceil(32), short.len())
        );
        let mut after = vec![0u32; ob.div_ceil(32)];
        cyc.outputs_packed(&mut after).unwrap();
        assert_eq!(after, before, "{}: a refused cycle_packed changed the outputs", b.name);

    }
}
