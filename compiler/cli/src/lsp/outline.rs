//! The outline (document symbols) and semantic tokens of a file.
//!
//! Both read the file's syntax tree, partial when the file is broken, so an editor keeps its outline and its
//! colours while the text is half typed. Semantic tokens classify every token of the file: names by what the
//! index binds them to (a state is coloured as a state wherever it is written), the other words by where the
//! tree has them (a property's name, a round kind, a Rust type), the language's keywords, literals and comments.

use super::index::{Occurrence, Sym};
use super::text::Encoding;
use super::{Analysis, text::LineIndex};
use fsmc_base::source::{FileId, Span};
use fsmc_driver::resolve::Syntax;
use fsmc_driver::yaml::OaSpec;
use fsmc_syntax::ast::{self, CommentKind, PropValue};
use fsmc_syntax::lex::{Kind, Lexer};
use lsp_types as lt;
use std::collections::BTreeMap;

pub fn document_symbols(a: &Analysis, file: FileId, enc: Encoding) -> Vec<lt::DocumentSymbol> {
    let Some(unit) = a.index.unit_of(file) else {
        return Vec::new();
    };
    let Some(u) = a.compilation.units.get(unit) else {
        return Vec::new();
    };
    let out = Outline { a, enc };
    match &u.syntax {
        Syntax::Fsm(f) => out.fsm(f),
        Syntax::Oa(o) => vec![out.oa(o, file)],
    }
}

/// Symbols of one file, with its ranges in the client's encoding.
struct Outline<'a> {
    a: &'a Analysis,
    enc: Encoding,
}

impl Outline<'_> {
    /// A symbol: its name, detail and kind, the span of the whole declaration and of its name.
    fn sym(
        &self,
        name: &str,
        detail: Option<String>,
        kind: lt::SymbolKind,
        range: Span,
        selection: Span,
        children: Option<Vec<lt::DocumentSymbol>>,
    ) -> lt::DocumentSymbol {
        // The protocol requires the selection inside the range; a recovered tree's spans may not nest.
        let range = if range.start <= selection.start && selection.end <= range.end {
            range
        } else {
            selection
        };
        #[allow(deprecated)]
        // `deprecated` is a required field of the struct, deprecated in favour of tags.
        lt::DocumentSymbol {
            name: if name.is_empty() {
                "_".to_string()
            } else {
                name.to_string()
            },
            detail,
            kind,
            tags: None,
            deprecated: None,
            range: self.a.range(range, self.enc),
            selection_range: self.a.range(selection, self.enc),
            children,
        }
    }

    /// An `.fsm` file's imports, machines and apps, in the order written.
    fn fsm(&self, f: &ast::File) -> Vec<lt::DocumentSymbol> {
        let mut out = Vec::new();
        for imp in &f.imports {
            let detail = imp.alias.as_ref().map(|al| format!("as {al}"));
            out.push(self.sym(
                &imp.path,
                detail,
                lt::SymbolKind::FILE,
                imp.span,
                imp.path_span,
                None,
            ));
        }
        for m in &f.machines {
            out.push(self.machine(m));
        }
        for app in &f.apps {
            let chain: Vec<&str> = app.chain.iter().map(|n| n.as_str()).collect();
            let detail = (!chain.is_empty()).then(|| chain.join(" → "));
            out.push(self.sym(
                &app.name.text,
                detail,
                lt::SymbolKind::MODULE,
                app.span,
                app.name.span,
                None,
            ));
        }
        sort_as_written(&mut out);
        out
    }

    /// A machine, with its events, keys and states in the order written.
    fn machine(&self, m: &ast::Machine) -> lt::DocumentSymbol {
        let mut children = Vec::new();
        for e in &m.events {
            let detail = e.timeout.as_ref().map(|t| format!("timeout {t}"));
            children.push(self.sym(
                &e.name.text,
                detail,
                lt::SymbolKind::EVENT,
                e.span,
                e.name.span,
                None,
            ));
        }
        for k in &m.keys {
            let detail = Some(k.ty.text.to_string());
            children.push(self.sym(
                &k.name.text,
                detail,
                lt::SymbolKind::FIELD,
                k.span,
                k.name.span,
                None,
            ));
        }
        for s in &m.states {
            let mut detail: Vec<&str> = s.modifiers.iter().map(|n| n.as_str()).collect();
            if let Some(k) = &s.kind {
                detail.push(k.as_str());
            }
            let detail = (!detail.is_empty()).then(|| detail.join(" "));
            children.push(self.sym(
                &s.name.text,
                detail,
                lt::SymbolKind::ENUM_MEMBER,
                s.span,
                s.name.span,
                None,
            ));
        }
        sort_as_written(&mut children);
        let detail = m.profile.as_ref().map(|p| p.text.to_string());
        self.sym(
            &m.name.text,
            detail,
            lt::SymbolKind::CLASS,
            m.span,
            m.name.span,
            Some(children),
        )
    }

    /// An Open Autonomy file's machine, with its states and events.
    fn oa(&self, o: &OaSpec, file: FileId) -> lt::DocumentSymbol {
        let finals = |n: &str| o.final_states.iter().any(|f| f.text == n);
        let mut children: Vec<lt::DocumentSymbol> = o
            .states
            .iter()
            .map(|s| {
                let detail = if o.default_start_state.text == s.text {
                    Some("start default".to_string())
                } else if finals(&s.text) {
                    Some("final".to_string())
                } else {
                    None
                };
                self.sym(
                    &s.text,
                    detail,
                    lt::SymbolKind::ENUM_MEMBER,
                    s.span,
                    s.span,
                    None,
                )
            })
            .collect();
        children.extend(
            o.alphabet_in
                .iter()
                .map(|e| self.sym(&e.text, None, lt::SymbolKind::EVENT, e.span, e.span, None)),
        );
        let label = self
            .a
            .index
            .in_file(file)
            .iter()
            .find(|occ| occ.def && matches!(occ.sym, Sym::Machine(_)))
            .map_or(o.label.span, |occ| occ.span);
        self.sym(
            o.name(),
            Some("abci".to_string()),
            lt::SymbolKind::CLASS,
            o.span,
            label,
            Some(children),
        )
    }
}

/// Symbols in the order written, as an outline reads.
fn sort_as_written(symbols: &mut [lt::DocumentSymbol]) {
    symbols.sort_by_key(|c| {
        (
            c.selection_range.start.line,
            c.selection_range.start.character,
        )
    });
}

/// The token types, in the legend's order (a token's type is its index here).
const TYPES: &[(Class, lt::SemanticTokenType)] = &[
    (Class::Keyword, lt::SemanticTokenType::KEYWORD),
    (Class::Machine, lt::SemanticTokenType::CLASS),
    (Class::State, lt::SemanticTokenType::ENUM_MEMBER),
    (Class::Event, lt::SemanticTokenType::EVENT),
    (Class::Key, lt::SemanticTokenType::PROPERTY),
    (Class::App, lt::SemanticTokenType::NAMESPACE),
    (Class::Property, lt::SemanticTokenType::DECORATOR),
    (Class::Kind, lt::SemanticTokenType::ENUM),
    (Class::Type, lt::SemanticTokenType::TYPE),
    (Class::Function, lt::SemanticTokenType::FUNCTION),
    (Class::Parameter, lt::SemanticTokenType::PARAMETER),
    (Class::Variable, lt::SemanticTokenType::VARIABLE),
    (Class::String, lt::SemanticTokenType::STRING),
    (Class::Number, lt::SemanticTokenType::NUMBER),
    (Class::Comment, lt::SemanticTokenType::COMMENT),
    (Class::Macro, lt::SemanticTokenType::MACRO),
];

/// Modifiers: bit 0 `declaration` (the name is defined here), bit 1 `documentation` (a doc comment).
const MODIFIERS: &[lt::SemanticTokenModifier] = &[
    lt::SemanticTokenModifier::DECLARATION,
    lt::SemanticTokenModifier::DOCUMENTATION,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Keyword,
    Machine,
    State,
    Event,
    Key,
    App,
    Property,
    Kind,
    Type,
    Function,
    Parameter,
    Variable,
    String,
    Number,
    Comment,
    Macro,
}

pub fn legend() -> lt::SemanticTokensLegend {
    lt::SemanticTokensLegend {
        token_types: TYPES.iter().map(|(_, t)| t.clone()).collect(),
        token_modifiers: MODIFIERS.to_vec(),
    }
}

fn type_index(c: Class) -> u32 {
    TYPES.iter().position(|(k, _)| *k == c).unwrap_or(0) as u32
}

pub fn semantic_tokens(a: &Analysis, file: FileId, enc: Encoding) -> lt::SemanticTokens {
    let text = a.text(file);
    let Some(lines) = a.lines.get(file.0 as usize) else {
        return lt::SemanticTokens::default();
    };
    let mut classes: BTreeMap<u32, (u32, Class, u32)> = BTreeMap::new();
    let mut put = |span: Span, class: Class, modifiers: u32| {
        if span.file == file && span.end > span.start {
            classes.insert(span.start, (span.end, class, modifiers));
        }
    };
    // What the tree knows, first; the index's bindings override it (they are more precise about names).
    if let Some(u) = a
        .index
        .unit_of(file)
        .and_then(|u| a.compilation.units.get(u))
    {
        match &u.syntax {
            Syntax::Fsm(f) => tree_classes(f, &mut put),
            Syntax::Oa(o) => oa_classes(o, &mut put),
        }
    }
    for occ in a.index.in_file(file) {
        put(occ.span, sym_class(occ), u32::from(occ.def));
    }
    let mut tokens: Vec<(usize, usize, Class, u32)> = Vec::new();
    if matches!(
        a.index
            .unit_of(file)
            .and_then(|u| a.compilation.units.get(u))
            .map(|u| &u.syntax),
        Some(Syntax::Fsm(_))
    ) {
        let comments = match a
            .index
            .unit_of(file)
            .and_then(|u| a.compilation.units.get(u))
        {
            Some(u) => match &u.syntax {
                Syntax::Fsm(f) => f.comments.as_slice(),
                Syntax::Oa(_) => &[],
            },
            None => &[],
        };
        for c in comments {
            let modifiers = if c.kind == CommentKind::Doc { 2 } else { 0 };
            tokens.push((
                c.span.start as usize,
                c.span.end as usize,
                Class::Comment,
                modifiers,
            ));
        }
        // The formula's words are keywords only inside a property, from `invariant`/`eventually` to its `;`.
        let mut in_claim = false;
        for t in Lexer::new(text, 0) {
            let word = t.text(text);
            match t.kind {
                Kind::Ident if matches!(word, "invariant" | "eventually") => in_claim = true,
                Kind::Punct if matches!(word, ";" | "}") => in_claim = false,
                _ => {}
            }
            let class = match t.kind {
                // Doc comments come with the comments above.
                Kind::Doc | Kind::OpenComment | Kind::Other | Kind::Punct => None,
                Kind::Str | Kind::OpenStr => Some((Class::String, 0)),
                Kind::Number => Some((Class::Number, 0)),
                // The innermost range holding the word: its own, or a type's (`Vec<(String, u32)>`).
                Kind::Ident => match classes.range(..=t.start as u32).next_back() {
                    Some((_, &(end, class, m))) if end as usize >= t.end => Some((class, m)),
                    // A word is coloured as a keyword only when the tree does not say it is something else (`state
                    // stateful;` is a property named `stateful`).
                    _ if fsmc_vocab::KEYWORDS.contains(&word) => Some((Class::Keyword, 0)),
                    _ if in_claim
                        && (fsmc_vocab::FORMULA_KEYWORDS.contains(&word)
                            || fsmc_vocab::PERIOD_WORDS.contains(&word)) =>
                    {
                        Some((Class::Keyword, 0))
                    }
                    _ => None,
                },
            };
            if let Some((class, m)) = class {
                tokens.push((t.start, t.end, class, m));
            }
        }
        // Strings and numbers the tree classified more precisely (a `payload "T"` type) keep the tree's class.
        for tok in &mut tokens {
            if matches!(tok.2, Class::String | Class::Number)
                && let Some(&(end, class, m)) = classes.get(&(tok.0 as u32))
                && end as usize == tok.1
            {
                tok.2 = class;
                tok.3 = m;
            }
        }
    } else {
        // A YAML file: only the names the index and the tree know.
        tokens.extend(
            classes
                .iter()
                .map(|(&s, &(e, c, m))| (s as usize, e as usize, c, m)),
        );
    }
    tokens.sort_by_key(|t| (t.0, t.1));
    encode(text, lines, &tokens, enc)
}

/// The relative encoding the protocol asks for, one token per line piece (a multi-line comment is split into
/// its lines: not every client accepts tokens that span lines).
fn encode(
    text: &str,
    lines: &LineIndex,
    tokens: &[(usize, usize, Class, u32)],
    enc: Encoding,
) -> lt::SemanticTokens {
    let mut data = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_start) = (0u32, 0u32);
    let mut last_end = 0usize;
    for &(start, end, class, modifiers) in tokens {
        // Overlaps cannot be encoded; the first token wins.
        if start < last_end {
            continue;
        }
        last_end = end;
        let mut piece_start = start;
        while piece_start < end {
            let piece_end = text
                .get(piece_start..end)
                .and_then(|s| s.find('\n'))
                .map_or(end, |n| piece_start + n);
            // A line comment of a file with `\r\n` line ends holds the `\r`: it is not coloured.
            let visible_end = if text
                .get(piece_start..piece_end)
                .is_some_and(|t| t.ends_with('\r'))
            {
                piece_end - 1
            } else {
                piece_end
            };
            let from = lines.position(text, piece_start, enc);
            let to = lines.position(text, visible_end, enc);
            let length = to.character.saturating_sub(from.character);
            if length > 0 {
                let delta_line = from.line - prev_line;
                let delta_start = if delta_line == 0 {
                    from.character - prev_start
                } else {
                    from.character
                };
                data.push(lt::SemanticToken {
                    delta_line,
                    delta_start,
                    length,
                    token_type: type_index(class),
                    token_modifiers_bitset: modifiers,
                });
                prev_line = from.line;
                prev_start = from.character;
            }
            piece_start = piece_end + 1;
        }
    }
    lt::SemanticTokens {
        result_id: None,
        data,
    }
}

fn sym_class(occ: &Occurrence) -> Class {
    match occ.sym {
        Sym::Machine(_) => Class::Machine,
        Sym::State(..) => Class::State,
        Sym::Event(..) => Class::Event,
        Sym::Key(..) => Class::Key,
        Sym::App { .. } => Class::App,
        Sym::File(_) => Class::String,
    }
}

/// Classes of the words the tree places: properties, kinds, types, guards and actions, fields, roles, lints.
fn tree_classes(f: &ast::File, put: &mut impl FnMut(Span, Class, u32)) {
    let lints = |attrs: &[ast::LintAttr], put: &mut dyn FnMut(Span, Class, u32)| {
        for at in attrs {
            put(at.level.span, Class::Macro, 0);
            for l in &at.lints {
                put(l.span, Class::Macro, 0);
            }
        }
    };
    lints(&f.lints, put);
    for imp in &f.imports {
        if let Some(alias) = &imp.alias {
            put(alias.span, Class::Machine, 0);
        }
    }
    for m in &f.machines {
        lints(&m.lints, put);
        put(m.name.span, Class::Machine, 1);
        if let Some(p) = &m.profile {
            put(p.span, Class::Kind, 0);
        }
        for p in &m.properties {
            property(p, put, Class::Variable);
        }
        for e in &m.events {
            for field in &e.fields {
                put(field.name.span, Class::Parameter, 0);
                put(field.ty.span, Class::Type, 0);
            }
            // `by initiator` and `by responder` name no role but the party by its turn, a word of the language.
            if let Some(r) = &e.role {
                let turn = fsmc_vocab::TURNS.contains(&r.text.as_str());
                put(
                    r.span,
                    if turn {
                        Class::Keyword
                    } else {
                        Class::Variable
                    },
                    0,
                );
            }
        }
        for k in &m.keys {
            put(k.ty.span, Class::Type, 0);
        }
        for s in &m.states {
            for md in &s.modifiers {
                put(md.span, Class::Keyword, 0);
            }
            if let Some(k) = &s.kind {
                put(k.span, Class::Kind, 0);
            }
            for p in &s.properties {
                property(p, put, Class::Variable);
            }
        }
        for t in &m.transitions {
            for g in &t.guards {
                put(g.name.span, Class::Function, 0);
            }
            for act in &t.actions {
                put(act.name.span, Class::Function, 0);
            }
            if let Some(p) = &t.persist {
                put(p.span, Class::Kind, 0);
            }
        }
    }
    for app in &f.apps {
        lints(&app.lints, put);
        for p in &app.properties {
            property(p, put, Class::Variable);
        }
    }
}

/// A property's name, and the words of its value the index does not bind (agents, roles: `list`).
fn property(p: &ast::Property, put: &mut dyn FnMut(Span, Class, u32), list: Class) {
    put(p.name.span, Class::Property, 0);
    match &p.value {
        PropValue::List(names) => {
            for n in names {
                put(n.span, list, 0);
            }
        }
        // `payload "u64";` names a Rust type.
        PropValue::Text(t) if p.name.text == "payload" => put(t.span, Class::Type, 0),
        _ => {}
    }
}

fn oa_classes(o: &OaSpec, put: &mut impl FnMut(Span, Class, u32)) {
    put(o.label.span, Class::String, 0);
}
