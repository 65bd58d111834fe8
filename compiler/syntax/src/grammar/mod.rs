//! The grammar of the `.fsm` language (`fsm.pest`), and the parser pest generates from it.

/// The parser pest generates from `fsm.pest`. Its code is checked in (`generated.rs`) rather than derived at build
/// time, so a crate using `include_fsm!` does not build pest's generator and grammar parser first; the test
/// `generated_parser_is_fresh` rewrites the file when the grammar changes.
pub(crate) struct FsmParser;

#[allow(dead_code, clippy::all, clippy::pedantic)]
mod generated {
    use super::FsmParser;
    include!("generated.rs");
}
pub(crate) use generated::Rule;

#[cfg(test)]
mod tests;
