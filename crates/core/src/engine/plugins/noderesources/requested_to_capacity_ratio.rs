//! `requested_to_capacity_ratio.go`: a piecewise-linear function of each
//! resource's utilization, given by the configured shape.

use crate::engine::profile::ShapePoint;

use super::super::MAX_NODE_SCORE;

/// `config.MaxCustomPriorityScore`: shape scores run 0–10.
const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;
const MAX_UTILIZATION: i64 = 100;

/// `helper.BuildBrokenLinearFunction` over the shape with scores scaled to
/// 0–100.
fn broken_linear(shape: &[ShapePoint], p: i64) -> i64 {
    let scale = MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
    let point = |i: usize| {
        (
            i64::from(shape[i].utilization),
            i64::from(shape[i].score) * scale,
        )
    };
    for i in 0..shape.len() {
        let (u, s) = point(i);
        if p <= u {
            if i == 0 {
                return s;
            }
            let (pu, ps) = point(i - 1);
            return ps + (s - ps) * (p - pu) / (u - pu);
        }
    }
    shape.last().map_or(0, |_| point(shape.len() - 1).1)
}

/// The score of one resource: utilization through the shape; a request
/// above capacity (or no capacity) is full utilization.
pub fn resource_score(shape: &[ShapePoint], requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return broken_linear(shape, MAX_UTILIZATION);
    }
    // Go's int64 product wraps past 2^63; so does this one.
    broken_linear(shape, requested.wrapping_mul(MAX_UTILIZATION) / capacity)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(points: &[(i32, i32)]) -> Vec<ShapePoint> {
        points
            .iter()
            .map(|&(utilization, score)| ShapePoint { utilization, score })
            .collect()
    }

    #[test]
    fn bin_packing_shape_interpolates_and_clamps() {
        let s = shape(&[(0, 0), (100, 10)]);
        assert_eq!(resource_score(&s, 0, 1000), 0);
        assert_eq!(resource_score(&s, 250, 1000), 25);
        assert_eq!(resource_score(&s, 999, 1000), 99);
        assert_eq!(resource_score(&s, 2000, 1000), 100, "over capacity is full");
        assert_eq!(resource_score(&s, 1, 0), 100, "no capacity is full");
    }

    #[test]
    fn spreading_shape_and_points_below_the_first() {
        let s = shape(&[(20, 10), (80, 0)]);
        assert_eq!(resource_score(&s, 100, 1000), 100, "below the first point");
        assert_eq!(resource_score(&s, 500, 1000), 50);
        assert_eq!(resource_score(&s, 900, 1000), 0, "beyond the last point");
    }
}
