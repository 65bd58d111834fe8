//! The general case, "expected …, found …", in the language's terms: what pest expected named as a person
//! reads it (a state name, an event name, a type, a duration), and how each kind of statement is written.

use super::{Ctx, Cx, Form, backticked, describe_found, either, expected_found};
use crate::grammar::Rule;
use crate::lex::Kind;
use fsmc_base::diag::Diagnostic;
use fsmc_vocab::Profile;
use fsmc_vocab::abci::RoundKind;
use fsmc_vocab::genie::Persistence;
use std::borrow::Cow;

impl Cx<'_> {
    /// The general case: "expected …, found …" at the token pest stopped at.
    pub(super) fn expected_found(&self) -> Diagnostic {
        let expected = self.expected();
        let found = describe_found(self.text, self.found);
        let (message, label) = expected_found(&expected, &found);
        let mut d = self.error(message).at(self.found_span(), label);
        let name_expected =
            self.has(Rule::ident) || self.has(Rule::prop_list) || self.has(Rule::qualified);
        let help = match self.found {
            Some(t) if name_expected && t.kind == Kind::Number => {
                Some("a name starts with a letter or `_`".to_string())
            }
            Some(t)
                if t.kind == Kind::Other && t.text(self.text).chars().any(char::is_alphabetic) =>
            {
                Some("names may only use ASCII letters, digits and `_`".to_string())
            }
            _ => self.form_help().map(str::to_string),
        };
        if let Some(h) = help {
            d = d.help(h);
        } else {
            d = d.help("see docs/language.md for the grammar");
        }
        d
    }

    /// What pest could have matched, in the language's terms.
    pub(super) fn expected(&self) -> Vec<String> {
        let at_start = self.before().next().is_none();
        if at_start && let Some(s) = self.start_phrase() {
            return vec![s.to_string()];
        }
        // Right after a keyword that must be followed by a name (`state`, `event`, `if`, …), other readings of the
        // statement (`state;` as a property, `state -> B;` as a direct transition) only confuse.
        let named_by_keyword = self.form != Form::Property
            && self.prev().is_some_and(|t| {
                t.kind == Kind::Ident
                    && matches!(
                        t.text(self.text),
                        "state"
                            | "event"
                            | "key"
                            | "machine"
                            | "app"
                            | "chain"
                            | "if"
                            | "unless"
                            | "do"
                            | "persist"
                            | "by"
                            | "as"
                    )
            });
        // Content first, then punctuation, then keywords; each group in a fixed order.
        let mut content: Vec<String> = Vec::new();
        let mut punct: Vec<String> = Vec::new();
        let mut words: Vec<String> = Vec::new();
        for &r in &self.positives {
            let (group, phrase) = match r {
                Rule::ident | Rule::prop_list | Rule::qualified => {
                    (&mut content, self.name_role().to_string())
                }
                Rule::lint_name => (&mut content, "a lint name or code".to_string()),
                Rule::string if self.form == Form::Import => (
                    &mut content,
                    "a path in double quotes, such as `\"common.fsm\"`".to_string(),
                ),
                Rule::string => (&mut content, "a string".to_string()),
                Rule::duration => (&mut content, "a duration such as `30s`".to_string()),
                Rule::integer => (&mut content, "a number".to_string()),
                Rule::rust_type | Rule::type_path | Rule::type_tuple | Rule::type_array => {
                    (&mut content, "a type".to_string())
                }
                Rule::outer_attr | Rule::inner_attr => (&mut content, "an attribute".to_string()),
                Rule::state_mod if self.has(Rule::kw_state) => continue,
                Rule::state_mod => (&mut words, "`start`, `default` or `final`".to_string()),
                Rule::key_mod if self.has(Rule::kw_key) => continue,
                Rule::key_mod => (&mut words, backticked("cross_period")),
                _ if named_by_keyword => continue,
                _ => match punct_of(r) {
                    Some(p) => (&mut punct, backticked(p)),
                    None => match keyword_of(r) {
                        Some(w) => (&mut words, backticked(w)),
                        None => continue,
                    },
                },
            };
            if !group.contains(&phrase) {
                group.push(phrase);
            }
        }
        punct.sort_by_key(|p| PUNCT_ORDER.iter().position(|o| backticked(o) == *p));
        words.sort();
        content.extend(punct);
        content.extend(words);
        content
    }

    /// What a statement may start with here.
    pub(super) fn start_phrase(&self) -> Option<&'static str> {
        Some(match self.f.ctx {
            Ctx::Members(_) => {
                "`event`, `key`, `state`, a transition `(State, EVENT) -> Target;` or a property"
            }
            Ctx::Properties(_) => "a property such as `reads key;`",
            Ctx::AppMembers => "`chain`, a mapping `Final -> Start;` or a property",
            _ => return None,
        })
    }

    /// How the name pest expects is described: by the token before it and the kind of statement.
    pub(super) fn name_role(&self) -> Cow<'static, str> {
        let Some(prev) = self.prev() else {
            return "a name".into();
        };
        let p = prev.text(self.text);
        // Depth in `(` of the tokens before: a transition's `(State, EVENT)`, an event's fields.
        let depth = self.before().fold(0i32, |d, t| match t.text(self.text) {
            "(" if t.kind == Kind::Punct => d + 1,
            ")" if t.kind == Kind::Punct => d - 1,
            _ => d,
        });
        let after_colon = self
            .before()
            .rev()
            .take_while(|t| !(t.is(self.text, "(") || (t.is(self.text, ",") && depth <= 1)))
            .any(|t| t.is(self.text, ":"));
        let kind = self.profile();
        let role = match (self.form, p) {
            (Form::Transition, "(") => "a state name",
            (Form::Transition, ",") if depth >= 1 => "an event name",
            (Form::Transition, ",") => "an action name",
            (Form::Transition, "->") => "the target state's name",
            (Form::Transition, "if" | "unless") => "a guard name",
            (Form::Transition, "do") => "an action name",
            (Form::Transition, "persist") => {
                let modes = either(Persistence::ALL.iter().map(|p| p.name()));
                return format!("a persistence mode: {modes}").into();
            }
            (Form::Event, "by") if kind == Some(Profile::Dialogue) => {
                let turns = either(fsmc_vocab::TURNS.iter().copied());
                return format!("a role name, or {turns}").into();
            }
            (Form::Event, "by") => "a role name",
            (Form::Event | Form::Key, _) if after_colon => "a type",
            (Form::Event, "(") => "a field name",
            (Form::Event, ",") if depth >= 1 => "a field name",
            (Form::Event, "event" | ",") => "an event name",
            (Form::Key, "key") => "a key name",
            (Form::State, "state") => "a state name",
            (Form::State, ":") => match kind {
                Some(Profile::Abci) => {
                    return format!("a round kind such as `{}`", RoundKind::NAMES[0]).into();
                }
                Some(p @ Profile::Genie) => {
                    return format!("a state kind: {}", either(p.state_kinds().iter().copied()))
                        .into();
                }
                _ => "a state kind",
            },
            (Form::Direct, "->" | ",") => "a state name",
            (Form::Mapping, "->") => "a start state (`State` or `Machine::State`)",
            (Form::Mapping, "::") => "a state name",
            (Form::Chain, "chain" | ",") => "a machine name",
            (Form::MachineHead, "machine") => "a machine name",
            (Form::MachineHead, ":") => {
                return format!(
                    "a profile: {}",
                    either(Profile::written().map(Profile::name))
                )
                .into();
            }
            (Form::AppHead, "app") => "an app name",
            (Form::Import, "as") => "a name for the imported machine",
            (Form::Attr, "[") => "a lint level: `allow`, `warn` or `deny`",
            (Form::Property, "=") if kind == Some(Profile::Abci) => "an event name",
            (_, "<" | "::" | "[") => "a type",
            _ => "a name",
        };
        role.into()
    }

    /// The profile of the machine the statement is in, as far as it is known.
    fn profile(&self) -> Option<Profile> {
        match self.f.ctx {
            Ctx::Members(p) | Ctx::StateOpen(p) | Ctx::Properties(p) => p,
            _ => Some(Profile::Plain),
        }
    }

    /// How the statement is written, for the help line.
    pub(super) fn form_help(&self) -> Option<&'static str> {
        Some(match self.form {
            Form::Transition if self.profile() == Some(Profile::Dialogue) => {
                "a transition is written `(State, EVENT) -> Target;`, optionally with `if guard`, `unless guard`, `do action, …` (`sender do` or `receiver do` to run them on one party's copy) or `persist mode` before the `;`"
            }
            Form::Transition => {
                "a transition is written `(State, EVENT) -> Target;`, optionally with `if guard`, `unless guard`, `do action, …` or `persist mode` before the `;`"
            }
            Form::Event => {
                "an event is declared `event NAME;`, `event A, B;`, `event NAME timeout 30s;` or `event NAME(field: Type) by role;`"
            }
            Form::Key => "a key is declared `key name: Type;` or `cross_period key name: Type;`",
            Form::State => {
                "a state is declared `state Name;` or `state Name: kind { property; … }`, after any of `start`, `default`, `final`"
            }
            Form::Direct => "a direct transition is written `State -> Next, Other;`",
            Form::Property => {
                "a property is written `name;`, `name = EVENT;`, `name \"text\";`, `name 30s;` or `name a, b;`"
            }
            Form::Chain => "a chain is written `chain First, Second, Third;`",
            Form::Mapping => {
                "a mapping is written `FinalState -> StartState;`; either side may be `Machine::State`"
            }
            Form::Import => {
                "an import is written `import \"path.fsm\";` or `import \"path\" as Name;`"
            }
            Form::Attr => {
                "a lint attribute is written `#[allow(lint, …)]` (or `warn`, `deny`); `#![…]` applies to the whole file"
            }
            Form::MachineHead => "a machine starts `machine Name {` or `machine Name: profile {`",
            Form::AppHead => "an app starts `app Name {`",
            Form::Unknown => return None,
        })
    }
}

/// The order punctuation is listed in.
const PUNCT_ORDER: &[&str] = &[
    ";", ",", ":", "::", "=", "->", "(", ")", "[", "]", "<", ">", "{", "}", "#", "!",
];

/// How a rule that is one punctuation mark or one keyword is written.
pub(in crate::parse) fn spelling(r: Rule) -> Option<&'static str> {
    punct_of(r).or_else(|| keyword_of(r))
}

fn punct_of(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::semi => ";",
        Rule::comma => ",",
        Rule::colon => ":",
        Rule::path_sep => "::",
        Rule::equals | Rule::prop_eq => "=",
        Rule::arrow => "->",
        Rule::lparen | Rule::fields => "(",
        Rule::rparen => ")",
        Rule::lbracket => "[",
        Rule::rbracket => "]",
        Rule::langle => "<",
        Rule::rangle => ">",
        Rule::lbrace | Rule::state_body => "{",
        Rule::rbrace => "}",
        Rule::hash => "#",
        Rule::bang => "!",
        _ => return None,
    })
}

fn keyword_of(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::kw_import | Rule::import => "import",
        Rule::kw_as => "as",
        Rule::kw_machine | Rule::machine => "machine",
        Rule::kw_app | Rule::app => "app",
        Rule::kw_event | Rule::event_decl => "event",
        Rule::kw_key | Rule::key_decl => "key",
        Rule::kw_state | Rule::state_decl => "state",
        Rule::kw_timeout => "timeout",
        Rule::kw_by => "by",
        Rule::kw_chain | Rule::chain => "chain",
        Rule::kw_if | Rule::guard_if => "if",
        Rule::kw_unless | Rule::guard_unless => "unless",
        Rule::kw_do | Rule::actions => "do",
        Rule::kw_persist | Rule::persist => "persist",
        Rule::kw_in | Rule::in_states => "in",
        Rule::kw_not => "not",
        Rule::kw_and => "and",
        Rule::kw_or => "or",
        Rule::kw_after | Rule::after => "after",
        Rule::kw_outcome | Rule::outcome => "outcome",
        Rule::kw_period | Rule::period => "period",
        Rule::kw_is => "is",
        Rule::kw_at => "at",
        _ => return None,
    })
}
