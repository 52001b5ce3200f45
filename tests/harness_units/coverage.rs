//! `verif/coverage.rs`.

use inswitch::coverage::*;

#[test]
fn lcov_lines_merge_per_module() {
    let info = "TN:verilator_coverage\nSF:/x/rtl/output_queue.v\nDA:10,5\nDA:11,0\nDA:11,3\nDA:12,0\nend_of_record\n\
                SF:/x/rtl/cpu.v\nDA:1,1\nend_of_record\nSF:/x/rtl/output_queue.v\nDA:13,0\nend_of_record\n";
    let c = parse_lcov(info);
    assert_eq!(c["output_queue"], FileCoverage { found: 4, hit: 2, uncovered: vec![12, 13] });
    assert_eq!(c["output_queue"].percent(), 50.0);
    assert_eq!(c["cpu"].percent(), 100.0);
    let floors = parse_floors("# floors\noutput_queue 60 # measured 50\ncpu 99.5%\nnone 1\n").unwrap();
    let broken = check_floors(&c, &floors);
    assert_eq!(broken, vec![("output_queue".to_string(), 60.0, Some(50.0)), ("none".to_string(), 1.0, None)]);
    assert!(parse_floors("cpu\n").is_err());
}
