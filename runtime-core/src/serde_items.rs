//! Serde for generated message structs and `Message` enums, when this crate's `serde` feature is on (and
//! nothing otherwise): the feature that decides is the runtime's, which the user's crate enables, not a feature
//! of the user's crate, so generated code cannot write `#[cfg_attr(feature = "serde", derive(…))]`.
//!
//! Generated code writes the item as it is, then calls a macro with its fields or variants. The macro
//! implements `Serialize` and `Deserialize` through a copy of the item declared inside each method, under the
//! item's own name (so formats that write type names write the right one), which serde's derive handles:
//! serializing borrows the fields, deserializing moves them into the item. Serde is named through the runtime,
//! so the user's crate needs no serde of its own.

/// `Serialize` and `Deserialize` for a struct with named fields: `__serde_struct!(Pay { amount: u64, })`.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_struct {
    ($ty:ident { $($field:ident : $fty:ty),+ $(,)? }) => {
        impl $crate::__serde::Serialize for $ty {
            fn serialize<S: $crate::__serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                #[derive($crate::__serde::Serialize)]
                #[serde(crate = "::fsmc_runtime::__serde")]
                struct $ty<'a> {
                    $($field: &'a $fty,)+
                }
                $crate::__serde::Serialize::serialize(&$ty { $($field: &self.$field,)+ }, serializer)
            }
        }

        impl<'de> $crate::__serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #[derive($crate::__serde::Deserialize)]
                #[serde(crate = "::fsmc_runtime::__serde")]
                struct $ty {
                    $($field: $fty,)+
                }
                let data = <$ty as $crate::__serde::Deserialize<'de>>::deserialize(deserializer)?;
                ::core::result::Result::Ok(Self { $($field: data.$field,)+ })
            }
        }
    };
}

/// `Serialize` and `Deserialize` for an enum of unit variants and variants holding one value, at least one of
/// them with a value: `__serde_enum!(Message { Pay(messages::Pay), Cancel, })`.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_enum {
    (@data $data:ty, $name:ident) => {
        $name
    };
    ($ty:ident { $($variant:ident $(($data:ty))?),+ $(,)? }) => {
        impl $crate::__serde::Serialize for $ty {
            fn serialize<S: $crate::__serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                #[derive($crate::__serde::Serialize)]
                #[serde(crate = "::fsmc_runtime::__serde")]
                enum $ty<'a> {
                    $($variant $((&'a $data))?,)+
                }
                let copy = match self {
                    $(Self::$variant $(($crate::__serde_enum!(@data $data, data)))?
                        => $ty::$variant $(($crate::__serde_enum!(@data $data, data)))?,)+
                };
                $crate::__serde::Serialize::serialize(&copy, serializer)
            }
        }

        impl<'de> $crate::__serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #[derive($crate::__serde::Deserialize)]
                #[serde(crate = "::fsmc_runtime::__serde")]
                enum $ty {
                    $($variant $(($data))?,)+
                }
                ::core::result::Result::Ok(
                    match <$ty as $crate::__serde::Deserialize<'de>>::deserialize(deserializer)? {
                        $($ty::$variant $(($crate::__serde_enum!(@data $data, data)))?
                            => Self::$variant $(($crate::__serde_enum!(@data $data, data)))?,)+
                    },
                )
            }
        }
    };
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_struct {
    ($($item:tt)*) => {};
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_enum {
    ($($item:tt)*) => {};
}
