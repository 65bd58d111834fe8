//! The bounds of the types a spec names, asserted where the spec names them. Each payload and key type of an
//! `abci` machine gets a trait and a function named for where the spec names it (`payload_of_ObserveRound_at_
//! price_fsm_line_12`): the trait holds for a type that implements the runtime's trait for that use
//! (`fsmc_runtime::app::Payload` or `Key`), and the function asserts it of the spec's type. A type that lacks
//! a bound gets one error, whose message names the type, the state or key and the spec's line. The generated
//! impls that need the bound assume it (see the code generator's `assumed`), so rustc reports nothing more
//! from them or from inside the runtime.
//!
//! The functions live in a module next to the generated one (`__fsmc_bounds_of_<App>`), at the same depth, so
//! that a type written in the spec (`crate::Money`, `super::Money`) names the same type in both.

use fsmc_driver::Compilation;
use fsmc_model::spec::{Checked, Item};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

/// The assertions for every `abci` machine and composed app of the entry file; nothing for a spec without one.
pub(crate) fn assertions(c: &Compilation, checked: &Checked) -> TokenStream {
    let spec = checked.spec();
    let apps = fsmc_model::codegen::needing_app(checked);
    let mut checks = Vec::new();
    for item in &spec.entry_items {
        let m = match *item {
            Item::Machine(id) => spec.machine(id),
            Item::App(a) => &checked.composed()[a].machine,
        };
        if !apps.contains(&m.name.text.as_str()) {
            continue;
        }
        for s in &m.states {
            let (Some(ty), Some(span)) = (s.payload(), s.payload_span()) else {
                continue;
            };
            let place = Place {
                name: format!("payload_of_{}", s.name.text),
                what: format!("the payload of `{}`", s.name.text),
                bound: quote! { Payload },
                needs: PAYLOAD,
                note: PAYLOAD_NOTE,
            };
            checks.push(check(c, &place, span, ty));
        }
        for k in &m.keys {
            let place = Place {
                name: format!("key_{}", k.name.text),
                what: format!("the type of key `{}`", k.name.text),
                bound: quote! { Key },
                needs: KEY,
                note: KEY_NOTE,
            };
            checks.push(check(c, &place, k.ty.span, &k.ty.text));
        }
    }
    // A composed app repeats the states of the machines it chains, which may be entry items too: one function
    // per place in the spec.
    let checks: std::collections::BTreeMap<String, TokenStream> =
        checks.into_iter().flatten().collect();
    let checks = checks.into_values();
    let checks: Vec<TokenStream> = checks.collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    // Named after the first app, so that two specs included in one module do not collide.
    let module = format_ident!(
        "__fsmc_bounds_of_{}",
        apps.first().map_or(String::new(), |n| n
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect())
    );
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, non_camel_case_types, dead_code)]
        mod #module {
            // The two proofs a place's trait may have, so that rustc weighs both impls and, when neither
            // applies, reports the place's trait unmet as a whole (one error) rather than each bound the
            // runtime's trait lacks (one error per missing trait).
            pub enum Holds {}
            pub enum Never {}
            trait Unimplemented {}
            #(#checks)*
        }
    }
}

/// What the spec names a type as: the item name (`payload_of_ObserveRound`), the words for the message,
/// the runtime's trait and the bounds it stands for.
struct Place {
    name: String,
    what: String,
    bound: TokenStream,
    needs: &'static str,
    note: &'static str,
}

const PAYLOAD: &str = "a payload is `Clone + Debug + Ord + BorshSerialize + BorshDeserialize + Send + Sync + 'static`";
const KEY: &str =
    "a key is `Clone + Debug + BorshSerialize + BorshDeserialize + Send + Sync + 'static`";
const KEY_NOTE: &str = "derive them; borsh's derives are `fsmc_runtime::borsh::{{BorshSerialize, BorshDeserialize}}` with `#[borsh(crate = \"fsmc_runtime::borsh\")]`";
const PAYLOAD_NOTE: &str = "derive them (`Ord` needs `PartialEq`, `Eq` and `PartialOrd` too); borsh's derives are `fsmc_runtime::borsh::{{BorshSerialize, BorshDeserialize}}` with `#[borsh(crate = \"fsmc_runtime::borsh\")]`";

/// The assertion that `ty`, named at `span` as `place`, implements the runtime's trait; `None` for a type
/// that is not Rust (the check has refused it already) or whose place cannot be named.
fn check(
    c: &Compilation,
    place: &Place,
    span: fsmc_base::source::Span,
    ty: &str,
) -> Option<(String, TokenStream)> {
    let ty: syn::Type = syn::parse_str(ty).ok()?;
    let file = c.sources.get(span.file)?;
    let (line, _) = file.line_col(span.start as usize);
    // `price.fsm` → `price_fsm`; an inline spec (`<fsm! input>`) → `fsm_input`.
    let base = std::path::Path::new(&file.name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = base
        .split(|ch: char| !ch.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    let name: String = format!("{}_at_{stem}_line_{line}", place.name)
        .chars()
        .filter(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
        .collect();
    let id = syn::parse_str::<syn::Ident>(&name).ok()?;
    let id = format_ident!("{}", id, span = Span::call_site());
    // The message is a format string: braces in a file's name are written twice.
    let at = format!("{base}, line {line}")
        .replace('{', "{{")
        .replace('}', "}}");
    let message = format!(
        "`{{Self}}` cannot be {} ({at}): {}",
        place.what, place.needs
    );
    let label = format!("the spec names it as {} at {at}", place.what);
    let (bound, note) = (&place.bound, place.note);
    let tokens = quote! {
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        trait #id<Proof> {}
        impl<T: ::fsmc_runtime::app::#bound> #id<Holds> for T {}
        impl<T: Unimplemented> #id<Never> for T {}
        fn #id<T: #id<Proof>, Proof>() {}
        const _: () = {
            let _ = #id::<#ty, _>;
        };
    };
    Some((name, tokens))
}
