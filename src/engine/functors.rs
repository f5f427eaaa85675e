//! Value-level semantics of operators and functors, on the raw 32-bit
//! representation: `number` = i32 (wrapping), `unsigned` = u32 (wrapping),
//! `float` = f32 bits, `symbol` = interned id.

use std::cmp::Ordering;

use anyhow::{Result, bail};

use super::ast::{BinOp, CmpOp, UnOp};
use super::ir::Base;

#[inline]
fn f(v: u32) -> f32 {
    f32::from_bits(v)
}

/// Shift amounts are masked to the word size, as Soufflé does.
const SHIFT_MASK: u32 = 31;

pub fn bin(op: BinOp, base: Base, a: u32, b: u32) -> Result<u32> {
    Ok(match base {
        Base::Num => {
            let (x, y) = (a as i32, b as i32);
            (match op {
                BinOp::Add => x.wrapping_add(y),
                BinOp::Sub => x.wrapping_sub(y),
                BinOp::Mul => x.wrapping_mul(y),
                BinOp::Div => {
                    if y == 0 {
                        bail!("division by zero");
                    }
                    x.wrapping_div(y)
                }
                BinOp::Mod => {
                    if y == 0 {
                        bail!("modulo by zero");
                    }
                    x.wrapping_rem(y)
                }
                BinOp::Pow => pow_i(x as f64, y as f64) as i32,
                BinOp::Band => x & y,
                BinOp::Bor => x | y,
                BinOp::Bxor => x ^ y,
                BinOp::Bshl => ((x as u32) << (y as u32 & SHIFT_MASK)) as i32,
                BinOp::Bshr => x >> (y as u32 & SHIFT_MASK),
                BinOp::Land => (x != 0 && y != 0) as i32,
                BinOp::Lor => (x != 0 || y != 0) as i32,
                BinOp::Lxor => ((x != 0) != (y != 0)) as i32,
                BinOp::Bshru => ((x as u32) >> (y as u32 & SHIFT_MASK)) as i32,
            }) as u32
        }
        Base::Uns => match op {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => {
                if b == 0 {
                    bail!("division by zero");
                }
                a / b
            }
            BinOp::Mod => {
                if b == 0 {
                    bail!("modulo by zero");
                }
                a % b
            }
            BinOp::Pow => pow_i(a as f64, b as f64) as u32,
            BinOp::Band => a & b,
            BinOp::Bor => a | b,
            BinOp::Bxor => a ^ b,
            BinOp::Bshl => a << (b & SHIFT_MASK),
            BinOp::Bshr | BinOp::Bshru => a >> (b & SHIFT_MASK),
            BinOp::Land => (a != 0 && b != 0) as u32,
            BinOp::Lor => (a != 0 || b != 0) as u32,
            BinOp::Lxor => ((a != 0) != (b != 0)) as u32,
        },
        Base::Flt => {
            let (x, y) = (f(a), f(b));
            match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                BinOp::Pow => x.powf(y),
                _ => bail!("operator not defined on float"),
            }
            .to_bits()
        }
        Base::Sym | Base::Rec(_) => bail!("arithmetic on symbols or records"),
    })
}

/// Integer power through f64, as Soufflé computes it (`std::pow`, then a cast).
fn pow_i(x: f64, y: f64) -> i64 {
    let r = x.powf(y);
    if r.is_nan() { 0 } else { r as i64 }
}

pub fn un(op: UnOp, base: Base, a: u32) -> u32 {
    match (op, base) {
        (UnOp::Neg, Base::Flt) => (-f(a)).to_bits(),
        (UnOp::Neg, _) => (a as i32).wrapping_neg() as u32,
        (UnOp::Bnot, _) => !a,
        (UnOp::Lnot, _) => (a == 0) as u32,
    }
}

/// Total order of two values of the same base (symbols compare by string; the
/// caller resolves them).
pub fn cmp_num(base: Base, a: u32, b: u32) -> Ordering {
    match base {
        Base::Num => (a as i32).cmp(&(b as i32)),
        Base::Uns | Base::Sym | Base::Rec(_) => a.cmp(&b),
        Base::Flt => f(a).partial_cmp(&f(b)).unwrap_or(Ordering::Equal),
    }
}

pub fn cmp_holds(op: CmpOp, o: Ordering) -> bool {
    match op {
        CmpOp::Eq => o == Ordering::Equal,
        CmpOp::Ne => o != Ordering::Equal,
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Le => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Ge => o != Ordering::Less,
    }
}

/// Render a non-symbol value as text (fact files, `to_string`).
pub fn show(base: Base, v: u32) -> String {
    match base {
        Base::Num => (v as i32).to_string(),
        Base::Uns => v.to_string(),
        Base::Flt => format_float(f(v)),
        Base::Sym | Base::Rec(_) => unreachable!("symbols and records are resolved by the caller"),
    }
}

/// A float as Soufflé writes it: C's `%.9g` (`0.333333343`, `1e+10`, `nan`).
pub fn format_float(x: f32) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // %g picks the style from the exponent %e would print with 8 decimals.
    let sci = format!("{:.8e}", x as f64);
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..9).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    } else {
        trim(&format!("{:.*}", (8 - exp) as usize, x as f64))
    }
}

/// `to_string(x)`: Soufflé's `std::to_string`, which prints a float like C's
/// `%f` (six decimals: `to_string(0.1)` is `"0.100000"`); integers as `show`.
pub fn to_string(base: Base, v: u32) -> String {
    if base != Base::Flt {
        return show(base, v);
    }
    let x = f(v);
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_nan() {
        format!("{sign}nan")
    } else if x.is_infinite() {
        format!("{sign}inf")
    } else {
        format!("{:.6}", x as f64)
    }
}

/// Parse a number column of a fact file (Soufflé's reader: decimal for
/// `number`; decimal, `0x` or `0b` for `unsigned`).
pub fn parse_value(base: Base, s: &str) -> Option<u32> {
    match base {
        Base::Num => s.parse::<i32>().ok().map(|v| v as u32),
        Base::Uns => parse_radix_u32(s),
        Base::Flt => s.parse::<f32>().ok().map(f32::to_bits),
        Base::Sym | Base::Rec(_) => None,
    }
}

fn parse_radix_u32(s: &str) -> Option<u32> {
    if let Some(h) = s.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok()
    } else if let Some(b) = s.strip_prefix("0b") {
        u32::from_str_radix(b, 2).ok()
    } else {
        s.parse::<u32>().ok()
    }
}

/// `to_number` / `to_unsigned` / `to_float` of a string, read like C's
/// `stoi` / `stoul` / `stof` as Soufflé does: the longest valid prefix counts,
/// `0x` and `0b` select the base of integers; no valid prefix, or a value out
/// of range, is an error.
pub fn from_string(to: Base, s: &str) -> Result<u32> {
    let r = match to {
        Base::Num => stoi_like(s),
        Base::Uns => stoul_like(s),
        Base::Flt => stof_like(s).map(f32::to_bits),
        Base::Sym | Base::Rec(_) => unreachable!(),
    };
    match r {
        Some(v) => Ok(v),
        None => bail!(
            "wrong string provided by `to_{}(\"{s}\")` functor",
            match to {
                Base::Num => "number",
                Base::Uns => "unsigned",
                _ => "float",
            }
        ),
    }
}

/// `to_number` as Soufflé computes it: `0x`/`0b` prefixes select base 16/2;
/// otherwise C's `stoi`: optional leading whitespace and sign, then the
/// longest run of digits (trailing text is ignored). No digits, or a value
/// outside i32, is an error.
fn stoi_like(s: &str) -> Option<u32> {
    let (neg, body, radix) = if let Some(h) = s.strip_prefix("-0x") {
        (true, h, 16)
    } else if let Some(h) = s.strip_prefix("0x") {
        (false, h, 16)
    } else if let Some(b) = s.strip_prefix("-0b") {
        (true, b, 2)
    } else if let Some(b) = s.strip_prefix("0b") {
        (false, b, 2)
    } else {
        let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
        match t.strip_prefix('-') {
            Some(r) => (true, r, 10),
            None => (false, t.strip_prefix('+').unwrap_or(t), 10),
        }
    };
    let digits: &str = &body[..body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len())];
    if digits.is_empty() {
        // `strtol("0x…", 16)` with no hex digit still reads the leading `0`.
        return (radix == 16).then_some(0);
    }
    let mag = i64::from_str_radix(digits, radix).ok()?;
    let v = if neg { -mag } else { mag };
    (v >= i32::MIN as i64 && v <= i32::MAX as i64).then_some(v as i32 as u32)
}

/// `to_unsigned` as Soufflé computes it: a leading `-` is an error; `0x`/`0b`
/// select base 16/2; otherwise C's `stoul` (leading blanks, optional `+`, the
/// longest run of digits). No digits or a value outside u32 is an error.
fn stoul_like(s: &str) -> Option<u32> {
    if s.starts_with('-') {
        return None;
    }
    let (body, radix) = if let Some(h) = s.strip_prefix("0x") {
        (h, 16)
    } else if let Some(b) = s.strip_prefix("0b") {
        (b, 2)
    } else {
        let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
        if t.starts_with('-') {
            // stoul would negate modulo 2^64; treat it as the error it almost surely is.
            return None;
        }
        (t.strip_prefix('+').unwrap_or(t), 10)
    };
    let digits = &body[..body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len())];
    if digits.is_empty() {
        return (radix == 16).then_some(0);
    }
    u32::from_str_radix(digits, radix).ok()
}

/// `to_float` as Soufflé computes it (C's `stof`): leading blanks, then the
/// longest prefix that is a decimal float (`1.5e3`), a hex float (`0x1.8p1`),
/// `inf`/`infinity` or `nan`. No such prefix, or a finite text that overflows
/// f32 or underflows it (subnormal results included), is an error.
fn stof_like(s: &str) -> Option<f32> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let b = t.as_bytes();
    let mut i = 0;
    let neg = matches!(b.first(), Some(b'-'));
    if matches!(b.first(), Some(b'-' | b'+')) {
        i = 1;
    }
    let rest = t[i..].to_ascii_lowercase();
    let sign = if neg { -1.0f32 } else { 1.0 };
    if rest.starts_with("inf") {
        return Some(sign * f32::INFINITY);
    }
    if rest.starts_with("nan") {
        return Some(if neg { -f32::NAN } else { f32::NAN });
    }
    let digits = |mut j: usize, hex: bool| {
        while j < b.len()
            && (if hex {
                b[j].is_ascii_hexdigit()
            } else {
                b[j].is_ascii_digit()
            })
        {
            j += 1;
        }
        j
    };
    let hex = rest.starts_with("0x")
        && (rest.as_bytes().get(2).is_some_and(u8::is_ascii_hexdigit)
            || (rest.as_bytes().get(2) == Some(&b'.')
                && rest.as_bytes().get(3).is_some_and(u8::is_ascii_hexdigit)));
    let start = if hex { i + 2 } else { i };
    let int_end = digits(start, hex);
    let mut end = int_end;
    let mut frac_end = int_end;
    if end < b.len() && b[end] == b'.' {
        frac_end = digits(end + 1, hex);
        end = frac_end;
    }
    let ndigits = (int_end - start) + frac_end.saturating_sub(int_end + 1);
    if ndigits == 0 {
        return None;
    }
    let mut exp: i32 = 0;
    let e = if hex { b'p' } else { b'e' };
    if end < b.len() && b[end].to_ascii_lowercase() == e {
        let mut j = end + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let k = digits(j, false);
        if k > j {
            exp = t[end + 1..k]
                .parse::<i32>()
                .unwrap_or(if b[end + 1] == b'-' {
                    i32::MIN
                } else {
                    i32::MAX
                });
            end = k;
        }
    }
    let v: f32 = if hex {
        let mut m = 0f64;
        for &c in &b[start..int_end] {
            m = m * 16.0 + (c as char).to_digit(16)? as f64;
        }
        let mut scale = 1.0 / 16.0;
        for &c in b.get(int_end + 1..frac_end).unwrap_or(&[]) {
            m += (c as char).to_digit(16)? as f64 * scale;
            scale /= 16.0;
        }
        (m * 2f64.powi(exp.clamp(-2000, 2000))) as f32 * sign
    } else {
        t[..end].parse::<f32>().ok()?
    };
    // stof reports ERANGE (an error in Soufflé) on overflow and on underflow to
    // a subnormal or zero value from nonzero digits.
    let nonzero = b[start..end.min(frac_end.max(int_end))]
        .iter()
        .any(|c| c.is_ascii_alphanumeric() && *c != b'0');
    (v.is_finite() && (v.is_normal() || !nonzero)).then_some(v)
}

/// Numeric conversion between number/unsigned/float (C++ cast semantics).
pub fn convert(from: Base, to: Base, v: u32) -> u32 {
    let as_f64 = match from {
        Base::Num => (v as i32) as f64,
        Base::Uns => v as f64,
        Base::Flt => f(v) as f64,
        Base::Sym | Base::Rec(_) => unreachable!(),
    };
    match (from, to) {
        (Base::Num, Base::Uns) | (Base::Uns, Base::Num) => v,
        (_, Base::Num) => as_f64 as i32 as u32,
        (_, Base::Uns) => as_f64 as i64 as u32,
        (_, Base::Flt) => (as_f64 as f32).to_bits(),
        _ => v,
    }
}

/// Soufflé's `substr(s, start, len)`: byte offsets; a start outside the string
/// yields "" with a warning, a length past the end is clipped.
pub fn substr(s: &str, start: i32, len: i32) -> String {
    let bytes = s.as_bytes();
    if start < 0 || start as usize > bytes.len() {
        eprintln!(
            "warning: wrong index position provided by substr(\"{s}\",{start},{len}) functor."
        );
        return String::new();
    }
    let start = start as usize;
    let end = if len < 0 {
        bytes.len()
    } else {
        (start + len as usize).min(bytes.len())
    };
    String::from_utf8_lossy(&bytes[start..end]).into_owned()
}

/// The values of `range(from, to[, step])` in Soufflé's order: `to` is
/// excluded; without a step it is 1, or -1 when `from > to` (for unsigned, a
/// descending walk); a zero step gives `from` once unless `from = to`.
/// Integer steps cannot overflow here (64-bit counters); a float step too
/// small to move stops after its first value.
pub fn range(
    base: Base,
    from: u32,
    to: u32,
    step: Option<u32>,
    f: &mut dyn FnMut(u32) -> Result<()>,
) -> Result<()> {
    match base {
        Base::Flt => {
            let (a, b) = (f32::from_bits(from), f32::from_bits(to));
            let s = step.map_or(if a <= b { 1.0 } else { -1.0 }, f32::from_bits);
            let mut x = a;
            while (s > 0.0 && x < b) || (s < 0.0 && b < x) {
                f(x.to_bits())?;
                if x + s == x {
                    break;
                }
                x += s;
            }
            if s == 0.0 && a != b {
                f(from)?;
            }
        }
        Base::Uns => {
            let (a, b) = (from as i64, to as i64);
            let s = step.map_or(if a <= b { 1 } else { -1 }, |s| s as i64);
            int_range(a, b, s, f)?;
        }
        _ => {
            let (a, b) = (from as i32 as i64, to as i32 as i64);
            let s = step.map_or(if a <= b { 1 } else { -1 }, |s| s as i32 as i64);
            int_range(a, b, s, f)?;
        }
    }
    Ok(())
}

fn int_range(a: i64, b: i64, s: i64, f: &mut dyn FnMut(u32) -> Result<()>) -> Result<()> {
    let mut x = a;
    while (s > 0 && x < b) || (s < 0 && b < x) {
        f(x as u32)?;
        x += s;
    }
    if s == 0 && a != b {
        f(a as u32)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::format_float;

    #[test]
    fn floats_print_like_c_percent_9g() {
        // Expected strings are what printf("%.9g", (double)x) prints for these f32 values.
        assert_eq!(format_float(1.0 / 3.0), "0.333333343");
        assert_eq!(format_float(0.1), "0.100000001");
        assert_eq!(format_float(1e10), "1e+10");
        assert_eq!(format_float(2.5), "2.5");
        assert_eq!(format_float(-2.0), "-2");
        assert_eq!(format_float(123456789.0), "123456792");
        assert_eq!(format_float(1e-5), "9.99999975e-06");
        assert_eq!(format_float(0.0001), "9.99999975e-05");
        assert_eq!(format_float(0.001), "0.00100000005");
        assert_eq!(format_float(0.0), "0");
        assert_eq!(format_float(f32::NAN), "nan");
        assert_eq!(format_float(f32::INFINITY), "inf");
    }
}
