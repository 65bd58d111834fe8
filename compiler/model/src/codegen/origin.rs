//! What a composed app's module adds: the machine of the composition each state came from.

use crate::spec::{Machine, MachineId, Spec};
use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn generate(m: &Machine, origin: &[MachineId], spec: &Spec) -> TokenStream {
    let names = origin.iter().map(|id| spec.machine(*id).name.as_str());
    let n = proc_macro2::Literal::usize_unsuffixed(m.states.len());
    quote! {
        const ORIGIN: [&str; #n] = [#(#names),*];
        impl State {
            /// The machine of the composition this state came from.
            pub const fn machine(self) -> &'static str {
                ORIGIN[self as usize]
            }
        }
    }
}
