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

/// How many colours the terminal shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorDepth {
    /// 24-bit RGB: only when `COLORTERM` says `truecolor` or `24bit`.
    TrueColor,
    /// The xterm 256-colour palette: `TERM` contains `256color`.
    Ansi256,
    /// The 16 ANSI colours: anything else.
    Ansi16,
}

impl ColorDepth {
    /// The depth `COLORTERM` and `TERM` announce.
    pub fn detect(colorterm: Option<&str>, term: Option<&str>) -> ColorDepth {
        match colorterm.map(str::to_ascii_lowercase).as_deref() {
            Some("truecolor" | "24bit") => ColorDepth::TrueColor,
            _ if term.is_some_and(|t| t.contains("256color")) => ColorDepth::Ansi256,
            _ => ColorDepth::Ansi16,
        }
    }

    /// The depth of this process's terminal.
    pub fn from_env() -> ColorDepth {
        let colorterm = std::env::var("COLORTERM").ok();
        let term = std::env::var("TERM").ok();
        ColorDepth::detect(colorterm.as_deref(), term.as_deref())
    }

    /// `c` as this terminal can show it: an RGB colour becomes the nearest
    /// palette colour; named and indexed colours are kept (an index above
    /// 15 becomes the nearest of the 16 on a 16-colour terminal).
    pub fn map(self, c: Color) -> Color {
        match (self, c) {
            (ColorDepth::TrueColor, c) => c,
            (ColorDepth::Ansi256, Color::Rgb(r, g, b)) => Color::Indexed(nearest_256(r, g, b)),
            (ColorDepth::Ansi16, Color::Rgb(r, g, b)) => nearest_16(r, g, b),
            (ColorDepth::Ansi16, Color::Indexed(i)) if i > 15 => {
                let (r, g, b) = rgb_of_index(i);
                nearest_16(r, g, b)
            }
            (_, c) => c,
        }
    }
}

fn distance(a: (u8, u8, u8), b: (u8, u8, u8)) -> u32 {
    // Weighted for the eye (red 2, green 4, blue 3), as is usual for
    // palette matching.
    let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2) as u32;
    2 * d(a.0, b.0) + 4 * d(a.1, b.1) + 3 * d(a.2, b.2)
}

/// The xterm palette's RGB for indexes 16–255 (cube, then grey ramp).
fn rgb_of_index(i: u8) -> (u8, u8, u8) {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    if i >= 232 {
        let v = 8 + 10 * (i - 232);
        return (v, v, v);
    }
    let i = i.saturating_sub(16);
    (
        LEVELS[usize::from(i / 36)],
        LEVELS[usize::from(i / 6 % 6)],
        LEVELS[usize::from(i % 6)],
    )
}

/// The nearest of the 240 fixed xterm colours (16–255; the first 16
/// differ between terminals and are left alone).
pub fn nearest_256(r: u8, g: u8, b: u8) -> u8 {
    (16..=255u8)
        .min_by_key(|&i| distance((r, g, b), rgb_of_index(i)))
        .unwrap_or(16)
}

/// The nearest of the 16 ANSI colours (their usual xterm values).
pub fn nearest_16(r: u8, g: u8, b: u8) -> Color {
    const ANSI: [(Color, (u8, u8, u8)); 16] = [
        (Color::Black, (0, 0, 0)),
        (Color::Red, (205, 0, 0)),
        (Color::Green, (0, 205, 0)),
        (Color::Yellow, (205, 205, 0)),
        (Color::Blue, (0, 0, 238)),
        (Color::Magenta, (205, 0, 205)),
        (Color::Cyan, (0, 205, 205)),
        (Color::Gray, (229, 229, 229)),
        (Color::DarkGray, (127, 127, 127)),
        (Color::LightRed, (255, 0, 0)),
        (Color::LightGreen, (0, 255, 0)),
        (Color::LightYellow, (255, 255, 0)),
        (Color::LightBlue, (92, 92, 255)),
        (Color::LightMagenta, (255, 0, 255)),
        (Color::LightCyan, (0, 255, 255)),
        (Color::White, (255, 255, 255)),
    ];
    ANSI.iter()
        .min_by_key(|(_, rgb)| distance((r, g, b), *rgb))
        .map(|(c, _)| *c)
        .unwrap_or(Color::Reset)
}

impl Theme {
    /// The theme as a terminal of `depth` shows it.
    pub fn for_depth(mut self, depth: ColorDepth) -> Theme {
        for c in [
            &mut self.fg,
            &mut self.bg,
            &mut self.muted,
            &mut self.accent,
            &mut self.border,
            &mut self.title,
            &mut self.header,
            &mut self.selected_fg,
            &mut self.selected_bg,
            &mut self.tab_active,
            &mut self.good,
            &mut self.warn,
            &mut self.bad,
            &mut self.bar_cpu,
            &mut self.bar_memory,
            &mut self.bar_free,
            &mut self.bar_preemptible,
            &mut self.bar_protected,
        ] {
            *c = depth.map(*c);
        }
        self
    }
}

/// Whether `NO_COLOR` asks for no colours (set and not empty).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_depth_follows_colorterm_then_term() {
        use ColorDepth::*;
        assert_eq!(
            ColorDepth::detect(Some("truecolor"), Some("xterm")),
            TrueColor
        );
        assert_eq!(ColorDepth::detect(Some("24bit"), None), TrueColor);
        assert_eq!(ColorDepth::detect(None, Some("screen-256color")), Ansi256);
        assert_eq!(
            ColorDepth::detect(Some("yes"), Some("xterm-256color")),
            Ansi256
        );
        assert_eq!(ColorDepth::detect(None, Some("xterm")), Ansi16);
        assert_eq!(ColorDepth::detect(None, None), Ansi16);
    }

    #[test]
    fn rgb_maps_to_the_nearest_palette_colour() {
        // Exact cube and grey entries map to themselves.
        assert_eq!(nearest_256(0, 0, 0), 16);
        assert_eq!(nearest_256(255, 255, 255), 231);
        assert_eq!(nearest_256(255, 0, 0), 196);
        assert_eq!(nearest_256(95, 135, 175), 67);
        assert_eq!(nearest_256(128, 128, 128), 244);
        // Near ones to their neighbour.
        assert_eq!(nearest_256(250, 5, 3), 196);
        assert_eq!(nearest_16(250, 5, 3), Color::LightRed);
        assert_eq!(nearest_16(10, 10, 20), Color::Black);
        assert_eq!(nearest_16(0, 190, 0), Color::Green);
        let c = ColorDepth::Ansi256.map(Color::Rgb(255, 0, 0));
        assert_eq!(c, Color::Indexed(196));
        assert_eq!(ColorDepth::Ansi16.map(Color::Indexed(196)), Color::LightRed);
        assert_eq!(ColorDepth::Ansi16.map(Color::Reset), Color::Reset);
        assert_eq!(
            ColorDepth::TrueColor.map(Color::Rgb(1, 2, 3)),
            Color::Rgb(1, 2, 3)
        );
        // No RGB survives in a mapped theme.
        for depth in [ColorDepth::Ansi256, ColorDepth::Ansi16] {
            let t = ThemeCatalog::built_in()
                .resolve("light")
                .unwrap()
                .for_depth(depth);
            assert!(!format!("{t:?}").contains("Rgb"), "{t:?}");
        }
    }

    #[test]
    fn the_light_theme_has_its_own_background() {
        let t = ThemeCatalog::built_in().resolve("light").unwrap();
        assert!(matches!(t.bg, Color::Rgb(..)), "{:?}", t.bg);
    }

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
