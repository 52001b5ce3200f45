//! Prints the inline size of the packet engine and of each block, and the heap tables of an engine
//! at the fabric's parameters (docs/performance.md §Session 18, per-engine footprint).
use inswitch_model::completion_builder::CompletionBuilder;
use inswitch_model::cpu::context::{Descriptor, StaticEntry};
use inswitch_model::cpu::Cpu;
use inswitch_model::frame_builder::FrameBuilder;
use inswitch_model::input_checker::InputChecker;
use inswitch_model::interposer::Interposer;
use inswitch_model::output_queue::OutputQueue;
use inswitch_model::packet_engine::{EngineIn, EngineOut, PacketEngine};
use inswitch_model::register_space::RegisterSpace;
use std::mem::size_of;

fn main() {
    let rows: [(&str, usize); 12] = [
        ("PacketEngine", size_of::<PacketEngine>()),
        ("Interposer", size_of::<Interposer>()),
        ("InputChecker", size_of::<InputChecker>()),
        ("RegisterSpace", size_of::<RegisterSpace>()),
        ("Cpu", size_of::<Cpu>()),
        ("FrameBuilder", size_of::<FrameBuilder>()),
        ("OutputQueue", size_of::<OutputQueue>()),
        ("CompletionBuilder", size_of::<CompletionBuilder>()),
        ("EngineIn", size_of::<EngineIn>()),
        ("EngineOut", size_of::<EngineOut>()),
        ("StaticEntry", size_of::<StaticEntry>()),
        ("Descriptor", size_of::<Descriptor>()),
    ];
    for (name, bytes) in rows {
        println!("{name:>18} {bytes:>8} bytes");
    }
}
