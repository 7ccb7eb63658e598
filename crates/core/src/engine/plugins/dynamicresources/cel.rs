//! The subset of CEL that device selectors use, evaluated against one
//! device as `k8s.io/dynamic-resource-allocation/cel` exposes it:
//! `device.driver`, `device.attributes[domain].name`,
//! `device.capacity[domain].name` (a quantity),
//! `device.allowMultipleAllocations`.
//!
//! Supported: literals (string, int, bool, null, lists), `&&`, `||` and `!`
//! with CEL's error absorption, `? :`, `==`, `!=`, `<`, `<=`, `>`, `>=`,
//! `in` (lists and maps), indexing and field selection, `quantity()`,
//! `semver()`, `compareTo`, `isGreaterThan`, `isLessThan`, `asInteger`,
//! `startsWith`, `endsWith`, `contains`, `lowerAscii`, `upperAscii`,
//! `size`, and `has()` on a map field. Anything else is a compile error,
//! never a silent mismatch. A missing attribute is a runtime error ("no
//! such key"), as in CEL; a missing domain is an empty map.

use std::cmp::Ordering;

use crate::model::dra::{AttrValue, Device};
use crate::model::quantity::Quantity;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    List(Vec<Expr>),
    /// The `device` variable.
    Device,
    Select(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    /// `has(x.f)`.
    Has(Box<Expr>, String),
    /// A global function: `quantity("1Gi")`, `size(x)`.
    Call(String, Vec<Expr>),
    /// A receiver-style function: `x.compareTo(y)`.
    Method(Box<Expr>, String, Vec<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
}

const GLOBAL_FUNCTIONS: [&str; 3] = ["quantity", "semver", "size"];
const METHODS: [&str; 9] = [
    "compareTo",
    "isGreaterThan",
    "isLessThan",
    "asInteger",
    "startsWith",
    "endsWith",
    "contains",
    "lowerAscii",
    "upperAscii",
];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Int(i64),
    Punct(&'static str),
}

fn tokenize(src: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    const PUNCT: [&str; 19] = [
        "&&", "||", "==", "!=", "<=", ">=", "<", ">", "!", "(", ")", "[", "]", ".", ",", "?", ":",
        "-", "+",
    ];
    'outer: while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i < chars.len() && (chars[i] == '.' || chars[i] == 'e' || chars[i] == 'x') {
                return Err(format!(
                    "unsupported number literal at offset {start} (only decimal integers)"
                ));
            }
            let text: String = chars[start..i].iter().collect();
            let v = text
                .parse::<i64>()
                .map_err(|_| format!("integer literal {text} out of range"))?;
            if i < chars.len() && (chars[i] == 'u' || chars[i] == 'U') {
                i += 1;
            }
            out.push(Tok::Int(v));
            continue;
        }
        if c == '"' || c == '\'' {
            let quote = c;
            i += 1;
            let mut s = String::new();
            while i < chars.len() && chars[i] != quote {
                if chars[i] == '\\' {
                    i += 1;
                    match chars.get(i) {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('\\') => s.push('\\'),
                        Some('"') => s.push('"'),
                        Some('\'') => s.push('\''),
                        other => {
                            return Err(format!("unsupported escape sequence \\{other:?}"));
                        }
                    }
                } else {
                    s.push(chars[i]);
                }
                i += 1;
            }
            if i >= chars.len() {
                return Err("unterminated string literal".into());
            }
            i += 1;
            out.push(Tok::Str(s));
            continue;
        }
        for p in PUNCT {
            let pc: Vec<char> = p.chars().collect();
            if chars[i..].starts_with(&pc) {
                out.push(Tok::Punct(p));
                i += pc.len();
                continue 'outer;
            }
        }
        return Err(format!("Syntax error: token recognition error at: '{c}'"));
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(format!(
                "Syntax error: expected '{p}', got {:?}",
                self.peek()
            ))
        }
    }

    fn expr(&mut self) -> Result<Expr, String> {
        let c = self.or()?;
        if self.eat("?") {
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut l = self.and()?;
        while self.eat("||") {
            let r = self.and()?;
            l = Expr::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut l = self.rel()?;
        while self.eat("&&") {
            let r = self.rel()?;
            l = Expr::And(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn rel(&mut self) -> Result<Expr, String> {
        let mut l = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Punct("==")) => BinOp::Eq,
                Some(Tok::Punct("!=")) => BinOp::Ne,
                Some(Tok::Punct("<")) => BinOp::Lt,
                Some(Tok::Punct("<=")) => BinOp::Le,
                Some(Tok::Punct(">")) => BinOp::Gt,
                Some(Tok::Punct(">=")) => BinOp::Ge,
                Some(Tok::Ident(s)) if s == "in" => BinOp::In,
                Some(Tok::Punct("+")) | Some(Tok::Punct("-")) => {
                    return Err(
                        "unsupported operator: arithmetic is outside kplace's CEL subset".into(),
                    );
                }
                _ => return Ok(l),
            };
            self.pos += 1;
            let r = self.unary()?;
            l = Expr::Binary(op, Box::new(l), Box::new(r));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        if self.eat("-") {
            return Ok(match self.unary()? {
                Expr::Int(v) => Expr::Int(-v),
                e => Expr::Neg(Box::new(e)),
            });
        }
        self.member()
    }

    fn args(&mut self) -> Result<Vec<Expr>, String> {
        let mut args = Vec::new();
        if self.eat(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat(")") {
                return Ok(args);
            }
            self.expect(",")?;
        }
    }

    fn member(&mut self) -> Result<Expr, String> {
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                let Some(Tok::Ident(name)) = self.peek().cloned() else {
                    return Err("Syntax error: expected a field name after '.'".into());
                };
                self.pos += 1;
                if self.eat("(") {
                    if !METHODS.contains(&name.as_str()) && name != "size" {
                        return Err(format!(
                            "undeclared reference to '{name}' (a function outside kplace's CEL subset)"
                        ));
                    }
                    let args = self.args()?;
                    e = Expr::Method(Box::new(e), name, args);
                } else {
                    e = Expr::Select(Box::new(e), name);
                }
            } else if self.eat("[") {
                let idx = self.expr()?;
                self.expect("]")?;
                e = Expr::Index(Box::new(e), Box::new(idx));
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(tok) = self.peek().cloned() else {
            return Err("Syntax error: unexpected end of expression".into());
        };
        self.pos += 1;
        match tok {
            Tok::Int(v) => Ok(Expr::Int(v)),
            Tok::Str(s) => Ok(Expr::Str(s)),
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Punct("[") => {
                let mut items = Vec::new();
                if !self.eat("]") {
                    loop {
                        items.push(self.expr()?);
                        if self.eat("]") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                Ok(Expr::List(items))
            }
            Tok::Ident(name) => match name.as_str() {
                "true" => Ok(Expr::Bool(true)),
                "false" => Ok(Expr::Bool(false)),
                "null" => Ok(Expr::Null),
                "device" => Ok(Expr::Device),
                "has" if self.eat("(") => {
                    let arg = self.expr()?;
                    self.expect(")")?;
                    match arg {
                        Expr::Select(target, field) => Ok(Expr::Has(target, field)),
                        _ => Err("invalid argument to has() macro".into()),
                    }
                }
                f if self.eat("(") => {
                    if !GLOBAL_FUNCTIONS.contains(&f) {
                        return Err(format!(
                            "undeclared reference to '{f}' (a function outside kplace's CEL subset)"
                        ));
                    }
                    let args = self.args()?;
                    Ok(Expr::Call(name, args))
                }
                other => Err(format!("undeclared reference to '{other}'")),
            },
            Tok::Punct(p) => Err(format!("Syntax error: unexpected '{p}'")),
        }
    }
}

/// Compiles a selector expression.
pub fn compile(src: &str) -> Result<Expr, String> {
    let toks = tokenize(src)?;
    let mut p = Parser { toks, pos: 0 };
    let e = p.expr()?;
    if p.pos != p.toks.len() {
        return Err(format!("Syntax error: unexpected {:?}", p.toks[p.pos]));
    }
    Ok(e)
}

/// A runtime value; maps over the device are views into it.
#[derive(Clone, Debug, PartialEq)]
enum Value<'d> {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    Quantity(i128),
    Version(String),
    List(Vec<Value<'d>>),
    Device,
    Attributes,
    Capacity,
    AttrDomain(String),
    CapDomain(String),
    /// A value borrowed from the device.
    Attr(&'d AttrValue),
}

impl Value<'_> {
    fn type_name(&self) -> &'static str {
        match self.resolved() {
            Value::Null => "null_type",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Str(_) => "string",
            Value::Quantity(_) => "kubernetes.Quantity",
            Value::Version(_) => "kubernetes.Semver",
            Value::List(_) => "list",
            Value::Device => "kubernetes.DRADevice",
            _ => "map",
        }
    }

    /// An attribute as the plain value it holds.
    fn resolved(&self) -> Value<'static> {
        match self {
            Value::Attr(AttrValue::Int(v)) => Value::Int(*v),
            Value::Attr(AttrValue::Bool(v)) => Value::Bool(*v),
            Value::Attr(AttrValue::String(v)) => Value::Str(v.to_string()),
            Value::Attr(AttrValue::Version(v)) => Value::Version(v.to_string()),
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Str(s) => Value::Str(s.clone()),
            Value::Quantity(q) => Value::Quantity(*q),
            Value::Version(v) => Value::Version(v.clone()),
            Value::List(l) => Value::List(l.iter().map(Value::resolved).collect()),
            Value::Device => Value::Device,
            Value::Attributes => Value::Attributes,
            Value::Capacity => Value::Capacity,
            Value::AttrDomain(d) => Value::AttrDomain(d.clone()),
            Value::CapDomain(d) => Value::CapDomain(d.clone()),
        }
    }
}

/// The device a selector is evaluated against.
pub struct DeviceView<'d> {
    pub driver: &'d str,
    pub device: &'d Device,
}

fn no_such_key(key: &str) -> String {
    format!("no such key: {key}")
}

fn no_overload(f: &str, v: &[&Value]) -> String {
    let types: Vec<&str> = v.iter().map(|v| v.type_name()).collect();
    format!("no such overload: {f}({})", types.join(", "))
}

/// A semantic version's ordering (`major.minor.patch[-pre]`).
fn semver_cmp(a: &str, b: &str) -> Result<Ordering, String> {
    fn parse(v: &str) -> Result<(u64, u64, u64, Option<&str>), String> {
        let v = v.split('+').next().unwrap_or(v);
        let (core, pre) = match v.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (v, None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() != 3 {
            return Err(format!("invalid semver {v:?}"));
        }
        let n = |s: &str| {
            s.parse::<u64>()
                .map_err(|_| format!("invalid semver {v:?}"))
        };
        Ok((n(parts[0])?, n(parts[1])?, n(parts[2])?, pre))
    }
    let (a, b) = (parse(a)?, parse(b)?);
    Ok((a.0, a.1, a.2)
        .cmp(&(b.0, b.1, b.2))
        .then(match (a.3, b.3) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(x), Some(y)) => x.cmp(y),
        }))
}

fn values_equal(a: &Value, b: &Value) -> Result<bool, String> {
    Ok(match (a.resolved(), b.resolved()) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Quantity(x), Value::Quantity(y)) => x == y,
        (Value::Version(x), Value::Version(y)) => semver_cmp(&x, &y)? == Ordering::Equal,
        (Value::List(x), Value::List(y)) => {
            if x.len() != y.len() {
                return Ok(false);
            }
            for (p, q) in x.iter().zip(&y) {
                if !values_equal(p, q)? {
                    return Ok(false);
                }
            }
            true
        }
        // Heterogeneous equality is false.
        _ => false,
    })
}

impl<'d> DeviceView<'d> {
    fn attribute(&self, domain: &str, id: &str) -> Option<&'d AttrValue> {
        self.device
            .attributes
            .iter()
            .find(|(d, i, _)| **d == *domain && **i == *id)
            .map(|(_, _, v)| v)
    }

    fn capacity(&self, domain: &str, id: &str) -> Option<i128> {
        self.device
            .capacity
            .iter()
            .find(|(d, i, _)| **d == *domain && **i == *id)
            .map(|(_, _, v)| *v)
    }

    /// Looks a key up in a map value (`m[k]` or `m.k`).
    fn lookup(&self, target: &Value<'d>, key: &Value) -> Result<Value<'d>, String> {
        let key_str = match key.resolved() {
            Value::Str(s) => s,
            _ => return Err(no_overload("_[_]", &[target, key])),
        };
        match target {
            Value::Device => match key_str.as_str() {
                "driver" => Ok(Value::Str(self.driver.to_string())),
                "attributes" => Ok(Value::Attributes),
                "capacity" => Ok(Value::Capacity),
                "allowMultipleAllocations" => Ok(Value::Bool(false)),
                other => Err(no_such_key(other)),
            },
            Value::Attributes => Ok(Value::AttrDomain(key_str)),
            Value::Capacity => Ok(Value::CapDomain(key_str)),
            Value::AttrDomain(d) => self
                .attribute(d, &key_str)
                .map(Value::Attr)
                .ok_or_else(|| no_such_key(&key_str)),
            Value::CapDomain(d) => self
                .capacity(d, &key_str)
                .map(Value::Quantity)
                .ok_or_else(|| no_such_key(&key_str)),
            _ => Err(no_overload("_[_]", &[target, key])),
        }
    }

    fn has_key(&self, target: &Value<'d>, key: &str) -> Result<bool, String> {
        Ok(match target {
            Value::Device => matches!(
                key,
                "driver" | "attributes" | "capacity" | "allowMultipleAllocations"
            ),
            Value::Attributes => self.device.attributes.iter().any(|(d, ..)| **d == *key),
            Value::Capacity => self.device.capacity.iter().any(|(d, ..)| **d == *key),
            Value::AttrDomain(d) => self.attribute(d, key).is_some(),
            Value::CapDomain(d) => self.capacity(d, key).is_some(),
            _ => return Err(no_overload("has", &[target])),
        })
    }

    fn eval(&self, e: &Expr) -> Result<Value<'d>, String> {
        match e {
            Expr::Null => Ok(Value::Null),
            Expr::Bool(b) => Ok(Value::Bool(*b)),
            Expr::Int(i) => Ok(Value::Int(*i)),
            Expr::Str(s) => Ok(Value::Str(s.clone())),
            Expr::List(items) => Ok(Value::List(
                items
                    .iter()
                    .map(|i| self.eval(i))
                    .collect::<Result<_, _>>()?,
            )),
            Expr::Device => Ok(Value::Device),
            Expr::Select(t, f) => {
                let t = self.eval(t)?;
                self.lookup(&t, &Value::Str(f.clone()))
            }
            Expr::Index(t, k) => {
                let t = self.eval(t)?;
                let k = self.eval(k)?;
                self.lookup(&t, &k)
            }
            Expr::Has(t, f) => {
                let t = self.eval(t)?;
                self.has_key(&t, f).map(Value::Bool)
            }
            Expr::Not(x) => match self.eval(x)?.resolved() {
                Value::Bool(b) => Ok(Value::Bool(!b)),
                v => Err(no_overload("!_", &[&v])),
            },
            Expr::Neg(x) => match self.eval(x)?.resolved() {
                Value::Int(i) => Ok(Value::Int(-i)),
                v => Err(no_overload("-_", &[&v])),
            },
            Expr::And(a, b) | Expr::Or(a, b) => {
                // CEL's commutative logic: an error on one side is absorbed
                // when the other side decides the result.
                let is_and = matches!(e, Expr::And(..));
                let decide = !is_and;
                let l = self.bool_of(a);
                if l == Ok(decide) {
                    return Ok(Value::Bool(decide));
                }
                let r = self.bool_of(b);
                if r == Ok(decide) {
                    return Ok(Value::Bool(decide));
                }
                l?;
                r?;
                Ok(Value::Bool(!decide))
            }
            Expr::Cond(c, a, b) => {
                if self.bool_of(c)? {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            Expr::Binary(op, a, b) => {
                let l = self.eval(a)?;
                let r = self.eval(b)?;
                self.binary(*op, &l, &r)
            }
            Expr::Call(f, args) => {
                let args: Vec<Value> = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<_, _>>()?;
                self.call(f, None, &args)
            }
            Expr::Method(t, f, args) => {
                let t = self.eval(t)?;
                let args: Vec<Value> = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<_, _>>()?;
                self.call(f, Some(&t), &args)
            }
        }
    }

    fn bool_of(&self, e: &Expr) -> Result<bool, String> {
        match self.eval(e)?.resolved() {
            Value::Bool(b) => Ok(b),
            v => Err(format!(
                "no matching overload: expected bool, got {}",
                v.type_name()
            )),
        }
    }

    fn binary(&self, op: BinOp, l: &Value<'d>, r: &Value<'d>) -> Result<Value<'d>, String> {
        let ordering = |name: &str| -> Result<Ordering, String> {
            match (l.resolved(), r.resolved()) {
                (Value::Int(x), Value::Int(y)) => Ok(x.cmp(&y)),
                (Value::Str(x), Value::Str(y)) => Ok(x.cmp(&y)),
                (Value::Bool(x), Value::Bool(y)) => Ok(x.cmp(&y)),
                _ => Err(no_overload(name, &[l, r])),
            }
        };
        Ok(Value::Bool(match op {
            BinOp::Eq => values_equal(l, r)?,
            BinOp::Ne => !values_equal(l, r)?,
            BinOp::Lt => ordering("_<_")? == Ordering::Less,
            BinOp::Le => ordering("_<=_")? != Ordering::Greater,
            BinOp::Gt => ordering("_>_")? == Ordering::Greater,
            BinOp::Ge => ordering("_>=_")? != Ordering::Less,
            BinOp::In => match r {
                Value::List(items) => {
                    let mut found = false;
                    for i in items {
                        if values_equal(l, i)? {
                            found = true;
                            break;
                        }
                    }
                    found
                }
                Value::Device
                | Value::Attributes
                | Value::Capacity
                | Value::AttrDomain(_)
                | Value::CapDomain(_) => match l.resolved() {
                    Value::Str(k) => self.has_key(r, &k)?,
                    _ => return Err(no_overload("@in", &[l, r])),
                },
                _ => return Err(no_overload("@in", &[l, r])),
            },
        }))
    }

    fn call(
        &self,
        f: &str,
        target: Option<&Value<'d>>,
        args: &[Value<'d>],
    ) -> Result<Value<'d>, String> {
        let all: Vec<&Value> = target.into_iter().chain(args).collect();
        let resolved: Vec<Value> = all.iter().map(|v| v.resolved()).collect();
        let overload = || no_overload(f, &all);
        match (f, resolved.as_slice()) {
            ("quantity", [Value::Str(s)]) => Quantity::parse(s)
                .map(|q| Value::Quantity(q.nanos()))
                .map_err(|e| format!("quantity(): {e}")),
            ("semver", [Value::Str(s)]) => {
                semver_cmp(s, s)?;
                Ok(Value::Version(s.clone()))
            }
            ("size", [Value::Str(s)]) => Ok(Value::Int(s.chars().count() as i64)),
            ("size", [Value::List(l)]) => Ok(Value::Int(l.len() as i64)),
            ("compareTo", [Value::Quantity(a), Value::Quantity(b)]) => {
                Ok(Value::Int(a.cmp(b) as i64))
            }
            ("compareTo", [Value::Version(a), Value::Version(b)]) => {
                Ok(Value::Int(semver_cmp(a, b)? as i64))
            }
            ("isGreaterThan", [Value::Quantity(a), Value::Quantity(b)]) => Ok(Value::Bool(a > b)),
            ("isLessThan", [Value::Quantity(a), Value::Quantity(b)]) => Ok(Value::Bool(a < b)),
            ("isGreaterThan", [Value::Version(a), Value::Version(b)]) => {
                Ok(Value::Bool(semver_cmp(a, b)? == Ordering::Greater))
            }
            ("isLessThan", [Value::Version(a), Value::Version(b)]) => {
                Ok(Value::Bool(semver_cmp(a, b)? == Ordering::Less))
            }
            ("asInteger", [Value::Quantity(q)]) => {
                let nano = 1_000_000_000i128;
                if q % nano != 0 || q / nano > i64::MAX as i128 || q / nano < i64::MIN as i128 {
                    return Err("cannot convert value to integer".into());
                }
                Ok(Value::Int((q / nano) as i64))
            }
            ("startsWith", [Value::Str(s), Value::Str(p)]) => {
                Ok(Value::Bool(s.starts_with(p.as_str())))
            }
            ("endsWith", [Value::Str(s), Value::Str(p)]) => {
                Ok(Value::Bool(s.ends_with(p.as_str())))
            }
            ("contains", [Value::Str(s), Value::Str(p)]) => Ok(Value::Bool(s.contains(p.as_str()))),
            ("lowerAscii", [Value::Str(s)]) => Ok(Value::Str(s.to_ascii_lowercase())),
            ("upperAscii", [Value::Str(s)]) => Ok(Value::Str(s.to_ascii_uppercase())),
            _ => Err(overload()),
        }
    }

    /// Evaluates a compiled selector: `Ok(bool)` or a runtime error.
    pub fn matches(&self, e: &Expr) -> Result<bool, String> {
        match self.eval(e)?.resolved() {
            Value::Bool(b) => Ok(b),
            v => Err(format!(
                "CEL result of type {} could not be converted to bool",
                v.type_name()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(model: &str, memory: &str) -> Device {
        Device {
            name: "gpu-0".into(),
            attributes: vec![
                (
                    "gpu.example.com".into(),
                    "model".into(),
                    AttrValue::String(model.into()),
                ),
                ("gpu.example.com".into(), "index".into(), AttrValue::Int(2)),
                (
                    "gpu.example.com".into(),
                    "driverVersion".into(),
                    AttrValue::Version("550.54.15".into()),
                ),
                (
                    "other.example.com".into(),
                    "healthy".into(),
                    AttrValue::Bool(true),
                ),
            ]
            .into(),
            capacity: vec![(
                "gpu.example.com".into(),
                "memory".into(),
                Quantity::parse(memory).unwrap().nanos(),
            )]
            .into(),
            consumes_counters: false,
            binding_conditions: false,
        }
    }

    fn eval(expr: &str, d: &Device) -> Result<bool, String> {
        let e = compile(expr)?;
        DeviceView {
            driver: "gpu.example.com",
            device: d,
        }
        .matches(&e)
    }

    #[test]
    fn corpus_expressions() {
        let a100 = gpu("a100", "40Gi");
        let l4 = gpu("l4", "24Gi");
        assert_eq!(
            eval(r#"device.driver == "gpu.example.com""#, &a100),
            Ok(true)
        );
        assert_eq!(
            eval(r#"device.driver == "fabric.example.com""#, &a100),
            Ok(false)
        );
        let mem = r#"device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0"#;
        assert_eq!(eval(mem, &a100), Ok(true));
        assert_eq!(eval(mem, &l4), Ok(false));
        let inf = r#"device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model in ["l4", "t4"]"#;
        assert_eq!(eval(inf, &a100), Ok(false));
        assert_eq!(eval(inf, &l4), Ok(true));
        assert_eq!(
            eval(
                r#"device.attributes["gpu.example.com"].model == "a100""#,
                &a100
            ),
            Ok(true)
        );
    }

    #[test]
    fn missing_attribute_is_an_error_unless_absorbed() {
        let d = gpu("a100", "40Gi");
        let e = eval(r#"device.attributes["gpu.example.com"].vendor == "x""#, &d);
        assert_eq!(e, Err("no such key: vendor".into()));
        // A missing domain is an empty map: the lookup in it fails.
        assert!(
            eval(
                r#"device.attributes["nope.example.com"].model == "a100""#,
                &d
            )
            .is_err()
        );
        // `false && error` and `error || true` decide without the error.
        assert_eq!(
            eval(
                r#"device.driver == "x" && device.attributes["gpu.example.com"].vendor == "x""#,
                &d
            ),
            Ok(false)
        );
        assert_eq!(
            eval(
                r#"device.attributes["gpu.example.com"].vendor == "x" || true"#,
                &d
            ),
            Ok(true)
        );
        assert!(
            eval(
                r#"device.attributes["gpu.example.com"].vendor == "x" || false"#,
                &d
            )
            .is_err()
        );
    }

    #[test]
    fn operators_and_functions() {
        let d = gpu("a100", "40Gi");
        assert_eq!(
            eval(r#"device.attributes["gpu.example.com"].index > 1"#, &d),
            Ok(true)
        );
        assert_eq!(
            eval(r#"device.attributes["gpu.example.com"].index <= 1"#, &d),
            Ok(false)
        );
        assert_eq!(
            eval(r#"!(device.attributes["other.example.com"].healthy)"#, &d),
            Ok(false)
        );
        assert_eq!(
            eval(r#""model" in device.attributes["gpu.example.com"]"#, &d),
            Ok(true)
        );
        assert_eq!(
            eval(r#"has(device.attributes["gpu.example.com"].uuid)"#, &d),
            Ok(false)
        );
        assert_eq!(
            eval(
                r#"device.attributes["gpu.example.com"].model.startsWith("a1")"#,
                &d
            ),
            Ok(true)
        );
        assert_eq!(
            eval(
                r#"device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("550.54.14"))"#,
                &d
            ),
            Ok(true)
        );
        assert_eq!(
            eval(
                r#"device.capacity["gpu.example.com"].memory.isLessThan(quantity("80Gi"))"#,
                &d
            ),
            Ok(true)
        );
        assert_eq!(
            eval(r#"device.driver == 'gpu.example.com' ? true : false"#, &d),
            Ok(true)
        );
        // Heterogeneous equality is false, ordering across types an error.
        assert_eq!(
            eval(r#"device.attributes["gpu.example.com"].index == "2""#, &d),
            Ok(false)
        );
        assert!(eval(r#"device.attributes["gpu.example.com"].index < "2""#, &d).is_err());
    }

    #[test]
    fn outside_the_subset_is_a_compile_error() {
        assert!(compile("device.attributes.exists(a, a == 1)").is_err());
        assert!(compile("1 + 2 == 3").is_err());
        assert!(compile("matches(device.driver, 'x')").is_err());
        assert!(compile("foo == 1").is_err());
        assert!(compile("device.driver == ").is_err());
        assert!(compile("1.5 > 1").is_err());
        let d = gpu("a100", "40Gi");
        assert!(eval("device.driver", &d).is_err());
    }
}
