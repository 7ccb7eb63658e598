//! Kubernetes `resource.Quantity` parsing, exact enough to reproduce the
//! scheduler's integer arithmetic.
//!
//! Upstream keeps quantities as exact decimals, sums them exactly, and only
//! converts to integers with `MilliValue()` / `Value()`, both rounding up.
//! We keep an exact value in nano-units (`i128`), which is the finest scale
//! a Kubernetes quantity can carry, so sums stay exact and conversion rounds
//! up the same way.

use std::fmt;

/// An exact quantity in nano-units (10^-9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Quantity(i128);

const NANO: i128 = 1_000_000_000;

/// Why a quantity string is not a valid Kubernetes quantity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityError(pub String);

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (got {:?})",
            self.0
        )
    }
}

impl Quantity {
    pub const ZERO: Quantity = Quantity(0);

    pub fn from_nanos(n: i128) -> Self {
        Quantity(n)
    }

    pub fn from_milli(m: i64) -> Self {
        Quantity(m as i128 * 1_000_000)
    }

    pub fn from_units(v: i64) -> Self {
        Quantity(v as i128 * NANO)
    }

    pub fn nanos(self) -> i128 {
        self.0
    }

    /// `MilliValue()`: milli-units, rounded up.
    pub fn milli_value(self) -> i64 {
        clamp_i64(ceil_div(self.0, 1_000_000))
    }

    /// `Value()`: whole units, rounded up.
    pub fn value(self) -> i64 {
        clamp_i64(ceil_div(self.0, NANO))
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// Parses the Kubernetes quantity grammar: a signed decimal number and an
    /// optional suffix (binary SI `Ki`..`Ei`, decimal SI `n u m k M G T P E`,
    /// or a decimal exponent `e3`/`E-2`). Values finer than a nano-unit round up.
    pub fn parse(input: &str) -> Result<Self, QuantityError> {
        let err = || QuantityError(input.to_string());
        let s = input.trim();
        if s.is_empty() {
            return Err(err());
        }
        let (negative, rest) = match s.as_bytes()[0] {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, suffix) = rest.split_at(num_end);
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(err());
        }
        let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
        let digits: String = format!("{int_part}{frac_part}");
        // Mantissa and the power of ten that scales it.
        let mut mantissa: i128 = 0;
        let mut dec_exp: i32 = -(frac_part.len() as i32);
        for (i, b) in digits.bytes().enumerate() {
            if mantissa > i128::MAX / 100 {
                // Too many digits: drop the rest, keeping the magnitude.
                dec_exp += (digits.len() - i) as i32;
                break;
            }
            mantissa = mantissa * 10 + (b - b'0') as i128;
        }
        let mut bin_exp: u32 = 0;
        match suffix {
            "" => {}
            "Ki" => bin_exp = 10,
            "Mi" => bin_exp = 20,
            "Gi" => bin_exp = 30,
            "Ti" => bin_exp = 40,
            "Pi" => bin_exp = 50,
            "Ei" => bin_exp = 60,
            "n" => dec_exp -= 9,
            "u" => dec_exp -= 6,
            "m" => dec_exp -= 3,
            "k" => dec_exp += 3,
            "M" => dec_exp += 6,
            "G" => dec_exp += 9,
            "T" => dec_exp += 12,
            "P" => dec_exp += 15,
            "E" => dec_exp += 18,
            _ => {
                let exp = suffix
                    .strip_prefix(['e', 'E'])
                    .ok_or_else(err)?
                    .parse::<i32>()
                    .map_err(|_| err())?;
                dec_exp += exp;
            }
        }
        // value in nanos = mantissa * 10^(dec_exp + 9) * 2^bin_exp, rounded up.
        let scale = dec_exp + 9;
        let mut nanos = mantissa;
        if bin_exp > 0 {
            nanos = nanos.saturating_mul(1i128 << bin_exp);
        }
        if scale >= 0 {
            for _ in 0..scale {
                nanos = nanos.saturating_mul(10);
            }
        } else {
            let mut div: i128 = 1;
            for _ in 0..(-scale).min(38) {
                div = div.saturating_mul(10);
            }
            nanos = ceil_div(nanos, div);
        }
        Ok(Quantity(if negative { -nanos } else { nanos }))
    }
}

impl std::ops::Add for Quantity {
    type Output = Quantity;
    fn add(self, rhs: Quantity) -> Quantity {
        Quantity(self.0.saturating_add(rhs.0))
    }
}

impl std::ops::AddAssign for Quantity {
    fn add_assign(&mut self, rhs: Quantity) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

fn ceil_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && (a > 0) == (b > 0) {
        q + 1
    } else {
        q
    }
}

fn clamp_i64(v: i128) -> i64 {
    v.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn cpu_forms() {
        assert_eq!(q("2").milli_value(), 2000);
        assert_eq!(q("2710m").milli_value(), 2710);
        assert_eq!(q("0.5").milli_value(), 500);
        assert_eq!(q("1.5e3").value(), 1500);
        assert_eq!(q("100u").milli_value(), 1, "sub-milli rounds up");
    }

    #[test]
    fn memory_forms() {
        assert_eq!(q("128Mi").value(), 128 * 1024 * 1024);
        assert_eq!(q("15330304Ki").value(), 15330304 * 1024);
        assert_eq!(q("1G").value(), 1_000_000_000);
        assert_eq!(q("1.5Gi").value(), 1610612736);
        assert_eq!(q("1m").value(), 1, "Value() rounds up");
    }

    #[test]
    fn exact_sums_then_round() {
        let half_milli = q("0.5m");
        assert_eq!((half_milli + half_milli).milli_value(), 1);
        assert_eq!(half_milli.milli_value() * 2, 2);
    }

    #[test]
    fn rejects_garbage() {
        for bad in ["", "abc", "1.2.3", "5Xi", "--1", "."] {
            assert!(Quantity::parse(bad).is_err(), "{bad}");
        }
    }
}
