//! The bounds of the types a spec names, asserted where the spec names them. Each payload and key type of an
//! `abci` machine gets a function whose name says where the spec names it (`payload_of_ObserveRound_at_
//! price_fsm_line_12`) and whose bound is the runtime's trait for that use (`fsmc_runtime::app::Payload` or
//! `Key`): a type that lacks one gets an error that names the type and what it lacks, and
//! whose note ("required by a bound in …") names the function, so the state or key and the spec's line. rustc
//! still reports the uses inside the runtime that need the bound, after this one; no stable means silences them.
//!
//! The functions live in a module next to the generated one (`__fsmc_bounds_of_<App>`), at the same depth, so that a type written in the
//! spec (`crate::Money`, `super::Money`) names the same type in both.

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
            let what = format!("payload_of_{}", s.name.text);
            checks.push(check(c, &what, span, ty, quote! { Payload }));
        }
        for k in &m.keys {
            let what = format!("key_{}", k.name.text);
            checks.push(check(c, &what, k.ty.span, &k.ty.text, quote! { Key }));
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
        #[allow(non_snake_case, dead_code)]
        mod #module {
            #(#checks)*
        }
    }
}

/// The assertion that `ty`, named at `span` as `what`, implements the runtime's `bound`; `None` for a type
/// that is not Rust (the check has refused it already) or whose place cannot be named.
fn check(
    c: &Compilation,
    what: &str,
    span: fsmc_base::source::Span,
    ty: &str,
    bound: TokenStream,
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
    let name: String = format!("{what}_at_{stem}_line_{line}")
        .chars()
        .filter(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
        .collect();
    let id = syn::parse_str::<syn::Ident>(&name).ok()?;
    let id = format_ident!("{}", id, span = Span::call_site());
    let tokens = quote! {
        fn #id<T: ::fsmc_runtime::app::#bound>() {}
        const _: () = {
            let _ = #id::<#ty>;
        };
    };
    Some((name, tokens))
}
