//! How keys and the mouse change the app: the global key table (the help
//! overlay lists the same bindings, see `keys`), the palette, the filter
//! line, and moving selections.

use super::*;

impl App {
    pub fn handle_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c') | KeyCode::Char('q'))
        {
            self.should_quit = true;
            return;
        }
        if matches!(self.overlay, Overlay::Palette(_)) {
            self.palette_key(key);
            return;
        }
        if matches!(self.overlay, Overlay::Help) {
            match key.code {
                KeyCode::Esc | KeyCode::Char('?') | KeyCode::Enter => {
                    self.overlay = Overlay::None;
                    self.help_scroll = 0;
                }
                KeyCode::Char('q') => self.should_quit = true,
                // On a terminal too short for every binding.
                KeyCode::Down | KeyCode::Char('j') => self.help_scroll += 1,
                KeyCode::Up | KeyCode::Char('k') => {
                    self.help_scroll = self.help_scroll.saturating_sub(1)
                }
                KeyCode::PageDown => self.help_scroll += 10,
                KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
                _ => {}
            }
            return;
        }
        if self.filtering {
            self.filter_key(key);
            return;
        }
        if !matches!(self.phase, Phase::Ready(_)) {
            if matches!(key.code, KeyCode::Char('q') | KeyCode::Esc) {
                self.should_quit = true;
            }
            return;
        }
        self.status = None;
        if self.view == View::WhatIf && self.whatif_key(key) {
            return;
        }
        if self.replay_key(key) {
            return;
        }
        match key.code {
            KeyCode::Char('q') => self.should_quit = true,
            KeyCode::Char('e') => self.draft_from_selection(),
            KeyCode::Char('d') if self.view == View::Nodes => self.drain_selected(),
            KeyCode::Char('?') => self.overlay = Overlay::Help,
            KeyCode::Char(':') => {
                let mut extra = self.whatif_palette_commands();
                if self.replay().is_some() {
                    extra.extend(["mark", "at start", "at end", "at "].map(String::from));
                }
                self.overlay = Overlay::Palette(Palette::open_with(&self.themes.names(), &extra))
            }
            KeyCode::Char('/') => {
                if self.filter_text().is_some() {
                    self.filtering = true;
                } else {
                    self.set_info("/ filters the Skew, Nodes and Pods lists");
                }
            }
            KeyCode::Esc => {
                if self.filter_text().is_some_and(|f| !f.is_empty()) {
                    self.edit_filter(String::clear);
                } else {
                    self.back();
                }
            }
            KeyCode::Tab => self.switch_to(self.view.next()),
            KeyCode::BackTab => self.switch_to(self.view.prev()),
            KeyCode::Char(c) if c.is_ascii_digit() => {
                if let Some(v) = View::from_digit(c) {
                    self.switch_to(v);
                }
            }
            KeyCode::Char('[') if self.view == View::Placement => self.choose_remedy(-1),
            KeyCode::Char(']') if self.view == View::Placement => self.choose_remedy(1),
            KeyCode::Enter if self.view == View::Placement => self.open_remedy(),
            KeyCode::Enter => self.enter(),
            KeyCode::Char('s') => self.cycle_sort(false),
            KeyCode::Char('S') => self.cycle_sort(true),
            KeyCode::Char('t') if self.view == View::Skew => {
                if let Some(s) = self.session_mut() {
                    let n = s.skew.as_ref().map_or(1, |r| r.count.max(1));
                    s.skew_key = (s.skew_key + 1) % n;
                    s.refresh_skew();
                }
            }
            KeyCode::Up | KeyCode::Char('k') => self.move_selection(Move::By(-1)),
            KeyCode::Down | KeyCode::Char('j') => self.move_selection(Move::By(1)),
            KeyCode::PageUp => self.move_selection(Move::Page(-1)),
            KeyCode::PageDown => self.move_selection(Move::Page(1)),
            KeyCode::Home | KeyCode::Char('g') => self.move_selection(Move::Home),
            KeyCode::End | KeyCode::Char('G') => self.move_selection(Move::End),
            _ => {}
        }
    }

    pub fn handle_mouse(&mut self, mouse: MouseEvent) {
        if !matches!(self.overlay, Overlay::None) {
            return;
        }
        match mouse.kind {
            MouseEventKind::ScrollUp => self.move_selection(Move::By(-WHEEL_ROWS)),
            MouseEventKind::ScrollDown => self.move_selection(Move::By(WHEEL_ROWS)),
            _ => {}
        }
    }

    fn palette_key(&mut self, key: KeyEvent) {
        let Overlay::Palette(p) = &mut self.overlay else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.overlay = Overlay::None,
            KeyCode::Enter => {
                let command = p.accept();
                self.overlay = Overlay::None;
                match command {
                    Ok(c) => self.run_command(c),
                    Err(e) => self.set_error(e),
                }
            }
            KeyCode::Tab => p.complete(),
            KeyCode::Up => p.move_highlight(-1),
            KeyCode::Down => p.move_highlight(1),
            KeyCode::Backspace => p.backspace(),
            KeyCode::Char(c) => p.type_char(c),
            _ => {}
        }
    }

    pub fn run_command(&mut self, command: Command) {
        match command {
            Command::Show(v) => self.switch_to(v),
            Command::Theme(name) => self.set_theme(&name),
            Command::Help => self.overlay = Overlay::Help,
            Command::Quit => self.should_quit = true,
            Command::WhatIf(c) => self.whatif_command(c),
            Command::At(t) => self.jump_to(&t),
            Command::Mark => self.mark_moment(),
            Command::Version(v) => self.set_scheduler_version(&v),
            Command::Config(path) => self.set_scheduler_config(&path),
        }
    }

    fn filter_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Esc => {
                self.filtering = false;
                self.edit_filter(String::clear);
            }
            KeyCode::Enter => self.filtering = false,
            KeyCode::Backspace => self.edit_filter(|f| {
                f.pop();
            }),
            KeyCode::Up => self.move_selection(Move::By(-1)),
            KeyCode::Down => self.move_selection(Move::By(1)),
            KeyCode::Char(c) => self.edit_filter(|f| f.push(c)),
            _ => {}
        }
    }

    fn enter(&mut self) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        if let Some(pod) = s.selected_pod(view) {
            self.show_placement(pod);
            return;
        }
        match view {
            // Enter on a node lists its pods, as in k9s.
            View::Nodes => {
                let Some(row) = s.nodes.selected_row() else {
                    return;
                };
                let name = s.loaded.derived.node_rows[row as usize].name.clone();
                s.pods.filter = name;
                s.pods.cursor.home();
                s.refresh_pods();
                self.switch_to(View::Pods);
            }
            View::Skew => {
                let Some(w) = s.selected_workload() else {
                    return;
                };
                let owner = &s.loaded.cluster.owners[s.loaded.derived.workloads[w].owner];
                s.pods.filter = owner.name.to_string();
                s.pods.cursor.home();
                s.refresh_pods();
                self.switch_to(View::Pods);
            }
            _ => {}
        }
    }

    fn cycle_sort(&mut self, reverse: bool) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        let (t, columns) = match view {
            View::Nodes => (&mut s.nodes, NODE_SORTS.len()),
            View::Pods => (&mut s.pods, POD_SORTS.len()),
            _ => return,
        };
        if reverse {
            t.descending = !t.descending;
        } else {
            t.sort = (t.sort + 1) % columns;
        }
        t.cursor.home();
        match view {
            View::Nodes => s.refresh_nodes(),
            _ => s.refresh_pods(),
        }
    }

    fn move_selection(&mut self, m: Move) {
        let view = self.view;
        if view == View::Replay {
            if let Some(r) = self.feed.as_mut().and_then(Feed::replay_mut) {
                let len = crate::app::replay::view_len(r);
                m.apply_scroll(&mut r.scroll, len);
            }
            return;
        }
        let Some(s) = self.session_mut() else { return };
        match view {
            View::Overview => {
                let len = s.loaded.derived.pending.len();
                if len > 0 {
                    m.apply(&mut s.pending_cursor, len);
                } else {
                    let len = s.loaded.derived.node_rows.len() + s.loaded.derived.zones.len();
                    m.apply(&mut s.node_bars, len);
                }
            }
            View::Skew => {
                let before = s.skew_cursor.selected;
                m.apply(&mut s.skew_cursor, s.skew_rows.len());
                if s.skew_cursor.selected != before {
                    s.refresh_skew();
                }
            }
            View::Tiers => {
                let before = s.tier_cursor.selected;
                m.apply(&mut s.tier_cursor, s.loaded.derived.tiers.len());
                if s.tier_cursor.selected != before {
                    s.refresh_headroom();
                }
            }
            View::Nodes => m.apply(&mut s.nodes.cursor, s.nodes.rows.len()),
            View::Pods => m.apply(&mut s.pods.cursor, s.pods.rows.len()),
            View::Placement => {
                let len = s.placement.as_ref().map(|p| p.lines.len()).unwrap_or(0);
                m.apply_scroll(&mut s.placement_scroll, len);
            }
            View::WhatIf | View::Replay => {}
        }
    }
}

#[derive(Clone, Copy)]
enum Move {
    By(isize),
    Page(isize),
    Home,
    End,
}

impl Move {
    fn apply(self, c: &mut Cursor, len: usize) {
        match self {
            Move::By(n) => c.move_by(n, len),
            Move::Page(n) => c.move_by(n * c.page() as isize, len),
            Move::Home => c.home(),
            Move::End => c.end(len),
        }
    }

    /// For a read-only text: the "selection" is the top line shown.
    fn apply_scroll(self, c: &mut Cursor, len: usize) {
        let last_top = len.saturating_sub(c.page());
        match self {
            Move::By(n) => c.move_by(n, last_top + 1),
            Move::Page(n) => c.move_by(n * c.page() as isize, last_top + 1),
            Move::Home => c.home(),
            Move::End => c.end(last_top + 1),
        }
    }
}
