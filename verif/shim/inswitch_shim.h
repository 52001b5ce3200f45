// C ABI shim between a Verilated RTL model and the Rust co-simulation harness (verif/verilated.rs).
//
// build.rs verilates each RTL top under a unique prefix (e.g. Voutput_queue_w256), parses the port
// declarations of the generated header and writes a tiny per-model .cpp that defines INSWITCH_SHIM_PORTS
// and expands INSWITCH_SHIM_DEFINE below. Rust receives raw pointers to the port storage once, at
// construction, and then drives the clock through two calls per cycle:
//
//   write inputs -> <prefix>_eval_low()  (clk = 0: combinational outputs settle for these inputs)
//                -> read outputs
//                -> <prefix>_eval_high() (clk = 1: the rising edge; registers update)
//
// Port storage follows Verilator: CData (u8) for widths <= 8, SData (u16) <= 16, IData (u32) <= 32,
// QData (u64) <= 64, VlWide<N> (N 32-bit words, word 0 = bits 31:0) above.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "verilated.h"
#include "verilated_fst_c.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

extern "C" {
/// One port of the Verilated model, as handed to Rust.
struct inswitch_port {
    const char* name;  // RTL port name (static storage)
    uint32_t width;    // width in bits
    uint32_t output;   // 1 for an output port, 0 for an input port
    void* data;        // Verilator's storage for the port
};
}

// Simulation time advances by this much per clock cycle in waveforms (a 10 ns clock at 1 ns / 1 ps).
static constexpr uint64_t INSWITCH_SHIM_HALF_PERIOD = 5;

template <typename Top>
struct inswitch_shim_model {
    std::unique_ptr<VerilatedContext> context;
    std::unique_ptr<Top> top;
    std::unique_ptr<VerilatedFstC> fst;
    uint64_t time = 0;

    inswitch_shim_model() : context(new VerilatedContext) {
        // Tracing must be allowed before the model is built for a waveform to be opened later.
        context->traceEverOn(true);
        top.reset(new Top(context.get(), "dut"));
    }
    ~inswitch_shim_model() {
        trace_close();
        top->final();
    }
    void dump() {
        if (fst) fst->dump(time);
    }
    void eval_low() {
        top->clk = 0;
        top->eval();
        dump();
        time += INSWITCH_SHIM_HALF_PERIOD;
    }
    void eval_high() {
        top->clk = 1;
        top->eval();
        dump();
        time += INSWITCH_SHIM_HALF_PERIOD;
    }
    int trace_open(const char* path) {
        trace_close();
        fst.reset(new VerilatedFstC);
        top->trace(fst.get(), 99);
        fst->open(path);
        return fst->isOpen() ? 0 : -1;
    }
    // Writes this model's coverage counts (its own context's; one file per model instance). A build
    // without VM_COVERAGE has none: -1.
    int coverage_write(const char* path) {
#if VM_COVERAGE
        context->coveragep()->write(path);
        return 0;
#else
        (void)path;
        return -1;
#endif
    }
    void trace_close() {
        if (fst) {
            fst->close();
            fst.reset();
        }
    }
};

#define INSWITCH_SHIM_PORT_ENTRY(NAME, WIDTH, OUTPUT) \
    if (n < cap) out[n] = inswitch_port{#NAME, WIDTH, OUTPUT, static_cast<void*>(&m->top->NAME)}; \
    ++n;

// Expands the C ABI of one model. PORTS(X) must call X(name, width, is_output) once per port.
#define INSWITCH_SHIM_DEFINE(PREFIX, TOP, PORTS)                                                       \
    typedef inswitch_shim_model<TOP> PREFIX##_model;                                                   \
    extern "C" void* PREFIX##_new() { return new PREFIX##_model; }                                     \
    extern "C" void PREFIX##_delete(void* h) { delete static_cast<PREFIX##_model*>(h); }               \
    extern "C" size_t PREFIX##_ports(void* h, inswitch_port* out, size_t cap) {                        \
        PREFIX##_model* m = static_cast<PREFIX##_model*>(h);                                           \
        size_t n = 0;                                                                                  \
        PORTS(INSWITCH_SHIM_PORT_ENTRY)                                                                \
        return n;                                                                                      \
    }                                                                                                  \
    extern "C" void PREFIX##_eval_low(void* h) { static_cast<PREFIX##_model*>(h)->eval_low(); }        \
    extern "C" void PREFIX##_eval_high(void* h) { static_cast<PREFIX##_model*>(h)->eval_high(); }      \
    extern "C" int PREFIX##_trace_open(void* h, const char* path) {                                    \
        return static_cast<PREFIX##_model*>(h)->trace_open(path);                                      \
    }                                                                                                  \
    extern "C" void PREFIX##_trace_close(void* h) { static_cast<PREFIX##_model*>(h)->trace_close(); } \
    extern "C" int PREFIX##_coverage_write(void* h, const char* path) {                                \
        return static_cast<PREFIX##_model*>(h)->coverage_write(path);                                  \
    }
