//! SVG: the machine drawn by `fsmc_layout::draw` (the layered layout, pure Rust, no system Graphviz), the
//! drawing the generated docs embed too, written as a standalone document.

use super::{Direction, Target};
use fsmc_layout::Refusal;
use fsmc_layout::draw::{self, Diagram, Drawing, Options};

/// The machine as a standalone SVG document.
pub fn write(target: &Target<'_>, direction: Direction) -> Result<String, String> {
    draw::document(&diagram(target), &options(direction, true)).map_err(|r| refusal(target, r))
}

/// The machine's drawing, with its label as a title above when `titled` (the HTML page has its own header).
pub(crate) fn drawing(
    target: &Target<'_>,
    direction: Direction,
    titled: bool,
) -> Result<Drawing, String> {
    draw::draw(&diagram(target), &options(direction, titled)).map_err(|r| refusal(target, r))
}

fn diagram(target: &Target<'_>) -> Diagram {
    fsmc_model::diagram::diagram(target.spec, target.machine, target.origin)
}

fn options(direction: Direction, titled: bool) -> Options {
    Options {
        direction: match direction {
            Direction::TopToBottom => fsmc_layout::Direction::TopToBottom,
            Direction::LeftToRight => fsmc_layout::Direction::LeftToRight,
        },
        titled,
        scope: None,
    }
}

/// Why the machine is not drawn, and what draws it instead.
fn refusal(target: &Target<'_>, refusal: Refusal) -> String {
    let m = target.machine;
    match refusal {
        Refusal::TooLarge { layered } => format!(
            "`{}` is too large to draw as SVG or HTML ({} states, {} transitions: its layered layout would \
             have {layered} nodes, the limit is {}); draw it with `--format dot` (Graphviz) or `--format mermaid`",
            super::visible(m.name.as_str()),
            m.states.len(),
            m.transitions.len(),
            fsmc_layout::MAX_LAYERED
        ),
    }
}
