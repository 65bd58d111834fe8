//! Generated code as formatted text, written as it is made: the code with its long lists deferred (see
//! [`lists`](super::lists)) is formatted once, and each deferred list is then formatted a piece at a time inside
//! the item that holds it, the piece's lines written out and its tokens and tree dropped before the next.
//! What `gen` holds at any moment is the spec, the code without its long lists, and one piece.

use super::lists::{Deferred, Edge, Kind, sentinel, sentinel_name};
use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use std::io::Write;

/// How many elements of a deferred list are formatted together, at most, and how many tokens they may hold:
/// a piece's tree is what `gen` holds besides the spec, whatever the machine's size.
const PIECE: usize = 128;
const PIECE_TOKENS: usize = 16_384;

/// Why formatted code could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// The generator produced code that is not Rust (a bug of the generator).
    Internal(String),
    /// The writer failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
}

fn parse(tokens: TokenStream) -> Result<syn::File, WriteError> {
    syn::parse2::<syn::File>(tokens)
        .map_err(|e| WriteError::Internal(format!("the generated code is not valid Rust ({e})")))
}

/// Writes `tokens` formatted, each deferred list of `lists` (by id) expanded in its place.
pub(crate) fn stream(
    tokens: TokenStream,
    lists: &[Deferred<'_>],
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    let file = parse(tokens)?;
    let text = prettyplease::unparse(&file);
    let mut places = vec![None; lists.len()];
    locate(&file.items, &mut Vec::new(), &mut places);
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let Some(id) = list_at(line, Edge::Start) else {
            out.write_all(line.as_bytes())?;
            continue;
        };
        let (Some(list), Some(Some(place))) = (lists.get(id), places.get(id)) else {
            return Err(WriteError::Internal(format!(
                "deferred list {id} not found"
            )));
        };
        expand(&file, place, id, list, out)?;
        // The end sentinel follows the start sentinel: the list is empty in the formatted code.
        if lines.next().and_then(|l| list_at(l, Edge::End)) != Some(id) {
            return Err(WriteError::Internal(format!(
                "deferred list {id} is not one element per line"
            )));
        }
    }
    Ok(())
}

/// The id of the deferred list whose sentinel at `edge` is on `line`.
fn list_at(line: &str, edge: Edge) -> Option<usize> {
    let rest = &line[line.find("__fsmc_deferred_list_")? + "__fsmc_deferred_list_".len()..];
    let id: usize = rest[..rest.find('_')?].parse().ok()?;
    line.contains(&sentinel_name(id, edge)).then_some(id)
}

/// For each deferred list, the path of item indices (through modules) to the item that holds it.
fn locate(items: &[syn::Item], path: &mut Vec<usize>, places: &mut [Option<Vec<usize>>]) {
    for (i, item) in items.iter().enumerate() {
        path.push(i);
        match item {
            syn::Item::Mod(syn::ItemMod {
                attrs,
                content: Some((_, inner)),
                ..
            }) => {
                // A module's doc lines are a list of its own.
                for attr in attrs {
                    mark(attr.to_token_stream(), path, places);
                }
                locate(inner, path, places);
            }
            _ => mark(item.to_token_stream(), path, places),
        }
        path.pop();
    }
}

/// Records `path` for every deferred list whose start sentinel is in `tokens`.
fn mark(tokens: TokenStream, path: &[usize], places: &mut [Option<Vec<usize>>]) {
    for tree in tokens {
        match tree {
            TokenTree::Group(g) => mark(g.stream(), path, places),
            TokenTree::Ident(id) => {
                if let Some(n) = list_at(&id.to_string(), Edge::Start)
                    && let Some(place) = places.get_mut(n)
                {
                    *place = Some(path.to_vec());
                }
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

/// Writes the elements of list `id`, held by the item at `place`, piece by piece.
fn expand(
    file: &syn::File,
    place: &[usize],
    id: usize,
    list: &Deferred<'_>,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    // The modules on the way give the item the indentation, and so the line width, it has in the file.
    let missing = || WriteError::Internal(format!("deferred list {id} has no item"));
    let (last, path) = place.split_last().ok_or_else(missing)?;
    let mut modules = Vec::new();
    let mut items = &file.items;
    for &i in path {
        let syn::Item::Mod(syn::ItemMod {
            ident,
            content: Some((_, inner)),
            ..
        }) = &items[i]
        else {
            return Err(missing());
        };
        modules.push(ident.clone());
        items = inner;
    }
    // The items of a module and the attributes of an item are each laid out on lines of their own, whatever
    // surrounds them: their pieces are formatted between the sentinels alone (attributes on an empty function),
    // rather than with the whole module around them.
    let alone = list.kind == Kind::Attr
        || matches!(&items[*last], syn::Item::Fn(f) if f.sig.ident == sentinel_name(id, Edge::Start));
    let holder = items[*last].to_token_stream();
    let end = sentinel_name(id, Edge::End);
    let mut start = 0;
    while start < list.len {
        let (piece, next) = list.piece(start, PIECE, PIECE_TOKENS);
        start = next;
        let piece = super::clean_docs(piece);
        let mut code = if alone {
            let (first, last) = (
                sentinel(id, Edge::Start, list.kind),
                sentinel(id, Edge::End, list.kind),
            );
            let carrier =
                (list.kind == Kind::Attr).then(|| quote! { fn __fsmc_attribute_carrier() {} });
            quote! { #first #piece #last #carrier }
        } else {
            fill(holder.clone(), &end, list.kind, &piece)
        };
        for module in modules.iter().rev() {
            code = quote! { mod #module { #code } };
        }
        let text = prettyplease::unparse(&parse(code)?);
        let mut inside = false;
        for line in text.split_inclusive('\n') {
            if list_at(line, Edge::End) == Some(id) {
                break;
            }
            if inside {
                out.write_all(line.as_bytes())?;
            }
            inside = inside || list_at(line, Edge::Start) == Some(id);
        }
    }
    Ok(())
}

/// `tokens` with `piece` put before the end sentinel named `end`.
fn fill(tokens: TokenStream, end: &str, kind: Kind, piece: &TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let at = trees
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(i) if i == end));
    if let Some(at) = at {
        // An item's sentinel is `fn NAME() {}`: the piece goes before its `fn`.
        let at = if kind == Kind::Item { at - 1 } else { at };
        let mut out: TokenStream = trees[..at].iter().cloned().collect();
        out.extend(piece.clone());
        out.extend(trees[at..].iter().cloned());
        return out;
    }
    trees
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut filled = Group::new(g.delimiter(), fill(g.stream(), end, kind, piece));
                filled.set_span(g.span());
                TokenTree::Group(filled)
            }
            other => other,
        })
        .collect()
}
