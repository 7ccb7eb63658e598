//! Human-readable quantities, as `kubectl top` and k9s print them.

/// The taints a person should see on a node, as `kubectl describe node`
/// prints them (`key=value:Effect`, `key:Effect` without a value): the
/// cordon's own `node.kubernetes.io/unschedulable` taint is left out on a
/// cordoned node, which says SchedulingDisabled instead.
pub fn taints(node: &crate::model::Node) -> impl Iterator<Item = String> + '_ {
    node.taints
        .iter()
        .filter(|t| !(node.unschedulable && &*t.key == "node.kubernetes.io/unschedulable"))
        .map(|t| {
            if t.value.is_empty() {
                format!("{}:{}", t.key, t.effect.as_str())
            } else {
                format!("{}={}:{}", t.key, t.value, t.effect.as_str())
            }
        })
}

/// Milli-CPU as cores: `250m`, `1.5`, `16`.
pub fn cpu(milli: i64) -> String {
    if milli == 0 {
        "0".to_string()
    } else if milli.abs() < 1000 {
        format!("{milli}m")
    } else if milli % 1000 == 0 {
        format!("{}", milli / 1000)
    } else {
        format!("{:.1}", milli as f64 / 1000.0)
    }
}

/// Bytes in binary units: `512Mi`, `1.5Gi`.
pub fn memory(bytes: i64) -> String {
    const KI: f64 = 1024.0;
    let b = bytes as f64;
    let abs = b.abs();
    if abs >= KI * KI * KI * KI {
        format!("{:.1}Ti", b / (KI * KI * KI * KI))
    } else if abs >= KI * KI * KI {
        let gi = b / (KI * KI * KI);
        if (gi - gi.round()).abs() < 0.05 {
            format!("{:.0}Gi", gi)
        } else {
            format!("{gi:.1}Gi")
        }
    } else if abs >= KI * KI {
        format!("{:.0}Mi", b / (KI * KI))
    } else if abs >= KI {
        format!("{:.0}Ki", b / KI)
    } else {
        format!("{bytes}")
    }
}

/// `part` of `whole` as a whole percentage; 0 when `whole` is 0.
pub fn percent(part: i64, whole: i64) -> u16 {
    if whole <= 0 {
        return 0;
    }
    ((part.max(0) as f64 * 100.0 / whole as f64).round() as i64).clamp(0, 999) as u16
}

/// Cuts `s` to at most `width` characters, ending with `…` when cut.
pub fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// The age of something created at `created` (Unix seconds) at `now`, as
/// kubectl prints it: `45s`, `12m`, `5h`, `3d`, `2y`; `-` when unknown.
pub fn age(created: Option<i64>, now: i64) -> String {
    let Some(c) = created else {
        return "-".to_string();
    };
    let s = (now - c).max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        86_400..31_536_000 => format!("{}d", s / 86_400),
        _ => format!("{}y", s / 31_536_000),
    }
}

/// Now, in Unix seconds.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// `12:03:04 (3 s ago)` in the local time zone.
pub fn when(at: std::time::SystemTime) -> String {
    let ago = std::time::SystemTime::now()
        .duration_since(at)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let time = k8s_openapi::jiff::Timestamp::try_from(at)
        .map(|ts| {
            ts.to_zoned(k8s_openapi::jiff::tz::TimeZone::system())
                .strftime("%H:%M:%S")
                .to_string()
        })
        .unwrap_or_default();
    format!("{time} ({ago} s ago)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(cpu(250), "250m");
        assert_eq!(cpu(1500), "1.5");
        assert_eq!(cpu(16000), "16");
        assert_eq!(memory(512 << 20), "512Mi");
        assert_eq!(memory(3 << 30), "3Gi");
        assert_eq!(percent(1, 3), 33);
        assert_eq!(percent(5, 0), 0);
        assert_eq!(truncate("abcdef", 4), "abc…");
    }
}
