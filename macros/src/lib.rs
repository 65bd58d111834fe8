//! The `include_fsm!` and `fsm!` procedural macros: a thin shell over the fsmc compiler library.
//!
//! All the work happens in `fsmc`; this crate only parses the macro's arguments, resolves paths against the
//! crate being compiled, turns diagnostics into `compile_error!`s on the argument literal, and makes every file
//! read a build input (via `include_str!`), so editing a spec or anything it imports rebuilds the crate.

use fsmc_base::diag::{Code, Diagnostic, Level, render};
use fsmc_driver::loader::{LoadOptions, absolute, normalize};
use fsmc_driver::{Compilation, Options};
use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{quote, quote_spanned};
use std::path::{Path, PathBuf};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

mod bounds;

/// Generates the Rust for a `.fsm` spec (or an Open Autonomy `fsm_specification.yaml`).
///
/// ```text
/// fsmc_runtime::include_fsm!("specs/oracle.fsm");
/// fsmc_runtime::include_fsm!("specs/oracle.fsm", search = ["vendor/specs"], deny_warnings);
/// fsmc_runtime::include_fsm!("$OUT_DIR/generated.fsm");
/// fsmc_runtime::include_fsm!("specs/oracle.fsm", tests);
/// fsmc_runtime::include_fsm!("specs/oracle.fsm", tests = tour);
/// ```
///
/// `tests` adds the tests generated from the spec, a module `<machine>_tests` per machine and app: one test per
/// transition, or with `tests = tour` one test along a tour that takes them all (see `docs/testing.md`).
///
/// The path is relative to the crate's `Cargo.toml`; it may not be absolute or leave the workspace. A path that
/// starts with `$OUT_DIR/` names a spec the crate's build script wrote into `OUT_DIR`. A spec with
/// errors becomes `compile_error!`s showing each diagnostic (`--> specs/x.fsm:12:5` with the source line), plus
/// the machines' `State`/`Event` enums so the rest of the crate does not drown in follow-on errors.
#[proc_macro]
pub fn include_fsm(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    expand(&args, Source::File).into()
}

/// Generates the Rust for a spec written inline, as a string literal (handy in doctests and small tests).
///
/// ```text
/// fsmc_runtime::fsm!(r#"
///     machine Door {
///         event OPEN, CLOSE;
///         start default state Closed;
///         state Opened;
///         (Closed, OPEN) -> Opened;
///         (Opened, CLOSE) -> Closed;
///     }
/// "#);
/// ```
#[proc_macro]
pub fn fsm(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    expand(&args, Source::Inline).into()
}

enum Source {
    File,
    Inline,
}

struct Args {
    lit: LitStr,
    search: Vec<LitStr>,
    deny_warnings: bool,
    /// `tests` or `tests = tour`: the tests generated from the spec follow the code.
    tests: Option<fsmc_model::codegen::tests::TestOptions>,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let lit: LitStr = input.parse()?;
        let mut args = Args {
            lit,
            search: Vec::new(),
            deny_warnings: false,
            tests: None,
        };
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            match key.to_string().as_str() {
                "deny_warnings" => args.deny_warnings = true,
                "tests" => args.tests = Some(tests_option(input)?),
                "search" => {
                    input.parse::<Token![=]>()?;
                    let content;
                    syn::bracketed!(content in input);
                    let list = content.parse_terminated(|p| p.parse::<LitStr>(), Token![,])?;
                    args.search.extend(list);
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown option `{other}`: expected `search = [\"dir\", …]`, `deny_warnings` or `tests`"
                        ),
                    ));
                }
            }
        }
        Ok(args)
    }
}

/// The rest of a `tests` option: nothing (a test per transition) or `= tour`.
fn tests_option(input: ParseStream) -> syn::Result<fsmc_model::codegen::tests::TestOptions> {
    let mut opts = fsmc_model::codegen::tests::TestOptions::default();
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        let how: Ident = input.parse()?;
        if how != "tour" {
            return Err(syn::Error::new(
                how.span(),
                "expected `tests` or `tests = tour`",
            ));
        }
        opts.tour = true;
    }
    Ok(opts)
}

fn error(span: Span, message: &str) -> proc_macro2::TokenStream {
    quote_spanned!(span=> ::core::compile_error!(#message);)
}

/// The directory paths may not leave: the workspace root (the nearest ancestor whose Cargo.toml declares
/// `[workspace]`), else the crate's own directory.
fn root_of(manifest: &Path) -> PathBuf {
    let mut dir = Some(manifest);
    while let Some(d) = dir {
        if std::fs::read_to_string(d.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]")) {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    manifest.to_path_buf()
}

/// The prefix that names a spec a build script wrote into `OUT_DIR`.
const OUT_DIR_PREFIX: &str = "$OUT_DIR/";

/// The crate's `OUT_DIR` (set by cargo when the crate has a build script), for `$OUT_DIR/…` paths.
fn out_dir() -> Option<PathBuf> {
    std::env::var_os("OUT_DIR").map(|d| normalize(&absolute(Path::new(&d))))
}

/// Resolves a path argument against the manifest directory (or `OUT_DIR` for `$OUT_DIR/…`), refusing absolute
/// paths and escapes.
fn resolve(
    manifest: &Path,
    root: &Path,
    lit: &LitStr,
) -> Result<PathBuf, proc_macro2::TokenStream> {
    let raw = lit.value();
    if let Some(rest) = raw.strip_prefix(OUT_DIR_PREFIX) {
        let Some(out) = out_dir() else {
            return Err(error(
                lit.span(),
                "fsmc: `$OUT_DIR` is not set: the crate needs a build script that writes the spec there",
            ));
        };
        let rel = Path::new(rest);
        let full = normalize(&out.join(rel));
        if rel.is_absolute() || !full.starts_with(&out) {
            return Err(error(
                lit.span(),
                &format!("fsmc: `{raw}` leaves `$OUT_DIR`"),
            ));
        }
        return Ok(full);
    }
    let rel = Path::new(&raw);
    if rel.is_absolute() || raw.starts_with('/') || raw.starts_with('\\') {
        return Err(error(
            lit.span(),
            &format!(
                "fsmc: `{raw}` is an absolute path; write it relative to the crate's Cargo.toml"
            ),
        ));
    }
    let full = normalize(&manifest.join(rel));
    if !full.starts_with(root) {
        return Err(error(
            lit.span(),
            // No absolute path in the message: it reads the same on every machine.
            &format!(
                "fsmc: `{raw}` leaves the workspace; spec paths must stay inside the directory of the workspace's Cargo.toml"
            ),
        ));
    }
    Ok(full)
}

fn expand(args: &Args, source: Source) -> proc_macro2::TokenStream {
    let Some(manifest) = std::env::var_os("CARGO_MANIFEST_DIR").map(|d| absolute(Path::new(&d)))
    else {
        return error(
            args.lit.span(),
            "fsmc: CARGO_MANIFEST_DIR is not set; build with cargo",
        );
    };
    let root = root_of(&manifest);
    let mut search = Vec::new();
    for s in &args.search {
        match resolve(&manifest, &root, s) {
            Ok(p) => search.push(p),
            Err(e) => return e,
        }
    }
    // A spec a build script wrote may import specs of the workspace, and the other way round.
    let mut roots = vec![root.clone()];
    roots.extend(out_dir());
    let mut opts = Options {
        load: LoadOptions {
            search_paths: search,
            roots,
            display_base: Some(manifest.clone()),
        },
        ..Options::default()
    };
    if args.deny_warnings {
        for code in Code::ALL.iter().filter(|c| c.is_lint()) {
            if opts.lints.level(*code) == Some(Level::Warn) {
                opts.lints.set(*code, Level::Deny);
            }
        }
    }
    let compilation = match source {
        Source::File => {
            let path = match resolve(&manifest, &root, &args.lit) {
                Ok(p) => p,
                Err(e) => return e,
            };
            match fsmc_driver::compile(&path, &opts) {
                Ok(c) => c,
                Err(e) => {
                    return error(
                        args.lit.span(),
                        &format!("fsmc: cannot read `{}`: {}", e.path, e.message),
                    );
                }
            }
        }
        Source::Inline => {
            fsmc_driver::compile_str("<fsm! input>", &args.lit.value(), &manifest, &opts)
        }
    };
    output(args, &compilation)
}

fn output(args: &Args, c: &Compilation) -> proc_macro2::TokenStream {
    // Every file read becomes a build input: editing any of them re-runs this macro.
    let tracked = c
        .files_read
        .iter()
        .filter_map(|p| p.to_str())
        .map(|p| quote! { const _: &str = ::core::include_str!(#p); });
    let tracked = quote! { #(#tracked)* };
    match &c.checked {
        Some(checked)
            if !cfg!(feature = "app") && !fsmc_model::codegen::needing_app(checked).is_empty() =>
        {
            let names = fsmc_model::codegen::needing_app(checked);
            let mut out = tracked;
            out.extend(error(args.lit.span(), &app_feature_off(&names)));
            if let Some(spec) = &c.spec {
                out.extend(fsmc_model::codegen::skeleton(spec));
            }
            out
        }
        Some(checked) => {
            let mut code = fsmc_model::codegen::generate(checked);
            if let Some(opts) = args.tests {
                code.extend(fsmc_model::codegen::tests::generate(checked, opts));
            }
            let warnings = warnings(args, c);
            let bounds = bounds::assertions(c, checked);
            // The bounds come first: rustc reports in the order of the items, and their errors name the spec's line.
            quote! { #tracked #bounds #code #warnings }
        }
        None => {
            let errors: Vec<&Diagnostic> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
            let mut out = tracked;
            for d in errors {
                out.extend(error(args.lit.span(), &rendered(c, d)));
            }
            if let Some(spec) = &c.spec {
                out.extend(fsmc_model::codegen::skeleton(spec));
            }
            out
        }
    }
}

/// Why a spec with `abci` machines or apps cannot expand without the runtime's `app` feature, and the fix.
fn app_feature_off(names: &[&str]) -> String {
    let listed: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let (noun, verb) = if names.len() == 1 {
        ("machine", "links")
    } else {
        ("machines", "link")
    };
    format!(
        "fsmc: the `abci` {noun} {} {verb} against fsmc-runtime's `app` feature (round kinds, borsh encoding, \
         state hashes), which is off\n\
         help: enable it where the crate depends on the runtime: \
         `fsmc-runtime = {{ version = \"…\", features = [\"app\"] }}`",
        listed.join(", ")
    )
}

/// A diagnostic as rustc should show it: rustc already prefixes `error:` or `warning:`, so the first line
/// starts with the code (`[E0101] state … declared more than once`), not a second `error[E0101]:`.
fn rendered(c: &Compilation, d: &Diagnostic) -> String {
    let text = render::human(&c.sources, std::slice::from_ref(d), false);
    let text = text.trim_end();
    match text.split_once("]: ") {
        Some((head, rest)) if !head.contains('\n') => match head.split_once('[') {
            Some((_, code)) => format!("[{code}] {rest}"),
            None => text.to_string(),
        },
        _ => text.to_string(),
    }
}

/// The spec's warnings as compiler warnings.
///
/// Stable Rust lets a procedural macro raise no warning of its own (`proc_macro::Diagnostic` is unstable), but
/// using a deprecated item warns with the item's note, and rustc names the item in the message: "use of
/// deprecated constant `PATH`: NOTE". That path is the one thing the macro chooses, so it is made to read as
/// the warning's source and code: a constant named after the code and lint (`W0606_unused_key`) inside a
/// function `fsmc`, giving `_::fsmc::W0606_unused_key`, where a helper crate's generated names would read as
/// noise. Each warning has its own anonymous constant, so two warnings of one code cannot clash, and nothing
/// is added to the caller's namespace. The note is the rendered diagnostic without its code, which the path
/// already shows; the use is spanned at the spec argument so the warning points into the invocation.
fn warnings(args: &Args, c: &Compilation) -> proc_macro2::TokenStream {
    let span = args.lit.span();
    c.diagnostics
        .iter()
        .filter(|d| !d.is_error())
        .map(|d| {
            let name = Ident::new(&format!("{}_{}", d.code.id(), d.code.name()), span);
            let text = rendered(c, d);
            let prefix = format!("[{}] ", d.code.id());
            let note = text.strip_prefix(&prefix).unwrap_or(&text);
            quote::quote_spanned! {span=>
                const _: () = {
                    #[allow(non_snake_case, dead_code)]
                    fn fsmc() {
                        #[deprecated(note = #note)]
                        #[allow(non_upper_case_globals)]
                        const #name: () = ();
                        #name
                    }
                };
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(text: &str) -> Compilation {
        fsmc_driver::compile_str("<fsm! input>", text, Path::new("."), &Options::default())
    }

    #[test]
    fn abci_machines_and_apps_are_the_ones_needing_the_app_feature() {
        let c = compile(
            "machine Plain { event GO; start default state A; final state B; (A, GO) -> B; }
             machine Rounds: abci {
                 event DONE, NO_MAJORITY;
                 start default state ARound: collect_same_until_threshold;
                 final state FinishedRound;
                 (ARound, DONE) -> FinishedRound;
                 (ARound, NO_MAJORITY) -> ARound;
             }",
        );
        let checked = c.checked.as_ref().expect("the spec checks");
        assert_eq!(fsmc_model::codegen::needing_app(checked), ["Rounds"]);
        let message = app_feature_off(&fsmc_model::codegen::needing_app(checked));
        assert!(
            message.contains("`abci` machine `Rounds` links against fsmc-runtime's `app` feature")
        );
        assert!(message.contains(r#"features = ["app"]"#));

        let plain =
            compile("machine P { event GO; start default state A; final state B; (A, GO) -> B; }");
        assert!(
            fsmc_model::codegen::needing_app(plain.checked.as_ref().expect("checks")).is_empty()
        );
    }

    /// The macro reads YAML imports only with the runtime's `yaml` feature; without it the import is refused
    /// with a message naming the feature, not reported as a broken file.
    #[test]
    fn yaml_imports_follow_the_yaml_feature() {
        let dir = std::env::temp_dir().join(format!("fsmc-macros-yaml-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(
            dir.join("tiny_fsm_specification.yaml"),
            "alphabet_in:\n- DONE\ndefault_start_state: ARound\nfinal_states:\n- BRound\nlabel: TinyAbciApp\n\
             start_states:\n- ARound\nstates:\n- ARound\n- BRound\ntransition_func:\n  (ARound, DONE): BRound\n",
        )
        .expect("write spec");
        let opts = Options {
            load: LoadOptions {
                roots: vec![dir.clone()],
                ..LoadOptions::default()
            },
            ..Options::default()
        };
        let c = fsmc_driver::compile_str(
            "<fsm! input>",
            "import \"tiny_fsm_specification.yaml\";",
            &dir,
            &opts,
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
        let errors: Vec<String> = c
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.clone())
            .collect();
        // The macro's `yaml` feature turns on the library's; a test build may link a library with more features
        // (cargo unifies them with the workspace's), so the library's own answer decides what to expect.
        const { assert!(!cfg!(feature = "yaml") || fsmc_driver::loader::READS_YAML) };
        if fsmc_driver::loader::READS_YAML {
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(c.checked.as_ref().map(|k| k.spec().machines.len()), Some(1));
        } else {
            assert_eq!(
                errors,
                ["cannot read Open Autonomy YAML: this build of fsmc has no YAML reader"],
            );
            let help = c
                .diagnostics
                .iter()
                .flat_map(|d| d.help.iter())
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("\n");
            assert!(help.contains("fsmc-runtime's `yaml` feature"), "{help}");
        }
    }
}
