//! Colour themes: built-in TOML files from `themes/`, user themes from
//! `<config dir>/kplace/themes/*.toml`, and `NO_COLOR`.
//!
//! A theme file may set any subset of the colours; the rest come from the
//! default (dark) theme, so a user theme can be a two-line tweak.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

/// The theme used when none is chosen or the chosen one cannot be read.
pub const DEFAULT_THEME: &str = "dark";

/// Themes shipped in the binary, by name.
pub const BUILT_IN: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// Resolved colours for every role a view draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    pub fg: Color,
    pub bg: Color,
    pub muted: Color,
    pub accent: Color,
    pub border: Color,
    pub title: Color,
    pub header: Color,
    pub selected_fg: Color,
    pub selected_bg: Color,
    pub tab_active: Color,
    pub good: Color,
    pub warn: Color,
    pub bad: Color,
    pub bar_cpu: Color,
    pub bar_memory: Color,
    pub bar_free: Color,
    pub bar_preemptible: Color,
    pub bar_protected: Color,
    /// Colours are off (`NO_COLOR`): selection falls back to reverse video.
    pub monochrome: bool,
}

/// The file format: every colour optional, unknown keys refused.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    fg: Option<String>,
    bg: Option<String>,
    muted: Option<String>,
    accent: Option<String>,
    border: Option<String>,
    title: Option<String>,
    header: Option<String>,
    selected_fg: Option<String>,
    selected_bg: Option<String>,
    tab_active: Option<String>,
    good: Option<String>,
    warn: Option<String>,
    bad: Option<String>,
    bar_cpu: Option<String>,
    bar_memory: Option<String>,
    bar_free: Option<String>,
    bar_preemptible: Option<String>,
    bar_protected: Option<String>,
}

impl Theme {
    /// The default theme, parsed from the embedded file.
    pub fn default_theme() -> Theme {
        let base = Theme::monochrome();
        parse(DEFAULT_THEME, BUILT_IN[0].1, &base).unwrap_or(base)
    }

    /// No colours at all, for `NO_COLOR`.
    pub fn monochrome() -> Theme {
        Theme {
            name: "no-color".into(),
            fg: Color::Reset,
            bg: Color::Reset,
            muted: Color::Reset,
            accent: Color::Reset,
            border: Color::Reset,
            title: Color::Reset,
            header: Color::Reset,
            selected_fg: Color::Reset,
            selected_bg: Color::Reset,
            tab_active: Color::Reset,
            good: Color::Reset,
            warn: Color::Reset,
            bad: Color::Reset,
            bar_cpu: Color::Reset,
            bar_memory: Color::Reset,
            bar_free: Color::Reset,
            bar_preemptible: Color::Reset,
            bar_protected: Color::Reset,
            monochrome: true,
        }
    }

    pub fn base(&self) -> Style {
        Style::new().fg(self.fg).bg(self.bg)
    }

    pub fn selected(&self) -> Style {
        if self.monochrome {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
                .fg(self.selected_fg)
                .bg(self.selected_bg)
                .add_modifier(Modifier::BOLD)
        }
    }

    pub fn fg(&self, c: Color) -> Style {
        Style::new().fg(c)
    }
}

/// Parses a theme file over `base` (colours it does not set stay as in `base`).
pub fn parse(name: &str, text: &str, base: &Theme) -> Result<Theme, String> {
    let file: ThemeFile = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let mut theme = base.clone();
    theme.name = file.name.clone().unwrap_or_else(|| name.to_string());
    theme.monochrome = false;
    let fields: [(&str, &Option<String>, &mut Color); 18] = [
        ("fg", &file.fg, &mut theme.fg),
        ("bg", &file.bg, &mut theme.bg),
        ("muted", &file.muted, &mut theme.muted),
        ("accent", &file.accent, &mut theme.accent),
        ("border", &file.border, &mut theme.border),
        ("title", &file.title, &mut theme.title),
        ("header", &file.header, &mut theme.header),
        ("selected_fg", &file.selected_fg, &mut theme.selected_fg),
        ("selected_bg", &file.selected_bg, &mut theme.selected_bg),
        ("tab_active", &file.tab_active, &mut theme.tab_active),
        ("good", &file.good, &mut theme.good),
        ("warn", &file.warn, &mut theme.warn),
        ("bad", &file.bad, &mut theme.bad),
        ("bar_cpu", &file.bar_cpu, &mut theme.bar_cpu),
        ("bar_memory", &file.bar_memory, &mut theme.bar_memory),
        ("bar_free", &file.bar_free, &mut theme.bar_free),
        (
            "bar_preemptible",
            &file.bar_preemptible,
            &mut theme.bar_preemptible,
        ),
        (
            "bar_protected",
            &file.bar_protected,
            &mut theme.bar_protected,
        ),
    ];
    for (key, value, slot) in fields {
        if let Some(v) = value {
            *slot = Color::from_str(v).map_err(|_| {
                format!("{key} = {v:?} is not a colour (use a name such as \"red\" or \"#rrggbb\")")
            })?;
        }
    }
    Ok(theme)
}

/// Every theme the user can pick: built-in ones, then user files (which may
/// override a built-in by name). Problems with user files are collected,
/// not fatal.
#[derive(Clone, Debug, Default)]
pub struct ThemeCatalog {
    /// Name to TOML text and where it came from.
    sources: BTreeMap<String, (String, String)>,
    /// Messages about user theme files that could not be read.
    pub problems: Vec<String>,
}

impl ThemeCatalog {
    /// Built-in themes plus those in the user's config dir.
    pub fn load() -> ThemeCatalog {
        let mut catalog = ThemeCatalog::built_in();
        if let Some(dir) = user_theme_dir() {
            catalog.add_dir(&dir);
        }
        catalog
    }

    pub fn built_in() -> ThemeCatalog {
        let mut catalog = ThemeCatalog::default();
        for (name, text) in BUILT_IN {
            catalog
                .sources
                .insert(name.into(), (text.into(), format!("built-in theme {name}")));
        }
        catalog
    }

    /// Adds every `*.toml` of `dir`, named by file stem.
    pub fn add_dir(&mut self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        {
            let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    self.sources
                        .insert(name.to_string(), (text, path.display().to_string()));
                }
                Err(e) => self.problems.push(format!("theme {}: {e}", path.display())),
            }
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.sources.keys().cloned().collect()
    }

    /// Resolves a theme by name. `Err` carries a message for the status
    /// line; the caller falls back to the default theme.
    pub fn resolve(&self, name: &str) -> Result<Theme, String> {
        let base = Theme::default_theme();
        let Some((text, origin)) = self.sources.get(name) else {
            return Err(format!(
                "no theme named {name:?} (have: {}); using {DEFAULT_THEME}",
                self.names().join(", ")
            ));
        };
        parse(name, text, &base).map_err(|e| format!("{origin}: {e}; using {DEFAULT_THEME}"))
    }
}

/// `<config dir>/kplace/themes`.
pub fn user_theme_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("kplace").join("themes"))
}

/// Whether `NO_COLOR` asks for no colours (set and not empty).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_themes_parse() {
        let catalog = ThemeCatalog::built_in();
        for (name, _) in BUILT_IN {
            let theme = catalog.resolve(name).expect(name);
            assert_eq!(theme.name, name);
            assert!(!theme.monochrome);
        }
    }

    #[test]
    fn bad_colour_names_the_key() {
        let err = parse("x", "good = \"not-a-colour\"", &Theme::default_theme()).unwrap_err();
        assert!(err.contains("good"), "{err}");
    }

    #[test]
    fn unknown_theme_falls_back_with_message() {
        let err = ThemeCatalog::built_in().resolve("nope").unwrap_err();
        assert!(err.contains("nope") && err.contains("dark"), "{err}");
    }
}
