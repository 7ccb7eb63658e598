//! Text that fits its pane: paragraphs wrapped to the pane's width at draw
//! time (at spaces only, continuation lines indented like the first), and
//! table cells cut with `…` at the end, or in the middle for names whose
//! end tells them apart (`gke-prod-po…-7afe63`).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Display width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `text` wrapped to `width` columns: breaks only at spaces, never at a
/// hyphen (a word longer than a whole line is the one exception),
/// continuation lines indented as the first line's text starts (after its
/// leading spaces and a `•`).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    if self::width(text) <= width {
        return vec![text.trim_end().to_string()];
    }
    let lead = text.len() - text.trim_start_matches(' ').len();
    let rest = &text[lead..];
    let bullet = ["• ", "- ", "✗ ", "✓ "]
        .iter()
        .find(|b| rest.starts_with(*b))
        .map_or(0, |b| self::width(b));
    wrap_hanging(text, width, lead + bullet)
}

/// `text` wrapped to `width` columns as [`wrap`] wraps it, continuation
/// lines indented by `indent` columns (none when that would take half the
/// line).
pub fn wrap_hanging(text: &str, width: usize, indent: usize) -> Vec<String> {
    let width = width.max(1);
    let indent = if indent * 2 > width {
        String::new()
    } else {
        " ".repeat(indent)
    };
    let options = textwrap::Options::new(width)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit)
        .subsequent_indent(&indent)
        // Names (`worker-b03`, `node.kubernetes.io/not-ready`) stay whole:
        // a line never ends in the middle of one at a hyphen.
        .word_splitter(textwrap::WordSplitter::NoHyphenation)
        .break_words(true);
    textwrap::wrap(text, options)
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// Styled lines, each wrapped to `width`: every screen row one `Line`.
pub fn wrap_styled(src: &[(Style, &str)], width: usize) -> Vec<Line<'static>> {
    src.iter()
        .flat_map(|(style, text)| {
            wrap(text, width)
                .into_iter()
                .map(move |l| Line::from(Span::styled(l, *style)))
        })
        .collect()
}

/// How many screen rows `text` takes at `width`.
pub fn rows(text: &str, width: usize) -> usize {
    if self::width(text) <= width.max(1) {
        1
    } else {
        wrap(text, width).len()
    }
}

/// `s` cut to `max` columns with `…` at the end.
pub fn cut_end(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `s` cut to `max` columns with `…` in the middle, keeping the end that
/// tells names apart: the last `-`-separated part (a hash, an ordinal, a
/// zone letter) when it fits in half the width, else the last third.
pub fn cut_middle(s: &str, max: usize) -> String {
    let total = width(s);
    if total <= max {
        return s.to_string();
    }
    if max < 5 {
        return cut_end(s, max);
    }
    let chars: Vec<char> = s.chars().collect();
    let suffix = match s.rfind(['-', '.', '/', '_']) {
        Some(i) if width(&s[i..]) < max / 2 + 1 => s[i..].chars().count(),
        _ => (max - 1) / 3,
    };
    let tail: String = chars[chars.len() - suffix..].iter().collect();
    let head = cut_end(
        &chars[..chars.len() - suffix].iter().collect::<String>(),
        max - width(&tail),
    );
    // `cut_end` ends the head with the ellipsis.
    format!("{head}{tail}")
}

/// A node name cut to `max` columns: a DNS name
/// (`ip-10-0-3-44.ec2.internal`) keeps its first label, which tells the
/// nodes apart, and drops the domain they share (`ip-10-0-3-44…`), or
/// when even that is too long, the label cut as [`cut_middle`] cuts it
/// (`ip-10-0…-44`); any other name is cut as [`cut_middle`] cuts it.
pub fn cut_node_name(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    match s.split_once('.') {
        Some((host, _)) if !host.is_empty() && width(host) < max => format!("{host}…"),
        Some((host, _)) if !host.is_empty() => cut_middle(host, max),
        _ => cut_middle(s, max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_spaces_and_indents_continuations() {
        let text = "  0/5 nodes are available: 2 node(s) had untolerated taint {dedicated: batch}, 3 Insufficient cpu.";
        let lines = wrap(text, 40);
        assert!(lines.len() > 2, "{lines:?}");
        assert!(lines.iter().all(|l| width(l) <= 40), "{lines:?}");
        assert!(lines[1].starts_with("  ") && !lines[1].starts_with("   "));
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        let expected: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(words, expected);
        let bullet = wrap("  • a note that is long enough to wrap twice here", 20);
        assert!(
            bullet[1].starts_with("    a") || bullet[1].starts_with("    "),
            "{bullet:?}"
        );
    }

    #[test]
    fn node_names_keep_their_host_label() {
        let ec2 = "ip-10-0-3-44.ec2.internal";
        assert_eq!(cut_node_name(ec2, 30), ec2);
        assert_eq!(cut_node_name(ec2, 20), "ip-10-0-3-44…");
        assert_eq!(cut_node_name(ec2, 13), "ip-10-0-3-44…");
        // Too narrow for the host label: the label cut in the middle, as
        // names are, keeping its end (not `ip-1…ernal`).
        assert_eq!(cut_node_name(ec2, 12), cut_middle("ip-10-0-3-44", 12));
        assert_eq!(cut_node_name(ec2, 11), "ip-10-0…-44");
        assert_eq!(cut_node_name(ec2, 5), cut_middle("ip-10-0-3-44", 5));
        let gke = "gke-prod-pool-2-b7c9d1e0-7afe63";
        assert_eq!(cut_node_name(gke, 19), cut_middle(gke, 19));
    }

    #[test]
    fn cuts_keep_the_distinguishing_end() {
        assert_eq!(
            cut_middle("gke-prod-pool-2-b7c9d1e0-7afe63", 19),
            "gke-prod-po…-7afe63"
        );
        assert_eq!(cut_middle("worker-a01", 20), "worker-a01");
        assert_eq!(cut_end("Ready,SchedulingDisabled", 10), "Ready,Sch…");
        assert_eq!(width(&cut_middle("abcdefghijklmnopqrstuvwxyz", 10)), 10);
    }
}
