//! A tiny evaluator for the constant expressions of RTL parameter defaults and port ranges
//! (`DATA_WIDTH / 8`, `ROUTE_ENTRIES > 1 ? $clog2(ROUTE_ENTRIES) : 1`, `KEEP_WIDTH-1`): integers,
//! parameter names, `+ - * / %`, comparisons, `?:`, parentheses and `$clog2`, with Verilog's precedence.

/// Evaluates `text`, looking parameter names up with `lookup`.
pub fn eval(text: &str, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<i64, String> {
    let tokens = lex(text)?;
    let mut p = Parser { t: &tokens, i: 0, lookup };
    let v = p.ternary()?;
    if p.i != tokens.len() {
        return Err(format!("unexpected `{}` in `{text}`", tokens[p.i]));
    }
    Ok(v)
}

/// Verilog's `$clog2`: the number of address bits for `n` entries (0 for 0 and 1).
pub fn clog2(n: i64) -> i64 {
    let mut bits = 0;
    while (1i64 << bits) < n {
        bits += 1;
    }
    bits
}

fn lex(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '\'' {
            let start = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$' || b[i] == b'\'') {
                i += 1;
            }
            out.push(text[start..i].to_string());
        } else {
            let two = text.get(i..i + 2).unwrap_or("");
            if [">=", "<=", "==", "!="].contains(&two) {
                out.push(two.to_string());
                i += 2;
            } else if "+-*/%()?:<>".contains(c) {
                out.push(c.to_string());
                i += 1;
            } else {
                return Err(format!("unexpected character `{c}` in `{text}`"));
            }
        }
    }
    Ok(out)
}

struct Parser<'a> {
    t: &'a [String],
    i: usize,
    lookup: &'a dyn Fn(&str) -> Option<i64>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.t.get(self.i).map(String::as_str)
    }
    fn eat(&mut self, s: &str) -> bool {
        if self.peek() == Some(s) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ternary(&mut self) -> Result<i64, String> {
        let c = self.compare()?;
        if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return Err("`?` without `:`".into());
            }
            let b = self.ternary()?;
            return Ok(if c != 0 { a } else { b });
        }
        Ok(c)
    }
    fn compare(&mut self) -> Result<i64, String> {
        let a = self.additive()?;
        for op in [">=", "<=", "==", "!=", ">", "<"] {
            if self.eat(op) {
                let b = self.additive()?;
                let r = match op {
                    ">=" => a >= b,
                    "<=" => a <= b,
                    "==" => a == b,
                    "!=" => a != b,
                    ">" => a > b,
                    _ => a < b,
                };
                return Ok(i64::from(r));
            }
        }
        Ok(a)
    }
    fn additive(&mut self) -> Result<i64, String> {
        let mut a = self.term()?;
        loop {
            if self.eat("+") {
                a += self.term()?;
            } else if self.eat("-") {
                a -= self.term()?;
            } else {
                return Ok(a);
            }
        }
    }
    fn term(&mut self) -> Result<i64, String> {
        let mut a = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(op @ ("*" | "/" | "%")) => op.to_string(),
                _ => return Ok(a),
            };
            self.i += 1;
            let b = self.unary()?;
            a = match op.as_str() {
                "*" => a * b,
                _ if b == 0 => return Err("division by zero".into()),
                "/" => a / b,
                _ => a % b,
            };
        }
    }
    fn unary(&mut self) -> Result<i64, String> {
        if self.eat("-") {
            return Ok(-self.unary()?);
        }
        self.primary()
    }
    fn primary(&mut self) -> Result<i64, String> {
        let tok = self.peek().ok_or("expression ends early")?.to_string();
        self.i += 1;
        if tok == "(" {
            let v = self.ternary()?;
            return if self.eat(")") { Ok(v) } else { Err("missing `)`".into()) };
        }
        if tok == "$clog2" {
            if !self.eat("(") {
                return Err("`$clog2` without `(`".into());
            }
            let v = self.ternary()?;
            return if self.eat(")") { Ok(clog2(v)) } else { Err("missing `)`".into()) };
        }
        if tok.as_bytes()[0].is_ascii_digit() || tok.starts_with('\'') {
            return literal(&tok);
        }
        (self.lookup)(&tok).ok_or_else(|| format!("unknown name `{tok}`"))
    }
}

fn literal(tok: &str) -> Result<i64, String> {
    let t = tok.replace('_', "");
    let (radix, digits) = match t.split_once('\'') {
        None => (10, t.as_str()),
        Some((_, rest)) => {
            let rest = rest.trim_start_matches(['s', 'S']);
            match rest.chars().next() {
                Some('d' | 'D') => (10, &rest[1..]),
                Some('h' | 'H') => (16, &rest[1..]),
                Some('b' | 'B') => (2, &rest[1..]),
                Some('o' | 'O') => (8, &rest[1..]),
                _ => return Err(format!("bad literal `{tok}`")),
            }
        }
    };
    i64::from_str_radix(digits, radix).map_err(|_| format!("bad literal `{tok}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_rtl_defaults() {
        let p = |n: &str| match n {
            "ROUTE_ENTRIES" => Some(16),
            "DATA_WIDTH" => Some(64),
            _ => None,
        };
        assert_eq!(eval("ROUTE_ENTRIES > 1 ? $clog2(ROUTE_ENTRIES) : 1", &p), Ok(4));
        assert_eq!(eval("DATA_WIDTH / 8 - 1", &p), Ok(7));
        assert_eq!(eval("(2 + 3) * 4'd2", &p), Ok(10));
        assert_eq!(eval("16'hFF_FF", &p), Ok(0xffff));
        assert_eq!(eval("NOPE", &p), Err("unknown name `NOPE`".into()));
        assert_eq!(eval("1 +", &p), Err("expression ends early".into()));
        assert_eq!(clog2(1), 0);
        assert_eq!(clog2(5), 3);
    }
}
