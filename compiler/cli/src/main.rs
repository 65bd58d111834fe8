//! The `fsmc` command-line tool: a thin wrapper over [`fsmc::cli::run`].

use std::io::IsTerminal;

fn main() {
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let code = fsmc::cli::run(
        std::env::args_os(),
        &mut stdout.lock(),
        &mut std::io::stderr().lock(),
        tty,
    );
    std::process::exit(code);
}
