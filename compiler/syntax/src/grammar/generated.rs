// @generated from `fsm.pest` by the test `generated_parser_is_fresh` (compiler/syntax/src/grammar/tests.rs).
// Do not edit: change the grammar and run `cargo test -p fsmc-syntax generated_parser`.

#[allow(dead_code, non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)]
pub enum Rule {
    ///End-of-input
    EOI,
    r#WHITESPACE,
    r#comment_tail,
    r#block_comment,
    r#block_tail,
    r#ident_char,
    r#ident,
    r#string,
    r#duration,
    r#integer,
    r#doc,
    r#docs,
    r#kw_import,
    r#kw_as,
    r#kw_machine,
    r#kw_app,
    r#kw_event,
    r#kw_key,
    r#kw_state,
    r#kw_timeout,
    r#kw_by,
    r#kw_chain,
    r#kw_if,
    r#kw_unless,
    r#kw_do,
    r#kw_side,
    r#kw_persist,
    r#kw_refines,
    r#kw_claim,
    r#kw_in,
    r#kw_key_is,
    r#kw_not,
    r#kw_and,
    r#kw_or,
    r#kw_after,
    r#kw_outcome,
    r#kw_period,
    r#kw_is,
    r#kw_at,
    r#kw_bound,
    r#arrow,
    r#semi,
    r#comma,
    r#colon,
    r#path_sep,
    r#equals,
    r#lbrace,
    r#rbrace,
    r#lparen,
    r#rparen,
    r#lbracket,
    r#rbracket,
    r#langle,
    r#rangle,
    r#hash,
    r#bang,
    r#file,
    r#inner_attr,
    r#outer_attr,
    r#lint_attr,
    r#lint_name,
    r#item,
    r#import,
    r#machine,
    r#machine_head,
    r#refines,
    r#member,
    r#event_decl,
    r#event_item,
    r#fields,
    r#field,
    r#key_decl,
    r#key_mod,
    r#rust_type,
    r#type_path,
    r#type_tuple,
    r#type_array,
    r#state_decl,
    r#state_head,
    r#state_mod,
    r#state_body,
    r#property,
    r#prop_eq,
    r#prop_list,
    r#group,
    r#transition,
    r#trans_opt,
    r#guard_if,
    r#guard_unless,
    r#actions,
    r#persist,
    r#direct_transition,
    r#claim,
    r#formula,
    r#conjunct,
    r#negation,
    r#in_states,
    r#key_test,
    r#after,
    r#outcome,
    r#period,
    r#app,
    r#app_head,
    r#app_member,
    r#chain,
    r#mapping,
    r#qualified,
    r#only_inner_attr,
    r#only_import,
    r#only_machine_open,
    r#only_members,
    r#only_state_open,
    r#only_properties,
    r#only_app_open,
    r#only_app_members,
    r#upto_body,
    r#between_bodies,
    r#after_body,
    r#one_member,
    r#fast_transition,
    r#fast_state,
}
impl Rule {
    pub fn all_rules() -> &'static [Rule] {
        &[
            Rule::r#WHITESPACE,
            Rule::r#comment_tail,
            Rule::r#block_comment,
            Rule::r#block_tail,
            Rule::r#ident_char,
            Rule::r#ident,
            Rule::r#string,
            Rule::r#duration,
            Rule::r#integer,
            Rule::r#doc,
            Rule::r#docs,
            Rule::r#kw_import,
            Rule::r#kw_as,
            Rule::r#kw_machine,
            Rule::r#kw_app,
            Rule::r#kw_event,
            Rule::r#kw_key,
            Rule::r#kw_state,
            Rule::r#kw_timeout,
            Rule::r#kw_by,
            Rule::r#kw_chain,
            Rule::r#kw_if,
            Rule::r#kw_unless,
            Rule::r#kw_do,
            Rule::r#kw_side,
            Rule::r#kw_persist,
            Rule::r#kw_refines,
            Rule::r#kw_claim,
            Rule::r#kw_in,
            Rule::r#kw_key_is,
            Rule::r#kw_not,
            Rule::r#kw_and,
            Rule::r#kw_or,
            Rule::r#kw_after,
            Rule::r#kw_outcome,
            Rule::r#kw_period,
            Rule::r#kw_is,
            Rule::r#kw_at,
            Rule::r#kw_bound,
            Rule::r#arrow,
            Rule::r#semi,
            Rule::r#comma,
            Rule::r#colon,
            Rule::r#path_sep,
            Rule::r#equals,
            Rule::r#lbrace,
            Rule::r#rbrace,
            Rule::r#lparen,
            Rule::r#rparen,
            Rule::r#lbracket,
            Rule::r#rbracket,
            Rule::r#langle,
            Rule::r#rangle,
            Rule::r#hash,
            Rule::r#bang,
            Rule::r#file,
            Rule::r#inner_attr,
            Rule::r#outer_attr,
            Rule::r#lint_attr,
            Rule::r#lint_name,
            Rule::r#item,
            Rule::r#import,
            Rule::r#machine,
            Rule::r#machine_head,
            Rule::r#refines,
            Rule::r#member,
            Rule::r#event_decl,
            Rule::r#event_item,
            Rule::r#fields,
            Rule::r#field,
            Rule::r#key_decl,
            Rule::r#key_mod,
            Rule::r#rust_type,
            Rule::r#type_path,
            Rule::r#type_tuple,
            Rule::r#type_array,
            Rule::r#state_decl,
            Rule::r#state_head,
            Rule::r#state_mod,
            Rule::r#state_body,
            Rule::r#property,
            Rule::r#prop_eq,
            Rule::r#prop_list,
            Rule::r#group,
            Rule::r#transition,
            Rule::r#trans_opt,
            Rule::r#guard_if,
            Rule::r#guard_unless,
            Rule::r#actions,
            Rule::r#persist,
            Rule::r#direct_transition,
            Rule::r#claim,
            Rule::r#formula,
            Rule::r#conjunct,
            Rule::r#negation,
            Rule::r#in_states,
            Rule::r#key_test,
            Rule::r#after,
            Rule::r#outcome,
            Rule::r#period,
            Rule::r#app,
            Rule::r#app_head,
            Rule::r#app_member,
            Rule::r#chain,
            Rule::r#mapping,
            Rule::r#qualified,
            Rule::r#only_inner_attr,
            Rule::r#only_import,
            Rule::r#only_machine_open,
            Rule::r#only_members,
            Rule::r#only_state_open,
            Rule::r#only_properties,
            Rule::r#only_app_open,
            Rule::r#only_app_members,
            Rule::r#upto_body,
            Rule::r#between_bodies,
            Rule::r#after_body,
            Rule::r#one_member,
            Rule::r#fast_transition,
            Rule::r#fast_state,
        ]
    }
}
#[allow(clippy::all)]
impl ::pest::Parser<Rule> for FsmParser {
    fn parse<'i>(
        rule: Rule,
        input: &'i str,
    ) -> ::std::result::Result<
        ::pest::iterators::Pairs<'i, Rule>,
        ::pest::error::Error<Rule>,
    > {
        mod rules {
            #![allow(clippy::upper_case_acronyms)]
            pub mod hidden {
                use super::super::Rule;
                #[inline]
                #[allow(dead_code, non_snake_case, unused_variables)]
                pub fn skip(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    if state.atomicity() == ::pest::Atomicity::NonAtomic {
                        state.repeat(|state| super::visible::WHITESPACE(state))
                    } else {
                        Ok(state)
                    }
                }
            }
            pub mod visible {
                use super::super::Rule;
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#WHITESPACE(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .atomic(
                            ::pest::Atomicity::Atomic,
                            |state| {
                                state
                                    .match_range(' '..' ')
                                    .or_else(|state| { state.match_range('\t'..'\n') })
                                    .or_else(|state| {
                                        state
                                            .sequence(|state| {
                                                state
                                                    .match_string("/")
                                                    .and_then(|state| { self::r#comment_tail(state) })
                                            })
                                    })
                                    .or_else(|state| { state.match_range('\r'..'\r') })
                                    .or_else(|state| {
                                        state.match_range('\u{feff}'..'\u{feff}')
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#comment_tail(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    let state = state.check_stack_limit()?;
                    state
                        .sequence(|state| {
                            state
                                .match_string("*")
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#block_tail(state) })
                        })
                        .or_else(|state| {
                            state
                                .sequence(|state| {
                                    state
                                        .match_string("/")
                                        .and_then(|state| { super::hidden::skip(state) })
                                        .and_then(|state| {
                                            state
                                                .lookahead(false, |state| { state.match_string("/") })
                                                .or_else(|state| { state.match_string("//") })
                                        })
                                        .and_then(|state| { super::hidden::skip(state) })
                                        .and_then(|state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .optional(|state| {
                                                            state
                                                                .sequence(|state| {
                                                                    state
                                                                        .lookahead(false, |state| { state.match_string("\n") })
                                                                        .and_then(|state| { super::hidden::skip(state) })
                                                                        .and_then(|state| { self::r#ANY(state) })
                                                                })
                                                                .and_then(|state| {
                                                                    state
                                                                        .repeat(|state| {
                                                                            state
                                                                                .sequence(|state| {
                                                                                    super::hidden::skip(state)
                                                                                        .and_then(|state| {
                                                                                            state
                                                                                                .sequence(|state| {
                                                                                                    state
                                                                                                        .lookahead(false, |state| { state.match_string("\n") })
                                                                                                        .and_then(|state| { super::hidden::skip(state) })
                                                                                                        .and_then(|state| { self::r#ANY(state) })
                                                                                                })
                                                                                        })
                                                                                })
                                                                        })
                                                                })
                                                        })
                                                })
                                        })
                                })
                        })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#block_comment(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .sequence(|state| {
                            state
                                .match_string("/*")
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#block_tail(state) })
                        })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#block_tail(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .sequence(|state| {
                            state
                                .sequence(|state| {
                                    state
                                        .optional(|state| {
                                            self::r#block_comment(state)
                                                .or_else(|state| {
                                                    state
                                                        .sequence(|state| {
                                                            state
                                                                .lookahead(
                                                                    false,
                                                                    |state| {
                                                                        state
                                                                            .match_string("*/")
                                                                            .or_else(|state| { state.match_string("/*") })
                                                                    },
                                                                )
                                                                .and_then(|state| { super::hidden::skip(state) })
                                                                .and_then(|state| { self::r#ANY(state) })
                                                        })
                                                })
                                                .and_then(|state| {
                                                    state
                                                        .repeat(|state| {
                                                            state
                                                                .sequence(|state| {
                                                                    super::hidden::skip(state)
                                                                        .and_then(|state| {
                                                                            self::r#block_comment(state)
                                                                                .or_else(|state| {
                                                                                    state
                                                                                        .sequence(|state| {
                                                                                            state
                                                                                                .lookahead(
                                                                                                    false,
                                                                                                    |state| {
                                                                                                        state
                                                                                                            .match_string("*/")
                                                                                                            .or_else(|state| { state.match_string("/*") })
                                                                                                    },
                                                                                                )
                                                                                                .and_then(|state| { super::hidden::skip(state) })
                                                                                                .and_then(|state| { self::r#ANY(state) })
                                                                                        })
                                                                                })
                                                                        })
                                                                })
                                                        })
                                                })
                                        })
                                })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { state.match_string("*/") })
                        })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#ident_char(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    let state = state.check_stack_limit()?;
                    self::r#ASCII_ALPHANUMERIC(state)
                        .or_else(|state| { state.match_string("_") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#ident(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#ident,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    self::r#ASCII_ALPHA(state)
                                                        .or_else(|state| { state.match_string("_") })
                                                        .and_then(|state| {
                                                            state
                                                                .repeat(|state| {
                                                                    self::r#ASCII_ALPHANUMERIC(state)
                                                                        .or_else(|state| { state.match_string("_") })
                                                                })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#string(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#string,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("\"")
                                                        .and_then(|state| {
                                                            state
                                                                .repeat(|state| {
                                                                    state
                                                                        .sequence(|state| {
                                                                            state
                                                                                .match_string("\\")
                                                                                .and_then(|state| { self::r#ANY(state) })
                                                                        })
                                                                        .or_else(|state| {
                                                                            state
                                                                                .sequence(|state| {
                                                                                    state
                                                                                        .lookahead(
                                                                                            false,
                                                                                            |state| {
                                                                                                state
                                                                                                    .match_string("\"")
                                                                                                    .or_else(|state| { state.match_string("\\") })
                                                                                                    .or_else(|state| { state.match_string("\n") })
                                                                                            },
                                                                                        )
                                                                                        .and_then(|state| { self::r#ANY(state) })
                                                                                })
                                                                        })
                                                                })
                                                        })
                                                        .and_then(|state| { state.match_string("\"") })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#duration(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#duration,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .sequence(|state| {
                                                            self::r#ASCII_DIGIT(state)
                                                                .and_then(|state| {
                                                                    state.repeat(|state| { self::r#ASCII_DIGIT(state) })
                                                                })
                                                        })
                                                        .and_then(|state| {
                                                            state
                                                                .optional(|state| {
                                                                    state
                                                                        .sequence(|state| {
                                                                            state
                                                                                .match_string(".")
                                                                                .and_then(|state| { self::r#ASCII_DIGIT(state) })
                                                                                .and_then(|state| {
                                                                                    state.repeat(|state| { self::r#ASCII_DIGIT(state) })
                                                                                })
                                                                        })
                                                                })
                                                        })
                                                        .and_then(|state| {
                                                            state
                                                                .match_string("ms")
                                                                .or_else(|state| { state.match_string("s") })
                                                                .or_else(|state| { state.match_string("m") })
                                                                .or_else(|state| { state.match_string("h") })
                                                        })
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#integer(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#integer,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .sequence(|state| {
                                                            self::r#ASCII_DIGIT(state)
                                                                .and_then(|state| {
                                                                    state.repeat(|state| { self::r#ASCII_DIGIT(state) })
                                                                })
                                                        })
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#doc(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#doc,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("///")
                                                        .and_then(|state| {
                                                            state.lookahead(false, |state| { state.match_string("/") })
                                                        })
                                                        .and_then(|state| {
                                                            let strings = ["\n"];
                                                            state.skip_until(&strings)
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#docs(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .sequence(|state| {
                            state
                                .optional(|state| {
                                    self::r#doc(state)
                                        .and_then(|state| {
                                            state
                                                .repeat(|state| {
                                                    state
                                                        .sequence(|state| {
                                                            super::hidden::skip(state)
                                                                .and_then(|state| { self::r#doc(state) })
                                                        })
                                                })
                                        })
                                })
                        })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_import(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_import,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("import")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_as(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_as,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("as")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_machine(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_machine,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("machine")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_app(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_app,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("app")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_event(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_event,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("event")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_key(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_key,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("key")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_state(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_state,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("state")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_timeout(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_timeout,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("timeout")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_by(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_by,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("by")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_chain(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_chain,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("chain")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_if(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_if,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("if")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_unless(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_unless,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("unless")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_do(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_do,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("do")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_side(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_side,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("sender")
                                                        .or_else(|state| { state.match_string("receiver") })
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_persist(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_persist,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("persist")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_refines(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_refines,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("refines")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_claim(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_claim,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("invariant")
                                                        .or_else(|state| { state.match_string("eventually") })
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_in(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_in,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("in")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_key_is(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_key_is,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("has")
                                                        .or_else(|state| { state.match_string("missing") })
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_not(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_not,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("not")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_and(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_and,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("and")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_or(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_or,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("or")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_after(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_after,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("after")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_outcome(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_outcome,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("outcome")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_period(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_period,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("period")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_is(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_is,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("is")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_at(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_at,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("at")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#kw_bound(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#kw_bound,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("least")
                                                        .or_else(|state| { state.match_string("most") })
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#arrow(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#arrow, |state| { state.match_string("->") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#semi(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#semi, |state| { state.match_string(";") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#comma(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#comma, |state| { state.match_string(",") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#colon(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#colon, |state| { state.match_string(":") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#path_sep(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#path_sep, |state| { state.match_string("::") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#equals(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#equals, |state| { state.match_string("=") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#lbrace(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#lbrace, |state| { state.match_string("{") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#rbrace(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#rbrace, |state| { state.match_string("}") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#lparen(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#lparen, |state| { state.match_string("(") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#rparen(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#rparen, |state| { state.match_string(")") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#lbracket(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#lbracket, |state| { state.match_string("[") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#rbracket(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#rbracket, |state| { state.match_string("]") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#langle(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#langle, |state| { state.match_string("<") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#rangle(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#rangle, |state| { state.match_string(">") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#hash(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#hash, |state| { state.match_string("#") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#bang(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::r#bang, |state| { state.match_string("!") })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#file(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#file,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#inner_attr(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#inner_attr(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#item(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#item(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#inner_attr(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#inner_attr,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#hash(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#bang(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbracket(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lint_attr(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbracket(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#outer_attr(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#outer_attr,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#hash(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbracket(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lint_attr(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbracket(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#lint_attr(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#lint_attr,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#ident(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lparen(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lint_name(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#lint_name(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#lint_name(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state.optional(|state| { self::r#comma(state) })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rparen(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#lint_name(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#lint_name,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    self::r#ident_char(state)
                                                        .and_then(|state| {
                                                            state.repeat(|state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#item(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    let state = state.check_stack_limit()?;
                    self::r#import(state)
                        .or_else(|state| { self::r#machine(state) })
                        .or_else(|state| { self::r#app(state) })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#import(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#import,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_import(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#string(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#kw_as(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#ident(state) })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#machine(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#machine,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#machine_head(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#member(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#member(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbrace(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#machine_head(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .sequence(|state| {
                            self::r#docs(state)
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| {
                                    state
                                        .sequence(|state| {
                                            state
                                                .optional(|state| {
                                                    self::r#outer_attr(state)
                                                        .and_then(|state| {
                                                            state
                                                                .repeat(|state| {
                                                                    state
                                                                        .sequence(|state| {
                                                                            super::hidden::skip(state)
                                                                                .and_then(|state| { self::r#outer_attr(state) })
                                                                        })
                                                                })
                                                        })
                                                })
                                        })
                                })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#kw_machine(state) })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#ident(state) })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| {
                                    state
                                        .optional(|state| {
                                            state
                                                .sequence(|state| {
                                                    self::r#colon(state)
                                                        .and_then(|state| { super::hidden::skip(state) })
                                                        .and_then(|state| { self::r#ident(state) })
                                                })
                                        })
                                })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| {
                                    state.optional(|state| { self::r#refines(state) })
                                })
                        })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#refines(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#refines,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_refines(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#member(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    let state = state.check_stack_limit()?;
                    self::r#transition(state)
                        .or_else(|state| { self::r#event_decl(state) })
                        .or_else(|state| { self::r#key_decl(state) })
                        .or_else(|state| { self::r#state_decl(state) })
                        .or_else(|state| { self::r#direct_transition(state) })
                        .or_else(|state| { self::r#claim(state) })
                        .or_else(|state| { self::r#property(state) })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#event_decl(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#event_decl,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#docs(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#kw_event(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#event_item(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#event_item(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#event_item(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state.optional(|state| { self::r#comma(state) })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#event_item(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#event_item,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#ident(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state.optional(|state| { self::r#fields(state) })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#kw_timeout(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#duration(state) })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#kw_by(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#ident(state) })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#fields(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#fields,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#lparen(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#field(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .sequence(|state| {
                                                                                state
                                                                                    .optional(|state| {
                                                                                        state
                                                                                            .sequence(|state| {
                                                                                                self::r#comma(state)
                                                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                                                    .and_then(|state| { self::r#field(state) })
                                                                                            })
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .repeat(|state| {
                                                                                                        state
                                                                                                            .sequence(|state| {
                                                                                                                super::hidden::skip(state)
                                                                                                                    .and_then(|state| {
                                                                                                                        state
                                                                                                                            .sequence(|state| {
                                                                                                                                self::r#comma(state)
                                                                                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                                                                                    .and_then(|state| { self::r#field(state) })
                                                                                                                            })
                                                                                                                    })
                                                                                                            })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| {
                                                                        state.optional(|state| { self::r#comma(state) })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rparen(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#field(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#field,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#ident(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#colon(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rust_type(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#key_decl(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#key_decl,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#docs(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#key_mod(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#key_mod(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#kw_key(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#colon(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rust_type(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#key_mod(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#key_mod,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("cross_period")
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#rust_type(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#rust_type,
                            |state| {
                                self::r#type_path(state)
                                    .or_else(|state| { self::r#type_tuple(state) })
                                    .or_else(|state| { self::r#type_array(state) })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#type_path(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#type_path,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#ident(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#path_sep(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#path_sep(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#langle(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#rust_type(state) })
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .sequence(|state| {
                                                                                state
                                                                                    .optional(|state| {
                                                                                        state
                                                                                            .sequence(|state| {
                                                                                                self::r#comma(state)
                                                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                                                    .and_then(|state| { self::r#rust_type(state) })
                                                                                            })
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .repeat(|state| {
                                                                                                        state
                                                                                                            .sequence(|state| {
                                                                                                                super::hidden::skip(state)
                                                                                                                    .and_then(|state| {
                                                                                                                        state
                                                                                                                            .sequence(|state| {
                                                                                                                                self::r#comma(state)
                                                                                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                                                                                    .and_then(|state| { self::r#rust_type(state) })
                                                                                                                            })
                                                                                                                    })
                                                                                                            })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| {
                                                                        state.optional(|state| { self::r#comma(state) })
                                                                    })
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#rangle(state) })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#type_tuple(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#type_tuple,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#lparen(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#rust_type(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .sequence(|state| {
                                                                                state
                                                                                    .optional(|state| {
                                                                                        state
                                                                                            .sequence(|state| {
                                                                                                self::r#comma(state)
                                                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                                                    .and_then(|state| { self::r#rust_type(state) })
                                                                                            })
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .repeat(|state| {
                                                                                                        state
                                                                                                            .sequence(|state| {
                                                                                                                super::hidden::skip(state)
                                                                                                                    .and_then(|state| {
                                                                                                                        state
                                                                                                                            .sequence(|state| {
                                                                                                                                self::r#comma(state)
                                                                                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                                                                                    .and_then(|state| { self::r#rust_type(state) })
                                                                                                                            })
                                                                                                                    })
                                                                                                            })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| {
                                                                        state.optional(|state| { self::r#comma(state) })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rparen(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#type_array(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#type_array,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#lbracket(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rust_type(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#semi(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#integer(state) })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbracket(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#state_decl(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#state_decl,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#state_head(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                self::r#state_body(state)
                                                    .or_else(|state| { self::r#semi(state) })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#state_head(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .sequence(|state| {
                            self::r#docs(state)
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| {
                                    state
                                        .sequence(|state| {
                                            state
                                                .optional(|state| {
                                                    self::r#state_mod(state)
                                                        .and_then(|state| {
                                                            state
                                                                .repeat(|state| {
                                                                    state
                                                                        .sequence(|state| {
                                                                            super::hidden::skip(state)
                                                                                .and_then(|state| { self::r#state_mod(state) })
                                                                        })
                                                                })
                                                        })
                                                })
                                        })
                                })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#kw_state(state) })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#ident(state) })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| {
                                    state
                                        .optional(|state| {
                                            state
                                                .sequence(|state| {
                                                    self::r#colon(state)
                                                        .and_then(|state| { super::hidden::skip(state) })
                                                        .and_then(|state| { self::r#ident(state) })
                                                })
                                        })
                                })
                        })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#state_mod(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#state_mod,
                            |state| {
                                state
                                    .atomic(
                                        ::pest::Atomicity::Atomic,
                                        |state| {
                                            state
                                                .sequence(|state| {
                                                    state
                                                        .match_string("start")
                                                        .or_else(|state| { state.match_string("default") })
                                                        .or_else(|state| { state.match_string("final") })
                                                        .and_then(|state| {
                                                            state
                                                                .lookahead(false, |state| { self::r#ident_char(state) })
                                                        })
                                                })
                                        },
                                    )
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#state_body(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#state_body,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#lbrace(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#property(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#property(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbrace(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#property(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#property,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#docs(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .lookahead(
                                                        false,
                                                        |state| {
                                                            self::r#kw_state(state)
                                                                .or_else(|state| { self::r#kw_event(state) })
                                                                .or_else(|state| { self::r#kw_key(state) })
                                                        },
                                                    )
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        self::r#prop_eq(state)
                                                            .or_else(|state| { self::r#string(state) })
                                                            .or_else(|state| { self::r#duration(state) })
                                                            .or_else(|state| { self::r#integer(state) })
                                                            .or_else(|state| { self::r#prop_list(state) })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#prop_eq(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#prop_eq,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#equals(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#prop_list(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#prop_list,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#ident(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state.optional(|state| { self::r#group(state) })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| {
                                                                                state.optional(|state| { self::r#group(state) })
                                                                            })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| {
                                                                                                                state.optional(|state| { self::r#group(state) })
                                                                                                            })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state.optional(|state| { self::r#comma(state) })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#group(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#group,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#lbracket(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbracket(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#transition(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#transition,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#docs(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { state.match_string("(") })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#comma(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rparen(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#arrow(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#trans_opt(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#trans_opt(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#trans_opt(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    let state = state.check_stack_limit()?;
                    self::r#guard_if(state)
                        .or_else(|state| { self::r#guard_unless(state) })
                        .or_else(|state| { self::r#actions(state) })
                        .or_else(|state| { self::r#persist(state) })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#guard_if(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#guard_if,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_if(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#guard_unless(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#guard_unless,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_unless(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#actions(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#actions,
                            |state| {
                                state
                                    .sequence(|state| {
                                        state
                                            .optional(|state| { self::r#kw_side(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#kw_do(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#persist(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#persist,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_persist(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#direct_transition(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#direct_transition,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#docs(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#arrow(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#claim(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#claim,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#docs(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#kw_claim(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#string(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#colon(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#formula(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#formula(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#formula,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#conjunct(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#kw_or(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#conjunct(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#kw_or(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#conjunct(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#conjunct(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#conjunct,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#negation(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#kw_and(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#negation(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#kw_and(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#negation(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#negation(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#negation,
                            |state| {
                                state
                                    .sequence(|state| {
                                        state
                                            .sequence(|state| {
                                                state
                                                    .optional(|state| {
                                                        self::r#kw_not(state)
                                                            .and_then(|state| {
                                                                state
                                                                    .repeat(|state| {
                                                                        state
                                                                            .sequence(|state| {
                                                                                super::hidden::skip(state)
                                                                                    .and_then(|state| { self::r#kw_not(state) })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                self::r#in_states(state)
                                                    .or_else(|state| { self::r#key_test(state) })
                                                    .or_else(|state| { self::r#after(state) })
                                                    .or_else(|state| { self::r#outcome(state) })
                                                    .or_else(|state| { self::r#period(state) })
                                                    .or_else(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#lparen(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#formula(state) })
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#rparen(state) })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#in_states(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#in_states,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_in(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#key_test(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#key_test,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_key_is(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#after(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#after,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_after(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#outcome(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#outcome,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_outcome(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#period(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#period,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_period(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                self::r#kw_is(state)
                                                    .or_else(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#kw_at(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#kw_bound(state) })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#integer(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#app(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#app,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#app_head(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#app_member(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#app_member(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbrace(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#app_head(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .sequence(|state| {
                            self::r#docs(state)
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| {
                                    state
                                        .sequence(|state| {
                                            state
                                                .optional(|state| {
                                                    self::r#outer_attr(state)
                                                        .and_then(|state| {
                                                            state
                                                                .repeat(|state| {
                                                                    state
                                                                        .sequence(|state| {
                                                                            super::hidden::skip(state)
                                                                                .and_then(|state| { self::r#outer_attr(state) })
                                                                        })
                                                                })
                                                        })
                                                })
                                        })
                                })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#kw_app(state) })
                                .and_then(|state| { super::hidden::skip(state) })
                                .and_then(|state| { self::r#ident(state) })
                        })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#app_member(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    let state = state.check_stack_limit()?;
                    self::r#chain(state)
                        .or_else(|state| { self::r#mapping(state) })
                        .or_else(|state| { self::r#claim(state) })
                        .or_else(|state| { self::r#property(state) })
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#chain(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#chain,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#kw_chain(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#comma(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| { self::r#ident(state) })
                                                                    })
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| {
                                                                                                state
                                                                                                    .sequence(|state| {
                                                                                                        self::r#comma(state)
                                                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                                                            .and_then(|state| { self::r#ident(state) })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state.optional(|state| { self::r#comma(state) })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#mapping(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#mapping,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#docs(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#qualified(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#arrow(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#qualified(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#semi(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#qualified(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#qualified,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#ident(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                self::r#path_sep(state)
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#ident(state) })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_inner_attr(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_inner_attr,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#inner_attr(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_import(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_import,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#import(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_machine_open(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_machine_open,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#machine_head(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_members(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_members,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#member(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#member(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_state_open(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_state_open,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#state_head(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_properties(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_properties,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#property(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#property(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_app_open(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_app_open,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#app_head(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#only_app_members(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#only_app_members,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#app_member(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#app_member(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#upto_body(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#upto_body,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#inner_attr(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#inner_attr(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#item(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#item(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#machine_head(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#between_bodies(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#between_bodies,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#item(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#item(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#machine_head(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#lbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#after_body(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#after_body,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#rbrace(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .sequence(|state| {
                                                        state
                                                            .optional(|state| {
                                                                self::r#item(state)
                                                                    .and_then(|state| {
                                                                        state
                                                                            .repeat(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        super::hidden::skip(state)
                                                                                            .and_then(|state| { self::r#item(state) })
                                                                                    })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#EOI(state) })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#one_member(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#one_member,
                            |state| {
                                state
                                    .sequence(|state| {
                                        self::r#SOI(state)
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                self::r#fast_transition(state)
                                                    .or_else(|state| { self::r#fast_state(state) })
                                                    .or_else(|state| { self::r#member(state) })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#fast_transition(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#fast_transition,
                            |state| {
                                state
                                    .sequence(|state| {
                                        state
                                            .match_string("(")
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { state.match_string(",") })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { state.match_string(")") })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { state.match_string("->") })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .match_string(";")
                                                    .or_else(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                state
                                                                    .sequence(|state| {
                                                                        self::r#trans_opt(state)
                                                                            .and_then(|state| { super::hidden::skip(state) })
                                                                            .and_then(|state| {
                                                                                state
                                                                                    .sequence(|state| {
                                                                                        state
                                                                                            .optional(|state| {
                                                                                                self::r#trans_opt(state)
                                                                                                    .and_then(|state| {
                                                                                                        state
                                                                                                            .repeat(|state| {
                                                                                                                state
                                                                                                                    .sequence(|state| {
                                                                                                                        super::hidden::skip(state)
                                                                                                                            .and_then(|state| { self::r#trans_opt(state) })
                                                                                                                    })
                                                                                                            })
                                                                                                    })
                                                                                            })
                                                                                    })
                                                                            })
                                                                    })
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { state.match_string(";") })
                                                            })
                                                    })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(non_snake_case, unused_variables)]
                pub fn r#fast_state(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .rule(
                            Rule::r#fast_state,
                            |state| {
                                state
                                    .sequence(|state| {
                                        state
                                            .sequence(|state| {
                                                state
                                                    .optional(|state| {
                                                        self::r#state_mod(state)
                                                            .and_then(|state| {
                                                                state
                                                                    .repeat(|state| {
                                                                        state
                                                                            .sequence(|state| {
                                                                                super::hidden::skip(state)
                                                                                    .and_then(|state| { self::r#state_mod(state) })
                                                                            })
                                                                    })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#kw_state(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| { self::r#ident(state) })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .optional(|state| {
                                                        state
                                                            .sequence(|state| {
                                                                state
                                                                    .match_string(":")
                                                                    .and_then(|state| { super::hidden::skip(state) })
                                                                    .and_then(|state| { self::r#ident(state) })
                                                            })
                                                    })
                                            })
                                            .and_then(|state| { super::hidden::skip(state) })
                                            .and_then(|state| {
                                                state
                                                    .match_string(";")
                                                    .or_else(|state| { self::r#state_body(state) })
                                            })
                                    })
                            },
                        )
                }
                #[inline]
                #[allow(dead_code, non_snake_case, unused_variables)]
                pub fn ANY(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.skip(1)
                }
                #[inline]
                #[allow(dead_code, non_snake_case, unused_variables)]
                pub fn EOI(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.rule(Rule::EOI, |state| state.end_of_input())
                }
                #[inline]
                #[allow(dead_code, non_snake_case, unused_variables)]
                pub fn SOI(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.start_of_input()
                }
                #[inline]
                #[allow(dead_code, non_snake_case, unused_variables)]
                pub fn ASCII_DIGIT(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state.match_range('0'..'9')
                }
                #[inline]
                #[allow(dead_code, non_snake_case, unused_variables)]
                pub fn ASCII_ALPHA(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .match_range('a'..'z')
                        .or_else(|state| state.match_range('A'..'Z'))
                }
                #[inline]
                #[allow(dead_code, non_snake_case, unused_variables)]
                pub fn ASCII_ALPHANUMERIC(
                    state: ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                ) -> ::pest::ParseResult<
                    ::std::boxed::Box<::pest::ParserState<'_, Rule>>,
                > {
                    state
                        .match_range('a'..'z')
                        .or_else(|state| state.match_range('A'..'Z'))
                        .or_else(|state| state.match_range('0'..'9'))
                }
            }
            pub use self::visible::*;
        }
        ::pest::state(
            input,
            |state| {
                match rule {
                    Rule::r#WHITESPACE => rules::r#WHITESPACE(state),
                    Rule::r#comment_tail => rules::r#comment_tail(state),
                    Rule::r#block_comment => rules::r#block_comment(state),
                    Rule::r#block_tail => rules::r#block_tail(state),
                    Rule::r#ident_char => rules::r#ident_char(state),
                    Rule::r#ident => rules::r#ident(state),
                    Rule::r#string => rules::r#string(state),
                    Rule::r#duration => rules::r#duration(state),
                    Rule::r#integer => rules::r#integer(state),
                    Rule::r#doc => rules::r#doc(state),
                    Rule::r#docs => rules::r#docs(state),
                    Rule::r#kw_import => rules::r#kw_import(state),
                    Rule::r#kw_as => rules::r#kw_as(state),
                    Rule::r#kw_machine => rules::r#kw_machine(state),
                    Rule::r#kw_app => rules::r#kw_app(state),
                    Rule::r#kw_event => rules::r#kw_event(state),
                    Rule::r#kw_key => rules::r#kw_key(state),
                    Rule::r#kw_state => rules::r#kw_state(state),
                    Rule::r#kw_timeout => rules::r#kw_timeout(state),
                    Rule::r#kw_by => rules::r#kw_by(state),
                    Rule::r#kw_chain => rules::r#kw_chain(state),
                    Rule::r#kw_if => rules::r#kw_if(state),
                    Rule::r#kw_unless => rules::r#kw_unless(state),
                    Rule::r#kw_do => rules::r#kw_do(state),
                    Rule::r#kw_side => rules::r#kw_side(state),
                    Rule::r#kw_persist => rules::r#kw_persist(state),
                    Rule::r#kw_refines => rules::r#kw_refines(state),
                    Rule::r#kw_claim => rules::r#kw_claim(state),
                    Rule::r#kw_in => rules::r#kw_in(state),
                    Rule::r#kw_key_is => rules::r#kw_key_is(state),
                    Rule::r#kw_not => rules::r#kw_not(state),
                    Rule::r#kw_and => rules::r#kw_and(state),
                    Rule::r#kw_or => rules::r#kw_or(state),
                    Rule::r#kw_after => rules::r#kw_after(state),
                    Rule::r#kw_outcome => rules::r#kw_outcome(state),
                    Rule::r#kw_period => rules::r#kw_period(state),
                    Rule::r#kw_is => rules::r#kw_is(state),
                    Rule::r#kw_at => rules::r#kw_at(state),
                    Rule::r#kw_bound => rules::r#kw_bound(state),
                    Rule::r#arrow => rules::r#arrow(state),
                    Rule::r#semi => rules::r#semi(state),
                    Rule::r#comma => rules::r#comma(state),
                    Rule::r#colon => rules::r#colon(state),
                    Rule::r#path_sep => rules::r#path_sep(state),
                    Rule::r#equals => rules::r#equals(state),
                    Rule::r#lbrace => rules::r#lbrace(state),
                    Rule::r#rbrace => rules::r#rbrace(state),
                    Rule::r#lparen => rules::r#lparen(state),
                    Rule::r#rparen => rules::r#rparen(state),
                    Rule::r#lbracket => rules::r#lbracket(state),
                    Rule::r#rbracket => rules::r#rbracket(state),
                    Rule::r#langle => rules::r#langle(state),
                    Rule::r#rangle => rules::r#rangle(state),
                    Rule::r#hash => rules::r#hash(state),
                    Rule::r#bang => rules::r#bang(state),
                    Rule::r#file => rules::r#file(state),
                    Rule::r#inner_attr => rules::r#inner_attr(state),
                    Rule::r#outer_attr => rules::r#outer_attr(state),
                    Rule::r#lint_attr => rules::r#lint_attr(state),
                    Rule::r#lint_name => rules::r#lint_name(state),
                    Rule::r#item => rules::r#item(state),
                    Rule::r#import => rules::r#import(state),
                    Rule::r#machine => rules::r#machine(state),
                    Rule::r#machine_head => rules::r#machine_head(state),
                    Rule::r#refines => rules::r#refines(state),
                    Rule::r#member => rules::r#member(state),
                    Rule::r#event_decl => rules::r#event_decl(state),
                    Rule::r#event_item => rules::r#event_item(state),
                    Rule::r#fields => rules::r#fields(state),
                    Rule::r#field => rules::r#field(state),
                    Rule::r#key_decl => rules::r#key_decl(state),
                    Rule::r#key_mod => rules::r#key_mod(state),
                    Rule::r#rust_type => rules::r#rust_type(state),
                    Rule::r#type_path => rules::r#type_path(state),
                    Rule::r#type_tuple => rules::r#type_tuple(state),
                    Rule::r#type_array => rules::r#type_array(state),
                    Rule::r#state_decl => rules::r#state_decl(state),
                    Rule::r#state_head => rules::r#state_head(state),
                    Rule::r#state_mod => rules::r#state_mod(state),
                    Rule::r#state_body => rules::r#state_body(state),
                    Rule::r#property => rules::r#property(state),
                    Rule::r#prop_eq => rules::r#prop_eq(state),
                    Rule::r#prop_list => rules::r#prop_list(state),
                    Rule::r#group => rules::r#group(state),
                    Rule::r#transition => rules::r#transition(state),
                    Rule::r#trans_opt => rules::r#trans_opt(state),
                    Rule::r#guard_if => rules::r#guard_if(state),
                    Rule::r#guard_unless => rules::r#guard_unless(state),
                    Rule::r#actions => rules::r#actions(state),
                    Rule::r#persist => rules::r#persist(state),
                    Rule::r#direct_transition => rules::r#direct_transition(state),
                    Rule::r#claim => rules::r#claim(state),
                    Rule::r#formula => rules::r#formula(state),
                    Rule::r#conjunct => rules::r#conjunct(state),
                    Rule::r#negation => rules::r#negation(state),
                    Rule::r#in_states => rules::r#in_states(state),
                    Rule::r#key_test => rules::r#key_test(state),
                    Rule::r#after => rules::r#after(state),
                    Rule::r#outcome => rules::r#outcome(state),
                    Rule::r#period => rules::r#period(state),
                    Rule::r#app => rules::r#app(state),
                    Rule::r#app_head => rules::r#app_head(state),
                    Rule::r#app_member => rules::r#app_member(state),
                    Rule::r#chain => rules::r#chain(state),
                    Rule::r#mapping => rules::r#mapping(state),
                    Rule::r#qualified => rules::r#qualified(state),
                    Rule::r#only_inner_attr => rules::r#only_inner_attr(state),
                    Rule::r#only_import => rules::r#only_import(state),
                    Rule::r#only_machine_open => rules::r#only_machine_open(state),
                    Rule::r#only_members => rules::r#only_members(state),
                    Rule::r#only_state_open => rules::r#only_state_open(state),
                    Rule::r#only_properties => rules::r#only_properties(state),
                    Rule::r#only_app_open => rules::r#only_app_open(state),
                    Rule::r#only_app_members => rules::r#only_app_members(state),
                    Rule::r#upto_body => rules::r#upto_body(state),
                    Rule::r#between_bodies => rules::r#between_bodies(state),
                    Rule::r#after_body => rules::r#after_body(state),
                    Rule::r#one_member => rules::r#one_member(state),
                    Rule::r#fast_transition => rules::r#fast_transition(state),
                    Rule::r#fast_state => rules::r#fast_state(state),
                    Rule::EOI => rules::EOI(state),
                }
            },
        )
    }
}
