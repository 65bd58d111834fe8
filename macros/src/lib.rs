//! The `include_fsm!` and `fsm!` procedural macros: a thin shell over the fsmc compiler library.
