//! Two checked specs compared: every change between them found and classified by what it breaks, after buf's
//! graded breaking-change rules ([`Class`], most severe first: consensus, replay, code, interop, cosmetic).
//!
//! The specs are compared as the compiler understood them, not as text: a re-sorted or reformatted file has
//! no change, and a change is named by what it is (a round's kind, an outcome's target, a key's type) with
//! where it is in both files. The entry items of the two specs (the machines and apps code is generated for)
//! are matched by name; each pair is compared in three layers:
//! - [`facts`]: for an `abci` item, what a replica computes ([`fsmc_model::fingerprint::Facts`]): a
//!   difference is consensus-breaking, or replay-breaking where only the app hash's encoding moves. The
//!   item's fingerprint differs exactly when this layer finds something.
//! - [`api`]: the generated code's interface and behaviour that no replica sees (events, the transition
//!   function, conditions, hooks, each system's own data): code-breaking.
//! - [`surface`]: the label and names other tools read (interop), docs and declaration order (cosmetic).
//!
//! The stage does no IO and knows nothing of rendering: a [`Finding`] holds spans into the old spec's files
//! and into the new one's, and the caller shows them.

mod api;
mod facts;
mod surface;

use fsmc_base::source::{Name, SmolStr, Span};
use fsmc_model::spec::{App, Checked, Item, Machine, MachineId, Spec};
use fsmc_vocab::Profile;
use std::fmt;

/// What a change breaks, from the least to the most severe (so `Ord` ranks them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Docs, declaration order, formatting: the generated code's behaviour and interface are the same.
    Cosmetic,
    /// What other tools read: the Open Autonomy label, a name that keeps its generated identifier.
    Interop,
    /// The generated code: an identifier, a behaviour trait method, the transition function, a constant.
    Code,
    /// Replicas decide the same for the same blocks, but the bytes under the app hash differ: a node replaying
    /// its old block store (or a peer of the old version) computes another hash.
    Replay,
    /// Replicas decide differently for the same blocks: transitions, outcomes, round kinds, payloads, writes,
    /// timeouts, a round's parts, what crosses periods.
    Consensus,
}

impl Class {
    /// Every class, least severe first.
    pub const ALL: &'static [Class] = &[
        Class::Cosmetic,
        Class::Interop,
        Class::Code,
        Class::Replay,
        Class::Consensus,
    ];

    /// The name output and options use: `consensus-breaking`, `replay-breaking`, `code-breaking`, `interop`,
    /// `cosmetic`.
    pub const fn id(self) -> &'static str {
        match self {
            Class::Cosmetic => "cosmetic",
            Class::Interop => "interop",
            Class::Code => "code-breaking",
            Class::Replay => "replay-breaking",
            Class::Consensus => "consensus-breaking",
        }
    }

    /// A class by its name, with or without `-breaking`, in any case.
    pub fn parse(s: &str) -> Option<Class> {
        let s = s.to_ascii_lowercase();
        let s = s.strip_suffix("-breaking").unwrap_or(&s);
        Class::ALL
            .iter()
            .copied()
            .find(|c| c.id().strip_suffix("-breaking").unwrap_or(c.id()) == s)
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Which kind of change a finding is: a stable name for tools (JSON's `name`) and for the docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    ItemAdded,
    ItemRemoved,
    ItemRenamed,
    System,
    Runs,
    Start,
    StateAdded,
    StateRemoved,
    Final,
    StartState,
    RoundKind,
    RoundPart,
    Payload,
    Writes,
    Exit,
    CrossPeriod,
    RoundOrder,
    KeyAdded,
    KeyRemoved,
    KeyOrder,
    KeyType,
    Event,
    Transition,
    Conditions,
    Attribute,
    Participants,
    SystemData,
    Origin,
    Label,
    Name,
    Docs,
    Order,
}

impl Rule {
    /// Every rule, in the order of the docs.
    pub const ALL: &'static [Rule] = &[
        Rule::ItemAdded,
        Rule::ItemRemoved,
        Rule::ItemRenamed,
        Rule::System,
        Rule::Runs,
        Rule::Start,
        Rule::StateAdded,
        Rule::StateRemoved,
        Rule::Final,
        Rule::StartState,
        Rule::RoundKind,
        Rule::RoundPart,
        Rule::Payload,
        Rule::Writes,
        Rule::Exit,
        Rule::CrossPeriod,
        Rule::RoundOrder,
        Rule::KeyAdded,
        Rule::KeyRemoved,
        Rule::KeyOrder,
        Rule::KeyType,
        Rule::Event,
        Rule::Transition,
        Rule::Conditions,
        Rule::Attribute,
        Rule::Participants,
        Rule::SystemData,
        Rule::Origin,
        Rule::Label,
        Rule::Name,
        Rule::Docs,
        Rule::Order,
    ];

    /// The rule's snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            Rule::ItemAdded => "item_added",
            Rule::ItemRemoved => "item_removed",
            Rule::ItemRenamed => "item_renamed",
            Rule::System => "system",
            Rule::Runs => "runs",
            Rule::Start => "start",
            Rule::StateAdded => "state_added",
            Rule::StateRemoved => "state_removed",
            Rule::Final => "final",
            Rule::StartState => "start_state",
            Rule::RoundKind => "round_kind",
            Rule::RoundPart => "round_part",
            Rule::Payload => "payload",
            Rule::Writes => "writes",
            Rule::Exit => "exit",
            Rule::CrossPeriod => "cross_period",
            Rule::RoundOrder => "round_order",
            Rule::KeyAdded => "key_added",
            Rule::KeyRemoved => "key_removed",
            Rule::KeyOrder => "key_order",
            Rule::KeyType => "key_type",
            Rule::Event => "event",
            Rule::Transition => "transition",
            Rule::Conditions => "conditions",
            Rule::Attribute => "attribute",
            Rule::Participants => "participants",
            Rule::SystemData => "system_data",
            Rule::Origin => "origin",
            Rule::Label => "label",
            Rule::Name => "name",
            Rule::Docs => "docs",
            Rule::Order => "order",
        }
    }
}

/// A place in one of the two specs, with what to say there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub span: Span,
    pub label: String,
}

/// One change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub class: Class,
    pub rule: Rule,
    /// The machine or app it is in (its new name, or its old one when it was removed).
    pub item: SmolStr,
    pub message: String,
    /// Where it is in the old spec's files, and in the new spec's.
    pub old: Option<Note>,
    pub new: Option<Note>,
    pub notes: Vec<String>,
}

/// Everything that changed from `old` to `new`, ordered by where it is in the new spec (findings only in the old
/// one last, in its order).
pub fn diff(old: &Checked, new: &Checked) -> Vec<Finding> {
    let (olds, news) = (items(old), items(new));
    let mut out = Vec::new();
    let mut taken = vec![false; olds.len()];
    let mut unmatched = Vec::new();
    for n in &news {
        match olds.iter().position(|o| o.name.text == n.name.text) {
            Some(i) => {
                taken[i] = true;
                compare(&olds[i], n, &mut out);
            }
            None => unmatched.push(n),
        }
    }
    // An item renamed in a file of one item (an Open Autonomy app whose label changed) is the same item: the
    // items left on both sides pair up in order.
    let mut left = olds
        .iter()
        .zip(&taken)
        .filter(|(_, t)| !**t)
        .map(|(o, _)| o);
    for n in unmatched {
        match left.next() {
            Some(o) if o.app.is_some() == n.app.is_some() => compare(o, n, &mut out),
            Some(o) => {
                removed(o, &mut out);
                added(n, &mut out);
            }
            None => added(n, &mut out),
        }
    }
    for o in left {
        removed(o, &mut out);
    }
    out.sort_by_key(|f| {
        (
            f.new.is_none(),
            f.new.as_ref().or(f.old.as_ref()).map(|n| n.span),
            std::cmp::Reverse(f.class),
            f.rule,
        )
    });
    out
}

/// The most severe class among `findings`, `None` for no change.
pub fn verdict(findings: &[Finding]) -> Option<Class> {
    findings.iter().map(|f| f.class).max()
}

/// An entry item as the comparison reads it: a machine, or an app with its composed machine.
pub(crate) struct Entry<'a> {
    pub name: &'a Name,
    pub machine: &'a Machine,
    pub app: Option<&'a App>,
    /// For an app, the machine each composed state came from.
    pub origin: Option<&'a [MachineId]>,
    pub spec: &'a Spec,
}

impl Entry<'_> {
    fn what(&self) -> &'static str {
        if self.app.is_some() { "app" } else { "machine" }
    }

    /// Whether what a replica computes is compared: an `abci` machine or an app of `abci` machines.
    pub fn replicated(&self) -> bool {
        self.machine.profile == Profile::Abci
    }
}

fn items(c: &Checked) -> Vec<Entry<'_>> {
    let spec = c.spec();
    spec.entry_items
        .iter()
        .map(|item| match *item {
            Item::Machine(id) => {
                let m = spec.machine(id);
                Entry {
                    name: &m.name,
                    machine: m,
                    app: None,
                    origin: None,
                    spec,
                }
            }
            Item::App(a) => {
                let composed = &c.composed()[a];
                Entry {
                    name: &spec.apps[a].name,
                    machine: &composed.machine,
                    app: Some(&spec.apps[a]),
                    origin: Some(&composed.origin),
                    spec,
                }
            }
        })
        .collect()
}

/// Where findings about one pair of items go, with the item's name and where each side declares it.
pub(crate) struct Cx<'a> {
    out: &'a mut Vec<Finding>,
    item: SmolStr,
    old_at: Span,
    new_at: Span,
}

impl Cx<'_> {
    /// A finding in this item.
    pub fn push(
        &mut self,
        class: Class,
        rule: Rule,
        message: String,
        old: Option<(Span, String)>,
        new: Option<(Span, String)>,
    ) -> &mut Finding {
        let note = |(span, label): (Span, String)| Note { span, label };
        self.out.push(Finding {
            class,
            rule,
            item: self.item.clone(),
            message,
            old: old.map(note),
            new: new.map(note),
            notes: Vec::new(),
        });
        let last = self.out.len() - 1;
        &mut self.out[last]
    }

    /// Where the old spec declares the item (for something that is only in the new one).
    pub fn old_item(&self, label: impl Into<String>) -> Option<(Span, String)> {
        Some((self.old_at, label.into()))
    }

    /// Where the new spec declares the item (for something that is only in the old one).
    pub fn new_item(&self, label: impl Into<String>) -> Option<(Span, String)> {
        Some((self.new_at, label.into()))
    }

    pub fn item(&self) -> &str {
        &self.item
    }
}

fn compare(old: &Entry<'_>, new: &Entry<'_>, out: &mut Vec<Finding>) {
    let mut cx = Cx {
        out,
        item: new.name.text.clone(),
        old_at: old.name.span,
        new_at: new.name.span,
    };
    surface::names(old, new, &mut cx);
    if old.machine.profile != new.machine.profile {
        let class = if old.replicated() || new.replicated() {
            Class::Consensus
        } else {
            Class::Code
        };
        let (a, b) = (old.machine.profile.name(), new.machine.profile.name());
        cx.push(
            class,
            Rule::System,
            format!("`{}` is now a `{b}` {} (was `{a}`)", cx.item(), new.what()),
            Some((old.name.span, format!("a `{a}` {}", old.what()))),
            Some((new.name.span, format!("a `{b}` {}", new.what()))),
        );
        return;
    }
    if new.replicated() {
        facts::compare(
            &fsmc_model::fingerprint::facts(old.machine),
            &fsmc_model::fingerprint::facts(new.machine),
            &mut cx,
        );
    }
    api::compare(old, new, &mut cx);
    surface::compare(old, new, &mut cx);
}

fn added(n: &Entry<'_>, out: &mut Vec<Finding>) {
    out.push(Finding {
        class: Class::Code,
        rule: Rule::ItemAdded,
        item: n.name.text.clone(),
        message: format!("{} `{}` was added", n.what(), n.name),
        old: None,
        new: Some(Note {
            span: n.name.span,
            label: "new".into(),
        }),
        notes: vec![format!(
            "its generated module `{}` is new",
            fsmc_model::ident::snake(&n.name.text)
        )],
    });
}

fn removed(o: &Entry<'_>, out: &mut Vec<Finding>) {
    out.push(Finding {
        class: Class::Code,
        rule: Rule::ItemRemoved,
        item: o.name.text.clone(),
        message: format!("{} `{}` was removed", o.what(), o.name),
        old: Some(Note {
            span: o.name.span,
            label: "no longer in the new spec".into(),
        }),
        new: None,
        notes: vec![format!(
            "code that uses its generated module `{}` no longer compiles",
            fsmc_model::ident::snake(&o.name.text)
        )],
    });
}

/// The two sides of a comparison of named things, each side sorted by name: what is only in the old one, only
/// in the new one, and in both.
pub(crate) enum Pair<'a, T> {
    Old(&'a T),
    New(&'a T),
    Both(&'a T, &'a T),
}

/// Walks two lists sorted by `key` side by side.
pub(crate) fn pairs<'a, T, K: Ord>(
    old: &'a [T],
    new: &'a [T],
    key: impl Fn(&T) -> K,
) -> Vec<Pair<'a, T>> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(old.len().max(new.len()));
    while i < old.len() || j < new.len() {
        let order = match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) => key(a).cmp(&key(b)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                out.push(Pair::Old(&old[i]));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(Pair::New(&new[j]));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(Pair::Both(&old[i], &new[j]));
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// Names as a list for messages: `` `a`, `b` ``, or `nothing`.
pub(crate) fn list<S: AsRef<str>>(names: &[S]) -> String {
    if names.is_empty() {
        return "nothing".into();
    }
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
