//! The long lists of generated code (a match arm, an array element, an enum variant or a trait method per state,
//! event or transition), generated either at once or piece by piece.
//!
//! The macro needs all the tokens at once. `fsmc gen` does not: it writes formatted text, and holding the tokens
//! and the syntax tree of a whole machine of many thousand rounds takes far more memory than the text. So a
//! generator writes each long list through [`Lists::list`]. When the lists are *deferred*, a long list stands
//! in the tokens as two sentinel elements only, and its elements are made later, a piece at a time, by the
//! stored closure: the formatter formats the item around the list with one piece between the sentinels, keeps
//! the lines between them and drops everything else before the next piece is made (see `format::stream`).
//!
//! Formatting a piece alone gives the same lines as formatting the whole list because each of these lists is
//! laid out one element per line: match arms, enum variants and items always are, and an array always is once it
//! is broken, which its two sentinels alone force (together they are wider than a line); an item's attributes
//! are each on a line of their own. Short lists are never deferred, so an array that fits on one line is laid
//! out as before.

use proc_macro2::TokenStream;
#[cfg(feature = "format")]
use proc_macro2::{Ident, Span};
#[cfg(feature = "format")]
use quote::quote;
#[cfg(feature = "format")]
use std::cell::RefCell;

/// Lists shorter than this are generated at once even when deferring: below it, deferring saves little, and a
/// short array may fit on one line, which the sentinels would change.
#[cfg(feature = "format")]
const MIN_DEFERRED: usize = 64;

/// Where a list stands, which decides what its sentinels look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Match arms; each element is a whole arm, with its comma when it needs one.
    Arm,
    /// Comma-separated elements (array elements, enum variants); each element ends with its comma.
    Elem,
    /// Items of a module, a trait or an impl.
    Item,
    /// Outer attributes (an item's doc lines); each element is one attribute.
    Attr,
}

/// A deferred list: how many elements it has and how to make the element at an index.
#[cfg(feature = "format")]
pub(crate) struct Deferred<'a> {
    pub kind: Kind,
    pub len: usize,
    make: Box<dyn Fn(usize) -> TokenStream + 'a>,
}

#[cfg(feature = "format")]
impl Deferred<'_> {
    /// The elements from `start` on, as many as make a piece: at most `max` elements, and fewer once they hold
    /// `max_tokens` tokens (an element may be a whole table row). Returns them and where the next piece starts.
    pub fn piece(&self, start: usize, max: usize, max_tokens: usize) -> (TokenStream, usize) {
        let mut out = TokenStream::new();
        let (mut at, mut tokens) = (start, 0);
        while at < self.len && at - start < max && tokens < max_tokens {
            let element = (self.make)(at);
            tokens += count(&element);
            out.extend(element);
            at += 1;
        }
        (out, at)
    }
}

/// How long lists are generated: at once, or deferred and kept here (only `fsmc gen`, with the `format`
/// feature, defers).
pub(crate) struct Lists<'a> {
    /// The deferred lists, when deferring.
    #[cfg(feature = "format")]
    deferred: Option<RefCell<Vec<Deferred<'a>>>>,
    #[cfg(not(feature = "format"))]
    at_once: std::marker::PhantomData<&'a ()>,
}

impl<'a> Lists<'a> {
    /// Every list generated at once (what the macro expands to).
    pub fn at_once() -> Self {
        Self {
            #[cfg(feature = "format")]
            deferred: None,
            #[cfg(not(feature = "format"))]
            at_once: std::marker::PhantomData,
        }
    }

    /// Long lists deferred (what `fsmc gen` formats piece by piece).
    #[cfg(feature = "format")]
    pub fn deferred() -> Self {
        Self {
            deferred: Some(RefCell::new(Vec::new())),
        }
    }

    /// A list of `len` elements of `kind`, element `i` made by `make(i)`: the elements, or the sentinels of a
    /// deferred list.
    pub fn list(
        &self,
        kind: Kind,
        len: usize,
        make: impl Fn(usize) -> TokenStream + 'a,
    ) -> TokenStream {
        #[cfg(feature = "format")]
        if let Some(deferred) = &self.deferred
            && len >= MIN_DEFERRED
        {
            let mut deferred = deferred.borrow_mut();
            let id = deferred.len();
            deferred.push(Deferred {
                kind,
                len,
                make: Box::new(make),
            });
            let (start, end) = (
                sentinel(id, Edge::Start, kind),
                sentinel(id, Edge::End, kind),
            );
            return quote! { #start #end };
        }
        #[cfg(not(feature = "format"))]
        let _ = kind;
        (0..len).map(make).collect()
    }

    /// Whether a list of `len` elements is deferred. A list of lists defers either the outer list (each element
    /// then made whole) or the inner ones, never both: a deferred list is formatted inside the item holding it,
    /// and an item holding one deferred list per element of a long outer list would be formatted once per
    /// inner list, in time quadratic in the outer list's length.
    pub fn defers(&self, len: usize) -> bool {
        #[cfg(feature = "format")]
        return self.deferred.is_some() && len >= MIN_DEFERRED;
        #[cfg(not(feature = "format"))]
        {
            let _ = len;
            false
        }
    }

    /// The deferred lists, by id.
    #[cfg(feature = "format")]
    pub fn take(self) -> Vec<Deferred<'a>> {
        self.deferred.map(RefCell::into_inner).unwrap_or_default()
    }
}

/// How many tokens `tokens` holds, groups' contents included.
#[cfg(feature = "format")]
fn count(tokens: &TokenStream) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 1 + count(&g.stream()),
            _ => 1,
        })
        .sum()
}

/// Which end of a deferred list a sentinel marks.
#[cfg(feature = "format")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Edge {
    Start,
    End,
}

/// The name both sentinels of list `id` carry. It is long so that two sentinels never fit on one line.
#[cfg(feature = "format")]
pub(crate) fn sentinel_name(id: usize, edge: Edge) -> String {
    let edge = match edge {
        Edge::Start => "start",
        Edge::End => "end",
    };
    format!("__fsmc_deferred_list_{id}_{edge}_of_the_elements_formatted_piece_by_piece")
}

/// The sentinel element of list `id` at `edge`, in the form an element of `kind` has.
#[cfg(feature = "format")]
pub(crate) fn sentinel(id: usize, edge: Edge, kind: Kind) -> TokenStream {
    let name = Ident::new(&sentinel_name(id, edge), Span::call_site());
    match kind {
        Kind::Arm => quote! { #name => {} },
        Kind::Elem => quote! { #name, },
        Kind::Item => quote! { fn #name() {} },
        Kind::Attr => quote! { #[#name] },
    }
}
