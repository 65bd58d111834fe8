//! A layered (Sugiyama) layout for state machines, in pure Rust: boxes (states), arrows between them and a
//! label per arrow, placed so that no label overlaps a line, a state or another label.
//!
//! A graph goes in ([`Graph`]: box sizes, arrows with the sizes of their labels, the roots) and positions come
//! out ([`Laid`]: a rectangle per box, a path and a label rectangle per arrow); what the boxes stand for is the
//! caller's business. The steps, each linear or close to it in the size of the layered graph (states, one bend
//! point per layer a long arrow crosses, and label boxes), each in a module of its own:
//!
//! 1. **Cycle breaking** (`cycles`): a depth-first search from the roots (start marks, then start states)
//!    reverses its back edges, so retries and resets point up and the machine's flow points down.
//! 2. **Layering** (`layering`): longest path from the sources, then each node with more arrows out than in
//!    is moved as far down as its successors allow (shorter arrows). Ranks are doubled: the odd layers between
//!    two ranks hold the labels of the arrows that cross them, as boxes of their own.
//! 3. **Long arrows** (`layered`) get a virtual node in every layer they cross; a label becomes the virtual
//!    node of its arrow's middle odd layer, with the label's size, the line running along the box's left side.
//! 4. **Crossing reduction** (`ordering`): barycenter sweeps down and up, a bounded number of times, keeping
//!    the order with the fewest crossings (counted exactly, with a Fenwick tree), then adjacent swaps on small
//!    graphs. The states of one cluster (a composed app's original machine) are kept together in every layer.
//! 5. **Coordinates** (`coordinates`): Brandes and Köpf's four alignments, balanced, with each node's own left
//!    and right extent (a label box extends to the right of its line; a state with a self-loop reserves room
//!    for the loop and its label). Long arrows come out straight.
//! 6. **Routing** (`routing`): inside a layer's band every arrow runs vertically at its node's position
//!    (boxes in a layer are disjoint, so no line crosses a box), and between two bands it is an S-shaped cubic
//!    curve whose control points stay between the bands (a band holding only bends of long arrows has no boxes
//!    to avoid, and the curve passes through it). Several arrows at one side of a state get spread ports,
//!    ordered as their other ends are. Self-loops are loops on the state's right side (below it, left to
//!    right), their labels beside them.
//!
//! Everything is computed top to bottom; a left-to-right drawing is laid out with widths and heights swapped
//! and transposed at the end (`frame`), so text stays horizontal. The result depends only on the input's
//! order (no hashing, no randomness): the same graph gives the same positions, bit for bit. Nothing here panics
//! on any input: out-of-range edges are ignored and sizes that are not finite count as zero.
//!
//! [`draw`] writes a state machine laid out this way as SVG markup.
//!
//! The work is bounded: the layered graph grows with the sum of the arrows' lengths, quadratic in the states
//! for machines whose arrows jump anywhere. Past [`MAX_LAYERED`] layered nodes the layout is refused.

mod adjacency;
mod coordinates;
mod cycles;
pub mod draw;
mod frame;
mod layered;
mod layering;
mod ordering;
mod routing;
#[cfg(test)]
mod tests;

use adjacency::Adjacency;

/// The most layered nodes (states, bend points of long arrows, labels) laid out: about 1.5 s of work and
/// 350 MB. A 500-state machine with 2,000 transitions to random states needs 424 thousand (0.6 s), a chain of
/// 2,000 rounds with retries, skips and a reset every ten rounds 412 thousand.
pub const MAX_LAYERED: usize = 1_000_000;

/// Which way the drawing flows: arrows go down the page or across it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    #[default]
    TopToBottom,
    LeftToRight,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Size {
    pub w: f64,
    pub h: f64,
}

/// An axis-aligned box: top-left corner and size.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

/// What to lay out.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<NodeIn>,
    pub edges: Vec<EdgeIn>,
    /// Nodes the depth-first search starts from, in order, before any other (start marks, start states).
    pub roots: Vec<usize>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct NodeIn {
    pub size: Size,
    /// Nodes of one cluster are kept together in each layer.
    pub cluster: Option<usize>,
}

/// One arrow; `from == to` is a self-loop.
#[derive(Clone, Copy, Debug, Default)]
pub struct EdgeIn {
    pub from: usize,
    pub to: usize,
    pub label: Option<Size>,
}

/// One piece of an arrow's path, from the end of the previous one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seg {
    Line(Point),
    Curve(Point, Point, Point),
}

/// An arrow as drawn: from `start` through `segs`, ending at its target (the head goes at the end).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    pub start: Point,
    pub segs: Vec<Seg>,
    pub label: Option<Rect>,
}

/// The laid-out drawing, in `0 0 size.w size.h` coordinates.
#[derive(Clone, Debug, Default)]
pub struct Laid {
    pub nodes: Vec<Rect>,
    /// One per input edge, in input order (empty for an edge whose ends are out of range).
    pub edges: Vec<Route>,
    pub size: Size,
}

/// Why a graph was not laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The layered graph would have this many nodes, more than [`MAX_LAYERED`].
    TooLarge { layered: usize },
}

/// The frame the steps work in: every step lays out top to bottom; a left-to-right drawing is laid out with
/// widths and heights swapped, then transposed (`frame.rs`), so text stays horizontal.
pub(crate) struct Frame {
    /// Left to right: sizes are swapped on the way in, positions transposed on the way out.
    flip: bool,
}

impl Frame {
    pub(crate) fn new(direction: Direction) -> Frame {
        Frame {
            flip: direction == Direction::LeftToRight,
        }
    }

    /// A size in the top-to-bottom frame; a size that is not finite and positive counts as zero.
    pub(crate) fn inner(&self, s: Size) -> Size {
        let clean = |v: f64| if v.is_finite() && v > 0. { v } else { 0. };
        let s = Size {
            w: clean(s.w),
            h: clean(s.h),
        };
        if self.flip {
            Size { w: s.h, h: s.w }
        } else {
            s
        }
    }
}

/// The graph as steps 1 to 3 leave it: the arrows read, which of them point back, and the layered graph with
/// its adjacency.
pub(crate) struct Layering {
    pub(crate) input: layered::Input,
    pub(crate) reversed: Vec<bool>,
    pub(crate) graph: layered::Layered,
    pub(crate) adj: Adjacency,
}

impl Layering {
    /// Breaks the cycles, assigns the layers and builds the layered graph; refused when that graph would be too
    /// large.
    pub(crate) fn new(g: &Graph, frame: &Frame) -> Result<Layering, Refusal> {
        let input = layered::Input::read(g, frame);
        let n = g.nodes.len();
        let pairs: Vec<(usize, usize)> = input
            .plain
            .iter()
            .map(|&k| (g.edges[k].from, g.edges[k].to))
            .collect();
        let reversed = cycles::break_cycles(n, &pairs, &g.roots);
        let oriented = cycles::orient(&pairs, &reversed);
        let rank = layering::ranks(n, &oriented);
        // The budget, before anything of that size is allocated.
        layering::within_budget(n, &oriented, &rank)?;
        let graph = layered::build(g, &input, &oriented, &rank, frame);
        let adj = Adjacency::new(graph.nodes.len(), &graph.chains);
        Ok(Layering {
            input,
            reversed,
            graph,
            adj,
        })
    }

    /// Step 4: the nodes of each layer in order, crossings reduced.
    pub(crate) fn order(&self, roots: &[usize]) -> Vec<Vec<usize>> {
        let (nodes, adj) = (&self.graph.nodes, &self.adj);
        let mut layers = ordering::initial_order(nodes, adj, roots, self.graph.layer_count);
        ordering::reduce_crossings(&mut layers, nodes, adj);
        layers
    }
}

/// Lays the graph out; refused only when it is too large (see [`MAX_LAYERED`]).
pub fn lay_out(g: &Graph, direction: Direction) -> Result<Laid, Refusal> {
    let frame = Frame::new(direction);
    let steps = Layering::new(g, &frame)?;
    let layers = steps.order(&g.roots);
    let (input, graph) = (&steps.input, &steps.graph);
    let x = coordinates::place(&layers, &graph.nodes, &steps.adj);

    let bands = routing::Bands::new(&layers, &graph.nodes);
    let mut routes = routing::chain_routes(g, input, graph, &steps.reversed, &x, &bands);
    routing::loop_routes(&mut routes, g, input, graph, &x, &bands);
    Ok(frame.output(input, &graph.nodes, &x, &bands, routes))
}
