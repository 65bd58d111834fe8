//! Fuzzes the two front ends: the `.fsm` parser and the Open Autonomy YAML reader, on arbitrary bytes.
//!
//! Both must return a tree or diagnostics for any text; a panic, a stack overflow or a hang is a bug.
#![no_main]

use fsmc_base::source::FileId;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The loader refuses files that are not UTF-8; the lossy conversion still exercises every code point.
    let text = String::from_utf8_lossy(data);
    let _ = fsmc_syntax::parse(FileId(0), &text);
    let _ = fsmc_driver::yaml::parse(FileId(0), &text);
});
