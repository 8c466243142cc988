//! Upstream's selector `Lexer` and `Parser` (`labels/selector.go`, v1.35), ported token for token.

use std::collections::BTreeSet;

use super::field::{FieldPath, invalid_str};
use super::{
    BINARY_OPERATORS_LIST, LabelSelectorError, Operator, Requirement, is_label_key, new_requirement,
};

/// Upstream lexer tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Token {
    Error,
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// Upstream `string2token`.
fn string_to_token(s: &str) -> Option<Token> {
    Some(match s {
        ")" => Token::ClosedPar,
        "," => Token::Comma,
        "!" => Token::DoesNotExist,
        "==" => Token::DoubleEquals,
        "=" => Token::Equals,
        ">" => Token::GreaterThan,
        "in" => Token::In,
        "<" => Token::LessThan,
        "!=" => Token::NotEquals,
        "notin" => Token::NotIn,
        "(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(ch: u8) -> bool {
    matches!(ch, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special_symbol(ch: u8) -> bool {
    matches!(ch, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// Upstream `Lexer`: bytes in, `(Token, literal)` out. Byte 0 reads as end of input.
pub(super) struct Lexer<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub(super) fn new(s: &'a str) -> Self {
        Lexer { s, pos: 0 }
    }

    fn read(&mut self) -> u8 {
        match self.s.as_bytes().get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => 0,
        }
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    /// The literal between two byte offsets; both sit next to ASCII bytes, so on char boundaries.
    fn slice(&self, start: usize, end: usize) -> String {
        self.s.get(start..end).unwrap_or_default().to_string()
    }

    fn scan_id_or_keyword(&mut self) -> (Token, String) {
        let start = self.pos;
        let mut end = start;
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if is_special_symbol(ch) || is_whitespace(ch) {
                self.unread();
                break;
            }
            end = self.pos;
        }
        let lit = self.slice(start, end);
        match string_to_token(&lit) {
            Some(tok) => (tok, lit),
            None => (Token::Identifier, lit),
        }
    }

    fn scan_special_symbol(&mut self) -> (Token, String) {
        let start = self.pos;
        let mut end = start;
        let mut last: Option<(Token, usize)> = None;
        loop {
            let ch = self.read();
            if ch == 0 {
                break;
            }
            if !is_special_symbol(ch) {
                self.unread();
                break;
            }
            end = self.pos;
            if let Some(tok) = string_to_token(&self.slice(start, end)) {
                last = Some((tok, end));
            } else if last.is_some() {
                self.unread();
                break;
            }
        }
        match last {
            Some((tok, last_end)) => (tok, self.slice(start, last_end)),
            None => (
                Token::Error,
                format!("error expected: keyword found '{}'", self.slice(start, end)),
            ),
        }
    }

    fn skip_whitespaces(&mut self, mut ch: u8) -> u8 {
        while is_whitespace(ch) {
            ch = self.read();
        }
        ch
    }

    pub(super) fn lex(&mut self) -> (Token, String) {
        let first = self.read();
        let ch = self.skip_whitespaces(first);
        if ch == 0 {
            return (Token::EndOfString, String::new());
        }
        self.unread();
        if is_special_symbol(ch) {
            self.scan_special_symbol()
        } else {
            self.scan_id_or_keyword()
        }
    }
}

/// Upstream `ParserContext`: in `Values`, `in`/`notin` are identifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

/// Upstream `Parser`: scans every token first, then descends.
pub(super) struct Parser {
    pub(super) items: Vec<(Token, String)>,
    position: usize,
}

type ParseResult<T> = Result<T, LabelSelectorError>;

fn syntax<T>(msg: String) -> ParseResult<T> {
    Err(LabelSelectorError::Syntax(msg))
}

impl Parser {
    pub(super) fn new(s: &str) -> Self {
        let mut lexer = Lexer::new(s);
        let mut items = Vec::new();
        loop {
            let (tok, lit) = lexer.lex();
            let end = tok == Token::EndOfString;
            items.push((tok, lit));
            if end {
                break;
            }
        }
        Parser { items, position: 0 }
    }

    fn item(&self, at: usize, ctx: Context) -> (Token, String) {
        let (tok, lit) = self
            .items
            .get(at)
            .cloned()
            .unwrap_or((Token::EndOfString, String::new()));
        match tok {
            Token::In | Token::NotIn if ctx == Context::Values => (Token::Identifier, lit),
            _ => (tok, lit),
        }
    }

    fn lookahead(&self, ctx: Context) -> (Token, String) {
        self.item(self.position, ctx)
    }

    fn consume(&mut self, ctx: Context) -> (Token, String) {
        self.position += 1;
        self.item(self.position - 1, ctx)
    }

    pub(super) fn parse(&mut self) -> ParseResult<Vec<Requirement>> {
        let mut requirements = Vec::new();
        loop {
            let (tok, lit) = self.lookahead(Context::Values);
            match tok {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .parse_requirement()
                        .map_err(|e| LabelSelectorError::Requirement(Box::new(e)))?;
                    requirements.push(r);
                    let (t, l) = self.consume(Context::Values);
                    match t {
                        Token::EndOfString => return Ok(requirements),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead(Context::Values);
                            if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                return syntax(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        }
                        _ => {
                            return syntax(format!(
                                "found '{l}', expected: ',' or 'end of string'"
                            ));
                        }
                    }
                }
                Token::EndOfString => return Ok(requirements),
                _ => {
                    return syntax(format!(
                        "found '{lit}', expected: !, identifier, or 'end of string'"
                    ));
                }
            }
        }
    }

    fn parse_requirement(&mut self) -> ParseResult<Requirement> {
        let (key, inferred) = self.parse_key_and_infer_operator()?;
        let path = FieldPath::default();
        if let Some(op @ (Operator::Exists | Operator::DoesNotExist)) = inferred {
            return new_requirement(&key, op, Some(&[]), &path).map_err(LabelSelectorError::Field);
        }
        let op = self.parse_operator()?;
        let values = match op {
            Operator::In | Operator::NotIn => self.parse_values()?,
            _ => self.parse_exact_value()?,
        };
        let values: Vec<String> = values.into_iter().collect();
        new_requirement(&key, op, Some(&values), &path).map_err(LabelSelectorError::Field)
    }

    fn parse_key_and_infer_operator(&mut self) -> ParseResult<(String, Option<Operator>)> {
        let mut operator = None;
        let (mut tok, mut literal) = self.consume(Context::Values);
        if tok == Token::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (tok, literal) = self.consume(Context::Values);
        }
        if tok != Token::Identifier {
            return syntax(format!("found '{literal}', expected: identifier"));
        }
        let key_errs = is_label_key(&literal);
        if !key_errs.is_empty() {
            let e = invalid_str(&FieldPath::default(), &literal, &key_errs.join("; "));
            return Err(LabelSelectorError::Field(vec![e]));
        }
        let (t, _) = self.lookahead(Context::Values);
        if (t == Token::EndOfString || t == Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((literal, operator))
    }

    fn parse_operator(&mut self) -> ParseResult<Operator> {
        let (tok, lit) = self.consume(Context::KeyAndOperator);
        Ok(match tok {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => return syntax(format!("found '{lit}', expected: {BINARY_OPERATORS_LIST}")),
        })
    }

    fn parse_values(&mut self) -> ParseResult<BTreeSet<String>> {
        let (tok, lit) = self.consume(Context::Values);
        if tok != Token::OpenPar {
            return syntax(format!("found '{lit}' expected: '('"));
        }
        let (tok, lit) = self.lookahead(Context::Values);
        match tok {
            Token::Identifier | Token::Comma => {
                let s = self.parse_identifiers_list()?;
                let (closing, _) = self.consume(Context::Values);
                if closing != Token::ClosedPar {
                    return syntax(format!("found '{lit}', expected: ')'"));
                }
                Ok(s)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => syntax(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    fn parse_identifiers_list(&mut self) -> ParseResult<BTreeSet<String>> {
        let mut s = BTreeSet::new();
        loop {
            let (tok, lit) = self.consume(Context::Values);
            match tok {
                Token::Identifier => {
                    s.insert(lit);
                    let (tok2, lit2) = self.lookahead(Context::Values);
                    match tok2 {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(s),
                        _ => return syntax(format!("found '{lit2}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if s.is_empty() {
                        s.insert(String::new());
                    }
                    let (tok2, _) = self.lookahead(Context::Values);
                    if tok2 == Token::ClosedPar {
                        s.insert(String::new());
                        return Ok(s);
                    }
                    if tok2 == Token::Comma {
                        s.insert(String::new());
                    }
                }
                _ => return syntax(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
    }

    fn parse_exact_value(&mut self) -> ParseResult<BTreeSet<String>> {
        let (tok, _) = self.lookahead(Context::Values);
        if tok == Token::EndOfString || tok == Token::Comma {
            return Ok(BTreeSet::from([String::new()]));
        }
        let (tok, lit) = self.consume(Context::Values);
        if tok == Token::Identifier {
            return Ok(BTreeSet::from([lit]));
        }
        syntax(format!("found '{lit}', expected: identifier"))
    }
}
