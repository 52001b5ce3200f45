//! The cycle model of `rtl/reduce_unit.v`: latency, throughput, reset, idle outputs; and the batch/CLI
//! library.

use inswitch_model::reduce::batch::{run_args, run_batch};
use inswitch_model::reduce_unit::{ReduceUnit, ReduceUnitIn, ReduceUnitOut, LATENCY};
use inswitch_model::reduce::{combine, Contribution, Mode, Opcode};
use inswitch_model::{Block, Ports};

#[test]
fn one_pair_per_cycle_results_after_latency() {
    let mut unit = ReduceUnit::new();
    let pairs: Vec<(Contribution, Contribution)> = (0..10u64)
        .map(|i| (Contribution::new(Opcode::IntSum, [i, 1, 2, 3]), Contribution::new(Opcode::IntSum, [i * 10, 1, 1, 1])))
        .collect();
    let mut outs = Vec::new();
    for k in 0..pairs.len() + LATENCY {
        let inp = match pairs.get(k) {
            Some((a, b)) => ReduceUnitIn::pair(Mode::Associative, a, b),
            None => ReduceUnitIn::default(),
        };
        outs.push(unit.step(&inp));
    }
    for (k, out) in outs.iter().enumerate() {
        if k < LATENCY {
            assert_eq!(*out, ReduceUnitOut::default(), "cycle {k}: idle outputs are all zero");
        } else {
            let (a, b) = &pairs[k - LATENCY];
            assert_eq!(*out, ReduceUnitOut::from_result(&combine(Mode::Associative, a, b)), "cycle {k}");
        }
    }
}

#[test]
fn reset_clears_the_pipeline() {
    let mut unit = ReduceUnit::new();
    let a = Contribution::new(Opcode::BitOr, [1; 4]);
    unit.step(&ReduceUnitIn::pair(Mode::Associative, &a, &a));
    unit.step(&ReduceUnitIn { rst: true, ..ReduceUnitIn::pair(Mode::Associative, &a, &a) });
    for _ in 0..LATENCY + 1 {
        assert_eq!(unit.step(&ReduceUnitIn::default()), ReduceUnitOut::default());
    }
    assert_eq!(ReduceUnitIn::NAMES[0], "rst");
    assert!(ReduceUnitOut::NAMES.contains(&"out_rt_data"));
}

#[test]
fn cli_words_and_batch_lines() {
    let v = run_args("FLT_SUM_NOFTZ_RND0", "", &["1.5", "2.25"]).unwrap();
    assert_eq!(v["values"][0], 3.75);
    assert_eq!(v["rc"], "success");
    assert_eq!(v["op"], "flt_sum_noftz_rnd0");
    assert_eq!(v["op_code"], 0x28);
    assert_eq!(v["data"][0], 3.75f64.to_bits());
    let v = run_args("flt_repsum", "associative", &["0.1", "0.2"]).unwrap();
    assert_eq!(v["repsum_value"], 0.30000000000000004);
    let input = concat!(
        r#"{"op":"INT_MINMAXLOC","a":[3,7,3,7],"b":[3,2,9,1]}"#, "\n",
        r#"{"op":"FLT_MINNUM","a":["snan"],"b":[2.0],"mode":"ieee"}"#, "\n",
        "\n",
        r#"{"op":"INT_SUM","a":[1],"b":[2],"b_op":"INT_MIN","a_sfa":"0x12","b_sfa":34}"#, "\n",
        r#"{"op":"NOPE"}"#, "\n",
    );
    let mut out = Vec::new();
    let ok = run_batch(input.as_bytes(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(ok, 3);
    assert_eq!(lines[0]["values"], serde_json::json!([3, 2, 9, 1]));
    assert_eq!(lines[1]["values"][0], "nan");
    assert_eq!(lines[1]["rc"], "flt_invalid");
    assert_eq!(lines[1]["rc_code"], 4);
    assert_eq!(lines[2]["rc"], "op_mismatch");
    assert_eq!(lines[2]["sfa_a"], 0x12);
    assert_eq!(lines[2]["sfa_b"], 34);
    assert_eq!(lines[3]["line"], 5);
}
