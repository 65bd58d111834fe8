//! Parsing generated `State` and `Event` values from their spec names, and (with the `serde` feature)
//! serializing them as those names.

use std::error::Error;
use std::fmt::{self, Display, Formatter};

/// A string that is not the spec name of any state (or event) of a machine.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UnknownName {
    /// `"state"` or `"event"`.
    pub kind: &'static str,
    /// The machine's name.
    pub machine: &'static str,
    /// The string that matched nothing.
    pub name: String,
}

impl Display for UnknownName {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not {} {} of `{}`",
            self.name,
            if self.kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            },
            self.kind,
            self.machine
        )
    }
}

impl Error for UnknownName {}

/// Implements serde's `Serialize` and `Deserialize` for a generated enum as its spec name, when this crate's
/// `serde` feature is on (and nothing otherwise). Generated code calls it for `State` and `Event`: the feature
/// that decides is the runtime's, which the user's crate enables, not a feature of the user's crate.
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_by_name {
    ($ty:ident) => {
        impl $crate::__serde::Serialize for $ty {
            fn serialize<S: $crate::__serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }

        impl<'de> $crate::__serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let name = <::std::borrow::Cow<'de, str> as $crate::__serde::Deserialize<'de>>::deserialize(
                    deserializer,
                )?;
                name.parse()
                    .map_err(<D::Error as $crate::__serde::de::Error>::custom)
            }
        }
    };
}

/// Without the `serde` feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_by_name {
    ($ty:ident) => {};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_the_kind_and_machine() {
        let e = UnknownName {
            kind: "event",
            machine: "Door",
            name: "KNOCK".into(),
        };
        assert_eq!(e.to_string(), "`KNOCK` is not an event of `Door`");
        let s = UnknownName {
            kind: "state",
            machine: "Door",
            name: "Ajar".into(),
        };
        assert_eq!(s.to_string(), "`Ajar` is not a state of `Door`");
    }
}
