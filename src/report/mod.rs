//! Renders engine answers for people and scripts: the JSON contract (also
//! used for YAML) and the human table.

pub(crate) mod answer;
pub(crate) mod devices;
pub(crate) mod document;
pub(crate) mod groups;
pub mod json;
pub mod remedies;
pub mod table;

/// `text` with every control character but newline and tab written as an
/// escape (`\x1b`, `\u{9b}`), so names, labels and messages from a snapshot
/// cannot move the cursor, clear the screen or retitle the window of the
/// terminal a human report is printed on. C0 controls, DEL and the C1 range
/// (U+0080–U+009F: some terminals take U+009B as CSI) are escaped.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !unsafe_char(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    std::borrow::Cow::Owned(out)
}

/// "not eligible: …" for a preemption the pod may not make, without
/// saying it twice when the scheduler's reason already starts with it
/// ("not eligible due to preemptionPolicy=Never.").
pub fn not_eligible(reason: &str) -> String {
    if reason.starts_with("not eligible") {
        reason.to_string()
    } else if reason.is_empty() {
        "not eligible".to_string()
    } else {
        format!("not eligible: {reason}")
    }
}

#[cfg(test)]
mod tests {
    use super::{escape_controls, not_eligible};

    #[test]
    fn not_eligible_is_said_once() {
        assert_eq!(
            not_eligible("not eligible due to preemptionPolicy=Never."),
            "not eligible due to preemptionPolicy=Never."
        );
        assert_eq!(
            not_eligible("the pod has no priority"),
            "not eligible: the pod has no priority"
        );
        assert_eq!(not_eligible(""), "not eligible");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            escape_controls("a\u{1b}[2Jb\u{1b}]0;title\u{7}c\rd\u{7f}e\u{9b}f"),
            "a\\x1b[2Jb\\x1b]0;title\\x07c\\x0dd\\x7fe\\u{9b}f"
        );
        assert_eq!(escape_controls("zone-ä/ß"), "zone-ä/ß");
    }
}
