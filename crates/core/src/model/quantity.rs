//! Kubernetes `resource.Quantity` parsing, exact enough to reproduce the
//! scheduler's integer arithmetic.
//!
//! Upstream keeps quantities as exact decimals, sums them exactly, and only
//! converts to integers with `MilliValue()` / `Value()`, both rounding up.
//! We keep an exact value in nano-units (`i128`), which is the finest scale
//! a Kubernetes quantity can carry, so sums stay exact and conversion rounds
//! up the same way.

/// An exact quantity in nano-units (10^-9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Quantity(i128);

const NANO: i128 = 1_000_000_000;

/// Why a quantity string is not a valid Kubernetes quantity, in
/// apimachinery's words (`ErrFormatWrong`, `ErrSuffix`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error(
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (got {0:?})"
    )]
    Format(String),
    #[error("unable to parse quantity's suffix (got {0:?})")]
    Suffix(String),
}

/// The largest value a binary-SI quantity keeps (`maxAllowed`, 2^63-1 units).
const MAX_BINARY_NANOS: i128 = i64::MAX as i128 * NANO;

impl Quantity {
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

    /// Parses a quantity as apimachinery's `ParseQuantity` does: the same
    /// strings are accepted (`"."` and `"+"` are zero, `1.G` is a gigabyte),
    /// a decimal exponent is read as an int64 and kept as an int32, and the
    /// value is exact, rounded up (away from zero) to a nano-unit. Values
    /// beyond what an `i128` of nano-units holds saturate, so `1e2147483647`
    /// is simply larger than any node; binary-SI values cap at 2^63-1 units
    /// as upstream's do. Arithmetic is bounded whatever the exponent.
    pub fn parse(input: &str) -> Result<Self, QuantityError> {
        let s = input.trim();
        if s.is_empty() {
            return Err(QuantityError::Format(input.to_string()));
        }
        let parts = split_quantity(s).ok_or_else(|| QuantityError::Format(input.to_string()))?;
        let (binary, exponent) = interpret_suffix(parts.suffix)
            .ok_or_else(|| QuantityError::Suffix(input.to_string()))?;
        let mut nanos = if binary {
            exact_nanos(parts.num, parts.denom, 0, exponent as u32)
        } else {
            exact_nanos(parts.num, parts.denom, exponent as i64, 0)
        };
        if binary && nanos > MAX_BINARY_NANOS {
            nanos = MAX_BINARY_NANOS;
        }
        Ok(Quantity(if parts.positive { nanos } else { -nanos }))
    }

    /// Whether the value is below zero (`ValidateNonnegativeQuantity`).
    pub fn is_negative(self) -> bool {
        self.0 < 0
    }
}

/// The pieces `parseQuantityString` finds: sign, integer digits (leading
/// zeros stripped), fraction digits and the suffix.
struct Parts<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// A port of apimachinery's `parseQuantityString` (`None` = `ErrFormatWrong`).
fn split_quantity(s: &str) -> Option<Parts<'_>> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b[0] {
        b'-' => {
            positive = false;
            pos += 1;
        }
        b'+' => pos += 1,
        _ => {}
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    let zero = Parts {
        positive,
        num: "",
        denom: "",
        suffix: "",
    };
    if pos >= end {
        return Some(zero);
    }
    let num_start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let num = &s[num_start..pos];
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let d = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[d..pos];
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return None;
    }
    Some(Parts {
        positive,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// `suffixer.interpret`: `(binary, exponent)`; a decimal exponent is parsed
/// as an int64 and truncated to an int32, as upstream does.
fn interpret_suffix(suffix: &str) -> Option<(bool, i32)> {
    Some(match suffix {
        "" => (false, 0),
        "n" => (false, -9),
        "u" => (false, -6),
        "m" => (false, -3),
        "k" => (false, 3),
        "M" => (false, 6),
        "G" => (false, 9),
        "T" => (false, 12),
        "P" => (false, 15),
        "E" => (false, 18),
        "Ki" => (true, 10),
        "Mi" => (true, 20),
        "Gi" => (true, 30),
        "Ti" => (true, 40),
        "Pi" => (true, 50),
        "Ei" => (true, 60),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E']).filter(|r| !r.is_empty())?;
            (false, rest.parse::<i64>().ok()? as i32)
        }
    })
}

/// Significant digits kept exactly; beyond them only "was anything
/// non-zero" matters (see [`exact_nanos`]).
const KEPT_DIGITS: usize = 60;

/// `num.denom × 10^dec_exp × 2^bin_exp` in nano-units, rounded up, saturating
/// at `i128::MAX`. Exact: past [`KEPT_DIGITS`] significant digits a value is
/// either saturated or its dropped digits are worth less than 10^-21 nanos,
/// so only whether they are non-zero decides the rounding.
fn exact_nanos(num: &str, denom: &str, dec_exp: i64, bin_exp: u32) -> i128 {
    small_nanos(num, denom, dec_exp, bin_exp)
        .unwrap_or_else(|| big_nanos(num, denom, dec_exp, bin_exp))
}

/// [`exact_nanos`] in `i128` arithmetic, for the quantities pods and nodes
/// write (`100m`, `512Mi`, `3.5`): `None` when a step would not be exact
/// there, so the big-integer path decides. Loading 150,000 pods parses
/// about half a million quantities (#15).
fn small_nanos(num: &str, denom: &str, dec_exp: i64, bin_exp: u32) -> Option<i128> {
    // At most 30 digits: below 10^30, so times 2^60 stays below 2^160
    // only when checked; every product below is checked.
    if num.len() + denom.len() > 30 || bin_exp > 60 {
        return None;
    }
    let mut value: i128 = 0;
    for d in num.bytes().chain(denom.bytes()) {
        value = value * 10 + i128::from(d - b'0');
    }
    if value == 0 {
        return Some(0);
    }
    value = value.checked_mul(1i128 << bin_exp)?;
    let scale = dec_exp.checked_sub(denom.len() as i64)?.checked_add(9)?;
    if scale >= 0 {
        let factor = 10i128.checked_pow(u32::try_from(scale).ok()?)?;
        return value.checked_mul(factor);
    }
    let divisor = 10i128.checked_pow(u32::try_from(-scale).ok()?)?;
    let (whole, remainder) = (value / divisor, value % divisor);
    Some(if remainder != 0 { whole + 1 } else { whole })
}

/// [`exact_nanos`] with a big integer: any number of digits and exponents.
fn big_nanos(num: &str, denom: &str, dec_exp: i64, bin_exp: u32) -> i128 {
    let digits = num.bytes().chain(denom.bytes()).skip_while(|&d| d == b'0');
    let mut big = Big::default();
    let mut count: i64 = 0;
    let mut sticky = false;
    for d in digits {
        if (count as usize) < KEPT_DIGITS {
            big.mul_add(10, u32::from(d - b'0'));
        } else {
            sticky |= d != b'0';
        }
        count += 1;
    }
    if big.is_zero() {
        return 0;
    }
    let kept = count.min(KEPT_DIGITS as i64);
    // value = big × 10^scale × 2^bin_exp nanos (+ dropped digits).
    let scale = dec_exp
        .saturating_sub(denom.len() as i64)
        .saturating_add(count - kept)
        .saturating_add(9);
    for _ in 0..bin_exp {
        big.mul_add(2, 0);
    }
    if scale >= 0 {
        // big ≥ 1, so 10^39 nanos or more is past i128::MAX.
        if scale > 39 {
            return i128::MAX;
        }
        for _ in 0..scale {
            big.mul_add(10, 0);
        }
        return big.to_i128().unwrap_or(i128::MAX);
    }
    // big < 2^260, so dividing by 10^90 or more leaves a fraction of one nano.
    let k = (-scale).min(90);
    let mut remainder = sticky;
    for _ in 0..k {
        remainder |= big.div_small(10) != 0;
    }
    let whole = big.to_i128().unwrap_or(i128::MAX);
    if remainder {
        whole.saturating_add(1)
    } else {
        whole
    }
}

/// A small unsigned big integer (little-endian base 2^32), enough for
/// [`KEPT_DIGITS`] digits times 2^60 times 10^39.
#[derive(Default)]
struct Big(Vec<u32>);

impl Big {
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// Divides in place, returning the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem: u64 = 0;
        for limb in self.0.iter_mut().rev() {
            let v = (rem << 32) | u64::from(*limb);
            *limb = (v / u64::from(d)) as u32;
            rem = v % u64::from(d);
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        rem as u32
    }

    fn is_zero(&self) -> bool {
        self.0.iter().all(|&l| l == 0)
    }

    fn to_i128(&self) -> Option<i128> {
        let mut v: u128 = 0;
        for (i, &limb) in self.0.iter().enumerate() {
            if limb == 0 {
                continue;
            }
            if i >= 4 {
                return None;
            }
            v |= u128::from(limb) << (32 * i);
        }
        i128::try_from(v).ok()
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

/// `500m`, `2`: the API's canonical CPU form.
pub fn cpu_quantity(milli: i64) -> String {
    if milli % 1000 == 0 {
        (milli / 1000).to_string()
    } else {
        format!("{milli}m")
    }
}

/// `256Mi`, `1Gi`: binary suffixes when exact, else bytes.
pub fn bytes_quantity(bytes: i64) -> String {
    const UNITS: [(&str, i64); 4] = [
        ("Ti", 1 << 40),
        ("Gi", 1 << 30),
        ("Mi", 1 << 20),
        ("Ki", 1 << 10),
    ];
    for (suffix, size) in UNITS {
        if bytes != 0 && bytes % size == 0 {
            return format!("{}{suffix}", bytes / size);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `i128` path gives what the big-integer path gives wherever it
    /// answers, and answers for the usual requests.
    #[test]
    fn small_nanos_agrees_with_big_nanos() {
        let nums = [
            "",
            "0",
            "1",
            "7",
            "10",
            "100",
            "125",
            "999999",
            "123456789012345678",
            "000500",
            "340282366920938463463374607431",
        ];
        let denoms = ["", "0", "5", "25", "001", "123456789", "1234567890123"];
        let mut answered = 0;
        for num in nums {
            for denom in denoms {
                for dec_exp in [-20, -12, -9, -6, -3, 0, 3, 6, 9, 12, 15, 18, 25, 30, 40] {
                    for bin_exp in [0, 10, 20, 30, 40, 50, 60] {
                        let big = big_nanos(num, denom, dec_exp, bin_exp);
                        if let Some(small) = small_nanos(num, denom, dec_exp, bin_exp) {
                            assert_eq!(small, big, "{num}.{denom}e{dec_exp} x 2^{bin_exp}");
                            answered += 1;
                        }
                    }
                }
            }
        }
        assert!(answered > 3000, "the i128 path answered only {answered}");
        for s in [
            "100m",
            "512Mi",
            "3.5",
            "2Gi",
            "250m",
            "1",
            "110",
            "31391344Ki",
            "95551679124",
        ] {
            let p = split_quantity(s).unwrap();
            let (binary, exp) = interpret_suffix(p.suffix).unwrap();
            let (dec, bin) = if binary {
                (0, exp as u32)
            } else {
                (exp as i64, 0)
            };
            assert!(small_nanos(p.num, p.denom, dec, bin).is_some(), "{s}");
        }
    }

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
        for bad in [
            "",
            "abc",
            "1.2.3",
            "5Xi",
            "--1",
            "1e",
            "1e+",
            "1Ki5",
            "1e99999999999999999999",
        ] {
            assert!(Quantity::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn accepts_what_apimachinery_accepts() {
        // parseQuantityString reads these as zero or as a plain number.
        assert_eq!(q("."), Quantity::from_units(0));
        assert_eq!(q("+"), Quantity::from_units(0));
        assert_eq!(q("-0"), Quantity::from_units(0));
        assert_eq!(q("1.G").value(), 1_000_000_000);
        assert_eq!(q(".5").milli_value(), 500);
        assert_eq!(q("1E").value(), 1_000_000_000_000_000_000);
        assert_eq!(q("1E3").value(), 1000);
        assert_eq!(q("1e+3").value(), 1000);
    }

    #[test]
    fn huge_exponents_saturate_instead_of_wrapping() {
        let huge = q("1e2147483647");
        assert_eq!(huge.milli_value(), i64::MAX);
        assert_eq!(huge.value(), i64::MAX);
        assert!(!huge.is_negative());
        // The int64 exponent is kept as an int32, as upstream does: 2^32 + 3 is 3.
        assert_eq!(q("1e4294967299").value(), 1000);
        assert_eq!(q("1e-2147483648").milli_value(), 1, "tiny rounds up");
        assert_eq!(q("-1e2147483647").milli_value(), i64::MIN);
    }

    #[test]
    fn huge_exponents_are_fast() {
        let started = std::time::Instant::now();
        for s in ["1e2147483638", "1e-2147483638", "9e2147483647", "1Ei"] {
            Quantity::parse(s).unwrap();
        }
        assert!(started.elapsed() < std::time::Duration::from_millis(100));
    }

    #[test]
    fn binary_caps_at_int64() {
        assert_eq!(q("8Ei").value(), i64::MAX);
        assert_eq!(q("7Ei").value(), 7 << 60);
    }

    #[test]
    fn long_digit_strings_stay_exact() {
        let many = format!("0.{}1", "0".repeat(100));
        assert_eq!(
            q(&many).nanos(),
            1,
            "a non-zero fraction of a nano rounds up"
        );
        let long = format!("1{}", "0".repeat(30));
        assert_eq!(q(&long).nanos(), i128::MAX, "10^39 nanos saturates");
        let big = format!("1{}", "0".repeat(20));
        assert_eq!(q(&big).nanos(), 10i128.pow(29));
        let exact = format!("1.{}", "0".repeat(200));
        assert_eq!(q(&exact).nanos(), NANO);
        assert_eq!(q("1.5Gi").nanos(), 1610612736 * NANO);
        assert_eq!(q("0.1Ki").nanos(), 102_400_000_000);
    }

    #[test]
    fn negatives_parse_and_say_so() {
        assert!(q("-1").is_negative());
        assert_eq!(q("-1").milli_value(), -1000);
        assert_eq!(q("-0.5n").nanos(), -1, "rounds away from zero");
    }
}
