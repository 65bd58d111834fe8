//! Generated message structs with and without the runtime's `serde` feature: the same spec compiles both ways
//! (`cargo test -p fsmc-runtime --test messages`, and again with `--features serde`). With the feature, a
//! message whose fields' types serde knows round-trips through JSON, and so does `Message` when every message
//! does; a message holding a type of the user's crate derives nothing (nor does its machine's `Message`), so a
//! crate whose types lack serde still builds when a dependency turns the feature on.

fsmc_runtime::fsm!(
    r#"
    machine Shop {
        event Pay(amount: u64, note: Option<String>, split: (f64, [u8; 4]));
        event Ship(parcel: crate::Parcel);
        event Cancel;
        start default state Open;
        state Paid;
        final state Done;
        (Open, Pay) -> Paid;
        (Paid, Ship) -> Done;
        (Open, Cancel) -> Done;
    }

    machine Door {
        event Unlock(code: u32);
        event Close;
        start default state Locked;
        state Opened;
        (Locked, Unlock) -> Opened;
        (Opened, Close) -> Locked;
    }
    "#
);

use shop::{Message, messages};

/// A type of the user's crate, without serde.
#[derive(Clone, Debug, PartialEq)]
pub struct Parcel {
    pub weight: u32,
}

fn pay() -> messages::Pay {
    messages::Pay {
        amount: 12,
        note: Some("tip".into()),
        split: (0.5, [1, 2, 3, 4]),
    }
}

#[test]
fn messages_are_built_and_told_apart() {
    let ship = Message::from(messages::Ship {
        parcel: Parcel { weight: 3 },
    });
    assert_eq!(Message::from(pay()).event(), shop::Event::Pay);
    assert_eq!(ship.event(), shop::Event::Ship);
}

#[cfg(feature = "serde")]
#[test]
fn messages_with_known_types_round_trip_through_serde() {
    let json = serde_json::to_string(&pay()).expect("serialized");
    assert_eq!(
        json,
        r#"{"amount":12,"note":"tip","split":[0.5,[1,2,3,4]]}"#
    );
    let back: messages::Pay = serde_json::from_str(&json).expect("deserialized");
    assert_eq!(back, pay());
    let event: shop::Event = serde_json::from_str(r#""Cancel""#).expect("an event by name");
    assert_eq!(event, shop::Event::Cancel);
}

#[cfg(feature = "serde")]
#[test]
fn a_message_enum_whose_data_all_derive_serde_does_too() {
    let unlock = door::Message::from(door::messages::Unlock { code: 7 });
    for (message, json) in [
        (unlock, r#"{"Unlock":{"code":7}}"#),
        (door::Message::Close, r#""Close""#),
    ] {
        assert_eq!(serde_json::to_string(&message).expect("serialized"), json);
        let back: door::Message = serde_json::from_str(json).expect("deserialized");
        assert_eq!(back, message);
    }
}
