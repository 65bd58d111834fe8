//! Mutants of the code fsmc generates for shipped specs, each with the tests generated from the unmutated spec
//! (`build.rs` writes them): `MUTANTS` lists each mutant's label and the function that runs its tests.

// Generated code, linted where it is generated; the copies here differ from it by one mutation each.
#[allow(clippy::all, dead_code, unused_imports, unreachable_patterns)]
mod mutants {
    include!(concat!(env!("OUT_DIR"), "/mutants.rs"));
}

pub use mutants::MUTANTS;
