//! YAML 1.1 implicit typing of plain scalars, as PyYAML's `SafeLoader` resolves it.
//!
//! Upstream reads and writes specs with PyYAML, which types an unquoted `yes`, `12`, `1.5`, `~` or `2024-01-01`
//! as a boolean, number, null or date. The reader uses this to reject such items where a name is expected, and
//! the writer uses it to quote a name exactly when PyYAML would. The patterns are transcribed from PyYAML's
//! `resolver.py`; there is no regex engine in the dependency set, so each alternative is a small matcher.

/// What a plain (unquoted, untagged) scalar means under YAML 1.1, when it is not a string.
pub fn implicit_type(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    // Every typed form starts with one of these bytes (or is empty): names, which start otherwise, are
    // strings at once. Every name of a spec passes through here.
    if let Some(c) = b.first()
        && !matches!(
            c,
            b'~' | b'n'
                | b'N'
                | b'y'
                | b'Y'
                | b't'
                | b'T'
                | b'f'
                | b'F'
                | b'o'
                | b'O'
                | b'+'
                | b'-'
                | b'.'
                | b'0'..=b'9' | b'<' | b'='
        )
    {
        return None;
    }
    if matches!(s, "" | "~" | "null" | "Null" | "NULL") {
        Some("null")
    } else if is_bool(s) {
        Some("a boolean")
    } else if is_int(b) {
        Some("an integer")
    } else if is_float(b) {
        Some("a float")
    } else if is_timestamp(b) {
        Some("a timestamp")
    } else if s == "<<" {
        Some("a merge key")
    } else if s == "=" {
        // PyYAML resolves `=` to the `value` tag, which `safe_load` cannot construct.
        Some("a `value` key")
    } else {
        None
    }
}

fn is_bool(s: &str) -> bool {
    matches!(
        s,
        "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// A cursor over ASCII bytes; every matcher must consume the whole input (the patterns are anchored).
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    fn new(b: &'a [u8]) -> Cur<'a> {
        Cur { b, i: 0 }
    }
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn eat(&mut self, f: impl Fn(u8) -> bool) -> bool {
        match self.peek() {
            Some(c) if f(c) => {
                self.i += 1;
                true
            }
            _ => false,
        }
    }
    fn eat_byte(&mut self, c: u8) -> bool {
        self.eat(|x| x == c)
    }
    fn many(&mut self, f: impl Fn(u8) -> bool) -> usize {
        let start = self.i;
        while self.eat(&f) {}
        self.i - start
    }
    /// Zero or more: always succeeds (for `x*` inside a chain of `&&`).
    fn any(&mut self, f: impl Fn(u8) -> bool) -> bool {
        self.many(f);
        true
    }
    /// Zero or one: always succeeds (for `x?`).
    fn opt(&mut self, f: impl Fn(u8) -> bool) -> bool {
        self.eat(f);
        true
    }
    fn sign(&mut self) {
        self.eat(|c| c == b'-' || c == b'+');
    }
    fn done(&self) -> bool {
        self.i == self.b.len()
    }
    fn eat_str(&mut self, s: &str) -> bool {
        if self.b[self.i..].starts_with(s.as_bytes()) {
            self.i += s.len();
            true
        } else {
            false
        }
    }
}

fn digit(c: u8) -> bool {
    c.is_ascii_digit()
}
fn digit_(c: u8) -> bool {
    c.is_ascii_digit() || c == b'_'
}

/// `(?::[0-5]?[0-9])+`: one or more base-60 groups.
fn sexagesimal(c: &mut Cur) -> bool {
    let mut groups = 0;
    while c.peek() == Some(b':') {
        c.i += 1;
        let start = c.i;
        let n = c.many(digit).min(2);
        c.i = start + n;
        let ok = match n {
            1 => true,
            2 => c.b[start] <= b'5',
            _ => false,
        };
        if !ok {
            return false;
        }
        groups += 1;
    }
    groups > 0
}

fn is_int(b: &[u8]) -> bool {
    let alternatives: [fn(&mut Cur) -> bool; 5] = [
        |c| {
            c.sign();
            c.eat_str("0b") && c.many(|x| x == b'0' || x == b'1' || x == b'_') > 0
        },
        |c| {
            c.sign();
            c.eat_byte(b'0') && c.many(|x| (b'0'..=b'7').contains(&x) || x == b'_') > 0
        },
        |c| {
            c.sign();
            c.eat_byte(b'0') || (c.eat(|x| (b'1'..=b'9').contains(&x)) && c.any(digit_))
        },
        |c| {
            c.sign();
            c.eat_str("0x") && c.many(|x| x.is_ascii_hexdigit() || x == b'_') > 0
        },
        |c| {
            c.sign();
            c.eat(|x| (b'1'..=b'9').contains(&x)) && c.any(digit_) && sexagesimal(c)
        },
    ];
    alternatives.iter().any(|alt| {
        let mut c = Cur::new(b);
        alt(&mut c) && c.done()
    })
}

/// `(?:[eE][-+][0-9]+)?`: the exponent, whose sign is mandatory in YAML 1.1.
fn exponent(c: &mut Cur) -> bool {
    if c.eat(|x| x == b'e' || x == b'E') {
        c.eat(|x| x == b'-' || x == b'+') && c.many(digit) > 0
    } else {
        true
    }
}

fn is_float(b: &[u8]) -> bool {
    let alternatives: [fn(&mut Cur) -> bool; 5] = [
        |c| {
            c.sign();
            c.eat(digit) && c.any(digit_) && c.eat_byte(b'.') && c.any(digit_) && exponent(c)
        },
        |c| c.eat_byte(b'.') && c.eat(digit) && c.any(digit_) && exponent(c),
        |c| {
            c.sign();
            c.eat(digit) && c.any(digit_) && sexagesimal(c) && c.eat_byte(b'.') && c.any(digit_)
        },
        |c| {
            c.sign();
            c.eat_byte(b'.') && (c.eat_str("inf") || c.eat_str("Inf") || c.eat_str("INF"))
        },
        |c| c.eat_byte(b'.') && (c.eat_str("nan") || c.eat_str("NaN") || c.eat_str("NAN")),
    ];
    alternatives.iter().any(|alt| {
        let mut c = Cur::new(b);
        alt(&mut c) && c.done()
    })
}

fn is_timestamp(b: &[u8]) -> bool {
    let date_only = |c: &mut Cur| {
        (0..4).all(|_| c.eat(digit))
            && c.eat_byte(b'-')
            && c.eat(digit)
            && c.eat(digit)
            && c.eat_byte(b'-')
            && c.eat(digit)
            && c.eat(digit)
    };
    let date_time = |c: &mut Cur| {
        let blank = |x: u8| x == b' ' || x == b'\t';
        let date = (0..4).all(|_| c.eat(digit))
            && c.eat_byte(b'-')
            && c.eat(digit)
            && c.opt(digit)
            && c.eat_byte(b'-')
            && c.eat(digit)
            && c.opt(digit);
        let separator = c.eat(|x| x == b'T' || x == b't') || c.many(blank) > 0;
        let time = c.eat(digit)
            && c.opt(digit)
            && c.eat_byte(b':')
            && c.eat(digit)
            && c.eat(digit)
            && c.eat_byte(b':')
            && c.eat(digit)
            && c.eat(digit);
        if !(date && separator && time) {
            return false;
        }
        if c.eat_byte(b'.') {
            c.many(digit);
        }
        // The zone is optional; blanks before it are only allowed when a zone follows.
        let before_zone = c.i;
        c.many(blank);
        let zone = c.eat_byte(b'Z')
            || (c.eat(|x| x == b'-' || x == b'+') && c.eat(digit) && {
                c.eat(digit);
                if c.eat_byte(b':') {
                    c.eat(digit) && c.eat(digit)
                } else {
                    true
                }
            });
        if !zone {
            c.i = before_zone;
        }
        true
    };
    let mut c = Cur::new(b);
    if date_only(&mut c) && c.done() {
        return true;
    }
    let mut c = Cur::new(b);
    date_time(&mut c) && c.done()
}

#[cfg(test)]
mod tests {
    use super::implicit_type;

    #[test]
    fn resolves_like_pyyaml() {
        // Each value checked against PyYAML 6 (`Resolver().resolve(ScalarNode, s, (True, False))`).
        let typed = [
            "",
            "~",
            "null",
            "yes",
            "No",
            "OFF",
            "0",
            "12",
            "-3",
            "+0b101",
            "017",
            "0x1F",
            "1_000",
            "1:30",
            "-1:0",
            "1_:5",
            "1.5",
            "1.",
            ".5",
            "-.inf",
            ".NaN",
            "1.0e-3",
            "190:20:30.15",
            "2024-01-02",
            "2024-1-2 3:04:05",
            "2024-01-02T03:04:05.5Z",
            "2024-01-02 03:04:05 +01:00",
            "2024-01-02 03:04:05.123 -5",
            "2024-01-02T03:04:05 Z",
            "<<",
            "=",
        ];
        let strings = [
            "DONE",
            "RegistrationRound",
            "09",
            "0o7",
            "1e5",
            "1.0e5",
            "1e+5.",
            "+.5",
            "y",
            "n",
            "on_",
            "Null_",
            "1:60",
            "0:5",
            "12:345",
            "2024-01-02x",
            "2024-01-02 ",
            "2024-01-02 03:04:05 ",
            "0b",
            "0x",
            "+",
            "-",
            ".",
            "..5",
            "+.inf_",
            "(A, B)",
            "a b",
            "1:2:3:4a",
            "é",
        ];
        for s in typed {
            assert!(implicit_type(s).is_some(), "{s:?} should be typed");
        }
        for s in strings {
            assert_eq!(implicit_type(s), None, "{s:?} should be a string");
        }
    }
}
