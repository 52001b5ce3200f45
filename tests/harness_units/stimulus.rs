//! `verif/stimulus.rs`.

use inswitch::stimulus::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[test]
fn same_seed_same_stream_same_numbers() {
    let a: Vec<u64> = (0..4).map({ let mut r = rng(7, 1); move |_| r.random() }).collect();
    let b: Vec<u64> = (0..4).map({ let mut r = rng(7, 1); move |_| r.random() }).collect();
    let c: Vec<u64> = (0..4).map({ let mut r = rng(7, 2); move |_| r.random() }).collect();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn tkeep_last_beats_are_contiguous() {
    let mut r = rng(1, 0);
    for _ in 0..1000 {
        let k = tkeep(&mut r, 32, true, 0.0);
        assert!(k != 0 && (k + 1) & k == 0, "{k:#x} is not contiguous from bit 0");
        assert_eq!(tkeep(&mut r, 32, false, 0.0), 0xffff_ffff);
    }
}

#[test]
fn gaps_persist() {
    let mut r = rng(3, 0);
    let mut g = Gaps::default();
    let runs: Vec<bool> = (0..10_000).map(|_| g.gap(&mut r, 0.01, 0.99)).collect();
    let gaps = runs.iter().filter(|&&x| x).count();
    assert!(gaps > 1000, "persistent gaps should dominate: {gaps}");
}

#[test]
fn seeded_draws_are_plain_chacha8() {
    let mut a = rng(9, 3);
    let mut b = ChaCha8Rng::seed_from_u64(9);
    b.set_stream(3);
    let (mut x, mut y) = ([0u8; 13], [0u8; 13]);
    rand::Rng::fill_bytes(&mut a, &mut x);
    rand::Rng::fill_bytes(&mut b, &mut y);
    assert_eq!(x, y);
    assert_eq!((a.random::<u64>(), a.random::<u32>(), a.random_range(0..33)), (b.random::<u64>(), b.random::<u32>(), b.random_range(0..33)));
}

#[test]
fn choices_steer_draws_then_the_seed_takes_over() {
    let ((mut a, mut b), c) = with_choices(&[0, 0xFF, 0x80, 0], || (rng(5, 0), rng(5, 1)));
    assert_eq!(a.random::<u64>(), 0);
    assert_eq!(b.random::<u32>(), u32::MAX);
    assert_eq!(a.random::<u64>() >> 56, 0x80);
    assert!(a.random_bool(1e-9), "a 0 byte takes the rare branch");
    assert!(c.borrow().exhausted());
    let mut plain = rng(5, 0);
    for _ in 0..4 {
        plain.random::<u64>();
    }
    let _ = (a.random::<u64>(), plain.random::<u64>());
    assert!(!rng(5, 0).is_steered(), "choices are only installed inside with_choices");
}
