//! The indices that bind names in the model: a state, event, key or machine is referred to by its position in
//! its machine's (or the spec's) table.

macro_rules! id_type {
    ($($name:ident),*) => {$(
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize { self.0 as usize }
        }
    )*};
}
id_type!(StateId, EventId, KeyId, MachineId);
