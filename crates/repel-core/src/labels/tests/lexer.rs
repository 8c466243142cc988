//! Upstream `TestLexer`, `TestLexerSequence` and the NUL byte that ends a selector where Go stops.

use super::*;

fn lex_all(s: &str) -> Vec<(Token, String)> {
    let mut l = Lexer::new(s);
    let mut out = Vec::new();
    loop {
        let (t, lit) = l.lex();
        if t == Token::EndOfString {
            return out;
        }
        out.push((t, lit));
    }
}

/// `TestLexer`: the first token and its literal.
#[test]
fn lexer_returns_the_longest_token() {
    use Token::*;
    let cases = [
        ("", EndOfString),
        (",", Comma),
        ("notin", NotIn),
        ("in", In),
        ("=", Equals),
        ("==", DoubleEquals),
        (">", GreaterThan),
        ("<", LessThan),
        ("!", DoesNotExist),
        ("!=", NotEquals),
        ("(", OpenPar),
        (")", ClosedPar),
        ("~", Identifier),
        ("||", Identifier),
    ];
    for (input, want) in cases {
        let (tok, lit) = Lexer::new(input).lex();
        assert_eq!(tok, want, "token of {input:?}");
        assert_eq!(lit, input, "literal of {input:?}");
    }
}

/// `TestLexerSequence` and `TestParserLookahead`.
#[test]
fn lexer_sequences() {
    use Token::*;
    let cases: &[(&str, &[Token])] = &[
        (
            "key in ( value )",
            &[Identifier, In, OpenPar, Identifier, ClosedPar],
        ),
        (
            "key notin ( value )",
            &[Identifier, NotIn, OpenPar, Identifier, ClosedPar],
        ),
        (
            "key in ( value1, value2 )",
            &[
                Identifier, In, OpenPar, Identifier, Comma, Identifier, ClosedPar,
            ],
        ),
        ("key", &[Identifier]),
        ("!key", &[DoesNotExist, Identifier]),
        ("()", &[OpenPar, ClosedPar]),
        ("", &[]),
        (
            "x in (),y",
            &[Identifier, In, OpenPar, ClosedPar, Comma, Identifier],
        ),
        (
            "== != (), = notin",
            &[
                DoubleEquals,
                NotEquals,
                OpenPar,
                ClosedPar,
                Comma,
                Equals,
                NotIn,
            ],
        ),
        ("key>2", &[Identifier, GreaterThan, Identifier]),
        ("key<1", &[Identifier, LessThan, Identifier]),
        ("a=>b", &[Identifier, Equals, GreaterThan, Identifier]),
        (
            "a!!b",
            &[Identifier, DoesNotExist, DoesNotExist, Identifier],
        ),
    ];
    for (input, want) in cases {
        let got: Vec<Token> = lex_all(input).into_iter().map(|(t, _)| t).collect();
        assert_eq!(&got, want, "tokens of {input:?}");
        let parser = Parser::new(input);
        assert_eq!(
            parser.items.len(),
            want.len() + 1,
            "scanned items of {input:?}"
        );
        assert_eq!(
            parser.items.last().map(|i| i.0),
            Some(EndOfString),
            "{input:?}"
        );
    }
}

/// Go's lexer reads byte 0 as the end of input.
#[test]
fn a_nul_byte_ends_the_selector_where_go_stops() {
    assert_eq!(
        parse("a \0b").unwrap().to_string(),
        "a",
        "a NUL between tokens ends input"
    );
    assert_eq!(
        lex_all("a\0b")
            .into_iter()
            .map(|(_, l)| l)
            .collect::<Vec<_>>(),
        ["a", "b"],
        "a NUL inside an identifier splits it"
    );
}
