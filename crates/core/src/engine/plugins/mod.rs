//! The default profile's plugins, one module per upstream plugin directory
//! (`pkg/scheduler/framework/plugins/<name>`).

pub mod dynamicresources;
pub(crate) mod image_locality;
pub(crate) mod interpodaffinity;
pub(crate) mod node_affinity;
pub(crate) mod node_name;
pub(crate) mod node_ports;
pub mod node_unschedulable;
pub(crate) mod noderesources;
pub mod nodevolumelimits;
pub mod podtopologyspread;
pub mod taint_toleration;
pub mod volumebinding;
pub mod volumerestrictions;
pub mod volumezone;

/// `MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

/// `int64(math.Round(x))`: the nearest integer, halves away from zero, as
/// `x.round() as i64` gives it, without the call into libm that `round`
/// is on baseline x86-64 (no SSE4.1). PodTopologySpread rounds a raw
/// score for every feasible node of every placement.
#[inline]
pub fn round_to_i64(x: f64) -> i64 {
    // From 2^52 up every float is whole; those and NaN, which scoring
    // never gives, take the general path and keep its cast.
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x.round() as i64;
    }
    let whole = x as i64; // towards zero
    // Exact: x and its whole part share the exponent range, and the
    // fraction needs no more bits than x has.
    let fraction = x - whole as f64;
    if fraction >= 0.5 {
        whole + 1
    } else if fraction <= -0.5 {
        whole - 1
    } else {
        whole
    }
}

/// The smallest and largest raw score of a plugin over the nodes its
/// NormalizeScore reads: what every normalizer scales by. Found per part
/// of the nodes on both cores and joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawRange {
    min: i64,
    max: i64,
}

impl RawRange {
    /// No score yet.
    pub const EMPTY: RawRange = RawRange {
        min: i64::MAX,
        max: i64::MIN,
    };

    pub fn add(&mut self, score: i64) {
        self.min = self.min.min(score);
        self.max = self.max.max(score);
    }

    pub fn join(self, other: RawRange) -> RawRange {
        RawRange {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The smallest score, `None` when there is none.
    pub fn min(self) -> Option<i64> {
        (self.min <= self.max).then_some(self.min)
    }

    /// The largest score, `None` when there is none.
    pub fn max(self) -> Option<i64> {
        (self.min <= self.max).then_some(self.max)
    }
}

impl FromIterator<i64> for RawRange {
    fn from_iter<I: IntoIterator<Item = i64>>(scores: I) -> Self {
        let mut range = RawRange::EMPTY;
        for s in scores {
            range.add(s);
        }
        range
    }
}

/// `helper.DefaultNormalizeScore`: scales to 0..=100 by the maximum,
/// optionally reversed. Split in two (the maximum over all nodes, then each
/// node's score on its own) so the framework scales nodes where they are,
/// on both cores, instead of copying a column out and back.
#[derive(Clone, Copy, Debug)]
pub struct DefaultNormalizer {
    max: i64,
    reverse: bool,
}

impl DefaultNormalizer {
    /// Scaling by the raw scores' range (the maximum is what counts).
    pub fn new(range: RawRange, reverse: bool) -> Self {
        DefaultNormalizer {
            max: range.max().unwrap_or(0),
            reverse,
        }
    }

    /// One node's normalized score. With a maximum of 0 the scores stay
    /// as they are (all 100 when reversed).
    pub fn apply(&self, score: i64) -> i64 {
        if self.max == 0 {
            return if self.reverse { MAX_NODE_SCORE } else { score };
        }
        let v = MAX_NODE_SCORE * score / self.max;
        if self.reverse { MAX_NODE_SCORE - v } else { v }
    }
}

#[cfg(test)]
mod tests {
    use super::round_to_i64;

    /// Halves, their neighbours one ulp either side, whole numbers, signs,
    /// the 2^52 boundary and a sweep of fractions all round as
    /// `f64::round` does.
    #[test]
    fn round_to_i64_rounds_as_f64_round() {
        let mut values = vec![0.0, -0.0, 0.49999999999999994, -0.49999999999999994];
        for k in -2_000i64..=2_000 {
            let half = k as f64 + 0.5;
            values.extend([half, half.next_up(), half.next_down(), k as f64]);
            for step in 1..16 {
                values.push(k as f64 + step as f64 / 16.0);
            }
        }
        let big = 4_503_599_627_370_496.0f64; // 2^52
        values.extend([
            big,
            big.next_down(),
            big.next_down() - 0.5,
            -big.next_down(),
            big * 4.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
        ]);
        // Scores as PodTopologySpread forms them: counts times ln(size+2)
        // plus maxSkew - 1.
        for count in 0..500 {
            for size in 0..40 {
                values.push(count as f64 * ((size + 2) as f64).ln() + 2.0);
            }
        }
        for x in values {
            assert_eq!(round_to_i64(x), x.round() as i64, "rounding {x:?}");
        }
    }
}
