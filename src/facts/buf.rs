//! Per-worker fact buffers: tuples are formatted straight into one byte buffer per relation,
//! so workers never share a lock; buffers are concatenated in a fixed order afterwards.
//!
//! Field escaping (Soufflé's default reader takes symbols verbatim, a tab ends a field, a
//! newline ends a tuple and a trailing CR is dropped): `\` becomes `\\`, tab `\t`, newline
//! `\n`, carriage return `\r`; other control bytes, DEL and bytes that are not valid UTF-8
//! become `\xHH`. Everything else, quotes included, is written as is. [`unescape`] inverts it.

use std::sync::{Arc, Mutex};

use crate::facts::registry::{self, Kind, Rel};

/// A value for one column.
pub trait Field {
    const KIND: Kind;
    fn put(&self, out: &mut Vec<u8>);
}

/// Symbol fields: text or raw bytes (LLVM names need not be UTF-8), escaped on output.
macro_rules! symbol_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            const KIND: Kind = Kind::Symbol;
            fn put(&self, out: &mut Vec<u8>) {
                let bytes: &[u8] = self.as_ref();
                escape_into(bytes, out)
            }
        }
    )*};
}

symbol_field!(&str, String, &String, &[u8], Vec<u8>, &Vec<u8>);

/// An id, kept in its written (escaped) form: ids are built once and written many times.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Id(Arc<[u8]>);

impl Id {
    /// An id for raw bytes (escaping them).
    pub fn new(raw: &[u8]) -> Id {
        if !needs_escape(raw) {
            return Id::concat(&[raw]);
        }
        let mut out = Vec::with_capacity(raw.len() + 8);
        escape_into(raw, &mut out);
        Id::concat(&[&out])
    }

    /// Concatenates parts that are already escaped (ids, or ASCII punctuation and digits).
    /// One allocation, of the exact size: ids are made for nearly every value.
    pub fn concat(parts: &[&[u8]]) -> Id {
        let len = parts.iter().map(|p| p.len()).sum();
        let mut id = Arc::<[u8]>::new_uninit_slice(len);
        let dst = Arc::get_mut(&mut id).expect("a new Arc is unique");
        let mut at = 0;
        for p in parts {
            // SAFETY: `dst` has room for every part, and each byte is written once.
            unsafe {
                std::ptr::copy_nonoverlapping(p.as_ptr(), dst[at..].as_mut_ptr().cast(), p.len())
            };
            at += p.len();
        }
        // SAFETY: all `len` bytes were written above.
        Id(unsafe { id.assume_init() })
    }

    /// `parent`, a separator and a decimal index: `a:@f:%bb` → `a:@f:%bb:3`.
    pub fn child(&self, sep: u8, index: usize) -> Id {
        let mut buf = itoa_buf();
        Id::concat(&[&self.0, &[sep], decimal(index as i64, &mut buf)])
    }

    /// The written form.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// A slice of an [`Id`]'s written form.
pub struct Escaped<'a>(pub &'a [u8]);

impl Field for Id {
    const KIND: Kind = Kind::Symbol;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0)
    }
}

impl Field for &Id {
    const KIND: Kind = Kind::Symbol;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0)
    }
}

impl Field for Escaped<'_> {
    const KIND: Kind = Kind::Symbol;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.0)
    }
}

impl Field for i32 {
    const KIND: Kind = Kind::Number;
    fn put(&self, out: &mut Vec<u8>) {
        push_decimal(*self as i64, out);
    }
}

/// Appends `v` in decimal without allocating.
pub fn push_decimal(v: i64, out: &mut Vec<u8>) {
    let mut buf = itoa_buf();
    out.extend_from_slice(decimal(v, &mut buf));
}

fn itoa_buf() -> [u8; 24] {
    [0; 24]
}

/// `v` in decimal, spelled into `buf`.
pub fn decimal(v: i64, buf: &mut [u8; 24]) -> &[u8] {
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

/// Converts a count, size or index to a number column value, if it fits.
pub fn num<T: TryInto<i32>>(v: T) -> Option<i32> {
    v.try_into().ok()
}

/// One byte buffer and tuple count per relation.
pub struct FactBuf {
    bufs: Vec<Vec<u8>>,
    counts: Vec<u64>,
}

impl Default for FactBuf {
    fn default() -> Self {
        Self::new()
    }
}

/// Buffers given back once written out, for reuse: fresh memory costs a page fault per
/// 4 KiB, and the output is hundreds of times the size of the bitcode.
static SPARE: Mutex<Vec<FactBuf>> = Mutex::new(Vec::new());
/// Enough for every buffer in flight between the workers and a writer.
const MAX_SPARE: usize = 64;

impl FactBuf {
    /// An empty buffer (one given back by [`FactBuf::recycle`] if there is one).
    pub fn new() -> Self {
        let spare = SPARE.lock().unwrap_or_else(|e| e.into_inner()).pop();
        spare.unwrap_or_else(|| FactBuf {
            bufs: vec![Vec::new(); registry::count()],
            counts: vec![0; registry::count()],
        })
    }

    /// Gives the buffer's memory back for reuse by [`FactBuf::new`].
    pub fn recycle(mut self) {
        for b in &mut self.bufs {
            b.clear();
        }
        self.counts.fill(0);
        let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < MAX_SPARE {
            spare.push(self);
        }
    }

    /// Appends one tuple; callers go through [`fact!`](crate::fact) for readability.
    pub fn emit<R: Row>(&mut self, rel: Rel, row: R) {
        if cfg!(debug_assertions) {
            check_shape(rel, &R::kinds());
        }
        self.counts[rel as usize] += 1;
        row.put(&mut self.bufs[rel as usize]);
    }

    pub fn buffer(&self, rel: usize) -> &[u8] {
        &self.bufs[rel]
    }

    pub fn count(&self, rel: usize) -> u64 {
        self.counts[rel]
    }

    /// Sends the buffer to another process: per relation, the tuple count, the byte length
    /// and the bytes (little-endian u64s).
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        for (buf, n) in self.bufs.iter().zip(&self.counts) {
            w.write_all(&n.to_le_bytes())?;
            w.write_all(&(buf.len() as u64).to_le_bytes())?;
            w.write_all(buf)?;
        }
        Ok(())
    }

    /// Reads what [`FactBuf::write_to`] wrote.
    pub fn read_from(r: &mut dyn std::io::Read) -> std::io::Result<FactBuf> {
        use std::io::Read;
        let mut out = FactBuf::new();
        let mut word = [0u8; 8];
        for (buf, n) in out.bufs.iter_mut().zip(out.counts.iter_mut()) {
            r.read_exact(&mut word)?;
            *n = u64::from_le_bytes(word);
            r.read_exact(&mut word)?;
            let len = u64::from_le_bytes(word);
            buf.reserve_exact(len as usize);
            if (&mut *r).take(len).read_to_end(buf)? as u64 != len {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
        }
        Ok(out)
    }

    /// Appends another buffer's tuples after this one's.
    pub fn append(&mut self, other: FactBuf) {
        for (i, (buf, n)) in other.bufs.into_iter().zip(other.counts).enumerate() {
            if self.bufs[i].is_empty() {
                self.bufs[i] = buf;
            } else {
                self.bufs[i].extend_from_slice(&buf);
            }
            self.counts[i] += n;
        }
    }
}

/// `fact!(out, relation_name, field, ...)` appends one tuple to a [`FactBuf`].
#[macro_export]
macro_rules! fact {
    ($out:expr, $rel:ident, $($field:expr),+ $(,)?) => {
        $out.emit($crate::facts::registry::Rel::$rel, ($($field,)+))
    };
}

/// A tuple of fields, written tab-separated with a final newline.
pub trait Row {
    fn kinds() -> Vec<Kind>;
    fn put(&self, out: &mut Vec<u8>);
}

macro_rules! impl_row {
    ($first:ident $fi:tt $(, $t:ident $i:tt)*) => {
        impl<$first: Field $(, $t: Field)*> Row for ($first, $($t,)*) {
            fn kinds() -> Vec<Kind> {
                vec![$first::KIND $(, $t::KIND)*]
            }
            fn put(&self, out: &mut Vec<u8>) {
                self.$fi.put(out);
                $( out.push(b'\t'); self.$i.put(out); )*
                out.push(b'\n');
            }
        }
    };
}

impl_row!(A 0);
impl_row!(A 0, B 1);
impl_row!(A 0, B 1, C 2);
impl_row!(A 0, B 1, C 2, D 3);
impl_row!(A 0, B 1, C 2, D 3, E 4);

fn check_shape(rel: Rel, kinds: &[Kind]) {
    let info = rel.info();
    let expected: Vec<Kind> = info.columns.iter().map(|c| c.kind).collect();
    assert_eq!(
        expected, kinds,
        "fact shape mismatch for relation {}",
        info.name
    );
}

/// Escapes one field (see the module docs).
pub fn escape_into(bytes: &[u8], out: &mut Vec<u8>) {
    // Fast path: almost every field is printable ASCII without backslashes.
    if !needs_escape(bytes) {
        out.extend_from_slice(bytes);
        return;
    }
    let mut rest = bytes;
    while !rest.is_empty() {
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s.as_bytes(), &[][..]),
            Err(e) => rest.split_at(e.valid_up_to()),
        };
        for &b in valid {
            match b {
                b'\\' => out.extend_from_slice(b"\\\\"),
                b'\t' => out.extend_from_slice(b"\\t"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                0..=0x1f | 0x7f => hex_byte(b, out),
                _ => out.push(b),
            }
        }
        if bad.is_empty() {
            break;
        }
        // One undecodable byte at a time; decoding resumes after it.
        hex_byte(bad[0], out);
        rest = &bad[1..];
    }
}

/// Whether any byte is outside printable ASCII or is a backslash, eight bytes at a time.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let v = u64::from_le_bytes(chunk.try_into().unwrap());
        // Bytes >= 0x80, then (all bytes now < 0x80) bytes < 0x20, 0x7f and '\\'.
        if v & HIGH != 0
            || v.wrapping_sub(0x20 * ONES) & !v & HIGH != 0
            || has_zero(v ^ (0x7f * ONES))
            || has_zero(v ^ (b'\\' as u64 * ONES))
        {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|&b| !(0x20..0x7f).contains(&b) || b == b'\\')
}

fn hex_byte(b: u8, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(&[b'\\', b'x', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
}

/// Inverse of [`escape_into`]. Returns `None` for text that no escaping could produce.
pub fn unescape(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        match bytes.get(i + 1)? {
            b'\\' => out.push(b'\\'),
            b't' => out.push(b'\t'),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b'x' => {
                let hex = text.get(i + 2..i + 4)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            _ => return None,
        }
        i += 2;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips_every_byte_pattern() {
        let samples: Vec<Vec<u8>> = vec![
            b"plain".to_vec(),
            b"tab\there".to_vec(),
            b"new\nline\r\n".to_vec(),
            b"back\\slash \\x41 \"quoted\"".to_vec(),
            vec![0xff, b'a', 0xc3, 0xa9, 0xc3, 0x00, 0x7f, 0x1b],
            (0u8..=255).collect(),
            "ünïcødé ✓".as_bytes().to_vec(),
        ];
        for s in samples {
            let mut out = Vec::new();
            escape_into(&s, &mut out);
            let text = String::from_utf8(out).expect("escaped text is UTF-8");
            assert!(!text.contains('\t') && !text.contains('\n') && !text.contains('\r'));
            assert_eq!(unescape(&text).unwrap(), s, "round trip of {text}");
        }
    }

    #[test]
    fn word_scan_agrees_with_byte_scan() {
        let slow = |b: &[u8]| b.iter().any(|&c| !(0x20..0x7f).contains(&c) || c == b'\\');
        for special in [0u8, 0x1f, 0x20, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0xff] {
            for len in 1..20 {
                for pos in 0..len {
                    let mut v = vec![b'a'; len];
                    v[pos] = special;
                    assert_eq!(
                        needs_escape(&v),
                        slow(&v),
                        "byte {special:#x} at {pos} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn escaping_spells_documented_forms() {
        let mut out = Vec::new();
        escape_into(b"a\tb\\c\nd\xffe", &mut out);
        assert_eq!(out, b"a\\tb\\\\c\\nd\\xffe");
    }

    #[test]
    fn numbers_format_like_decimal() {
        let mut b = itoa_buf();
        assert_eq!(decimal(0, &mut b), b"0");
        assert_eq!(decimal(-2147483648, &mut b), b"-2147483648");
        assert_eq!(decimal(2147483647, &mut b), b"2147483647");
    }
}
