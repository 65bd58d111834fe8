//! `fsmc new NAME`: a crate that builds and whose test passes at once, for a plain machine (`--plain`, the
//! default) or an Open Autonomy app (`--app`): the spec, the code that implements its behaviour, and a
//! simulation test. The crate depends on the runtime of an fsmc checkout by path (`--fsmc DIR`, by default the
//! checkout this `fsmc` was built from), and takes that checkout's `Cargo.lock`, so it builds with the versions
//! the checkout was tested with. The files are templates under `new/` (`.rs.tmpl`: Rust once `{{…}}` are
//! filled), built and tested by CI as `fsmc new` writes them.

use super::usage_error;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub(crate) struct NewArgs {
    /// The crate's directory; its last component is the crate's name (letters, digits, `_` and `-`).
    path: PathBuf,
    /// An Open Autonomy app (an `abci` machine) tested on the simulated network.
    #[arg(long, conflicts_with = "plain")]
    app: bool,
    /// A plain machine with guards, actions and events with data (the default).
    #[arg(long)]
    plain: bool,
    /// The fsmc checkout whose runtime the crate depends on.
    #[arg(long, value_name = "DIR")]
    fsmc: Option<PathBuf>,
}

/// The checkout this binary was built from, if it is still there.
fn own_checkout() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?.parent()?;
    dir.join("runtime/Cargo.toml")
        .is_file()
        .then(|| dir.to_path_buf())
}

/// The files of the crate, by path relative to its directory, for a crate named `name`.
fn files(name: &str, app: bool, checkout: &Path) -> Vec<(String, String)> {
    let module = name.replace('-', "_");
    let machine: String = module
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    let (spec, lib, test, readme) = if app {
        (
            include_str!("new/app.fsm.tmpl"),
            include_str!("new/app_lib.rs.tmpl"),
            include_str!("new/app_test.rs.tmpl"),
            include_str!("new/app_readme.md"),
        )
    } else {
        (
            include_str!("new/plain.fsm.tmpl"),
            include_str!("new/plain_lib.rs.tmpl"),
            include_str!("new/plain_test.rs.tmpl"),
            include_str!("new/plain_readme.md"),
        )
    };
    let generated_module = if app {
        format!("{module}_abci_app")
    } else {
        module.clone()
    };
    let fill = |text: &str| {
        text.replace("{{crate}}", name)
            .replace("{{ident}}", &module)
            .replace("{{module}}", &generated_module)
            .replace("{{Machine}}", &machine)
    };
    let path = |p: &str| checkout.join(p).to_string_lossy().replace('\\', "/");
    let runtime = if app {
        format!(
            "fsmc-runtime = {{ path = \"{}\", features = [\"app\"] }}",
            path("runtime")
        )
    } else {
        format!("fsmc-runtime = {{ path = \"{}\" }}", path("runtime"))
    };
    let dev = if app {
        format!(
            "\n[dev-dependencies]\n# The simulated network the test runs the app on.\nfsmc-sim = {{ path = \"{}\" }}\n",
            path("sim")
        )
    } else {
        String::new()
    };
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\n{runtime}\n{dev}\n\
         # A workspace of its own, even inside another one.\n[workspace]\n"
    );
    vec![
        ("Cargo.toml".into(), manifest),
        (format!("{name}.fsm"), fill(spec)),
        ("src/lib.rs".into(), fill(lib)),
        ("tests/simulation.rs".into(), fill(test)),
        ("README.md".into(), fill(readme)),
        (".gitignore".into(), "/target\n".into()),
    ]
}

/// Whether `name` can name a crate and, once `-` is `_`, a Rust module.
fn valid_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

pub(crate) fn run(args: NewArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let name = args
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !valid_name(&name) {
        let shown = fsmc_base::diag::render::inert(&name);
        return usage_error(
            err,
            &format!(
                "`{shown}` cannot name a crate: use letters, digits, `_` and `-`, starting with a letter"
            ),
        );
    }
    let Some(checkout) = args.fsmc.or_else(own_checkout) else {
        return usage_error(
            err,
            "no fsmc checkout to depend on: give its directory with `--fsmc DIR`",
        );
    };
    let checkout = fsmc_driver::loader::normalize(&fsmc_driver::loader::absolute(&checkout));
    if !checkout.join("runtime/Cargo.toml").is_file() {
        return usage_error(
            err,
            &format!(
                "`{}` is not an fsmc checkout (no runtime/Cargo.toml)",
                checkout.display()
            ),
        );
    }
    if args.path.exists() {
        return usage_error(err, &format!("`{}` already exists", args.path.display()));
    }
    let mut written = files(&name, args.app, &checkout);
    if let Ok(lock) = std::fs::read_to_string(checkout.join("Cargo.lock")) {
        written.push(("Cargo.lock".into(), lock));
    }
    for (rel, text) in &written {
        let path = args.path.join(rel);
        let made = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text));
        if let Err(e) = made {
            return usage_error(err, &format!("cannot write `{}`: {e}", path.display()));
        }
    }
    let kind = if args.app {
        "an Open Autonomy app"
    } else {
        "a plain machine"
    };
    let _ = writeln!(
        out,
        "created `{}`, {kind}: `cd {} && cargo test` builds it and runs its simulation",
        name,
        args.path.display()
    );
    0
}
