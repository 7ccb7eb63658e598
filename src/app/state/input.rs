//! How keys and the mouse change the app: the global key table (the help
//! overlay lists the same bindings, see `keys`), the palette, the filter
//! line, and moving selections.

use super::*;

use crate::app::inspect::{Inspect, Kind};
use crate::app::keys::{self, Action, Scope};
use crate::app::line::{self, Edit};
use crate::model::policy::SelectorOwnerKind;

impl App {
    pub fn handle_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        // ctrl-c / ctrl-q quit from anywhere (an overlay, a field, the editor).
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && keys::action(&[Scope::Global], &key) == Some(Action::Quit)
        {
            self.should_quit = true;
            return;
        }
        match self.overlay {
            Overlay::Palette(_) => return self.palette_key(key),
            Overlay::Help => return self.help_key(key),
            Overlay::Inspect(_) => return self.inspect_key(key),
            Overlay::None => {}
        }
        if self.filtering {
            self.filter_key(key);
            return;
        }
        if self.placement_search_typing() {
            self.placement_search_key(key);
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
        // A Placement search's n / N come before replay's n.
        let scopes = self.scopes();
        if self.view == View::Placement
            && let Some(a @ (Action::SearchNext | Action::SearchPrev)) =
                keys::action(&[Scope::Placement], &key)
            && self
                .session()
                .is_some_and(|s| !s.placement_search.hits.is_empty())
        {
            self.run_action(a, key);
            return;
        }
        if self.replay_key(key) {
            return;
        }
        if let Some(a) = keys::action(&scopes, &key) {
            self.run_action(a, key);
        }
    }

    /// The key table's scopes in force in the current view, most specific first.
    fn scopes(&self) -> Vec<Scope> {
        let mut scopes = match self.view {
            View::Nodes => vec![Scope::Nodes, Scope::Tables],
            View::Pods => vec![Scope::Tables],
            View::Placement => vec![Scope::Placement],
            View::Skew => vec![Scope::Skew],
            _ => vec![],
        };
        scopes.extend([Scope::Lists, Scope::Global]);
        scopes
    }

    fn run_action(&mut self, action: Action, key: KeyEvent) {
        match action {
            Action::ShowView => {
                if let KeyCode::Char(c) = key.code
                    && let Some(v) = View::from_digit(c)
                {
                    self.switch_to(v);
                }
            }
            Action::NextView => self.switch_to(self.view.next()),
            Action::PrevView => self.switch_to(self.view.prev()),
            Action::Help => self.overlay = Overlay::Help,
            Action::Palette => {
                let mut extra = self.whatif_palette_commands();
                extra.extend(["ns ", "ns all", "ctx"].map(String::from));
                extra.extend(self.context_commands());
                if self.replay().is_some() {
                    extra.extend(["mark", "at start", "at end", "at "].map(String::from));
                }
                self.overlay = Overlay::Palette(Palette::open_with(&self.themes.names(), &extra))
            }
            Action::Filter => {
                if self.view == View::Placement {
                    if let Some(s) = self.session_mut()
                        && s.placement.is_some()
                    {
                        s.placement_search.start();
                    } else {
                        self.set_info("/ searches the Placement answer once a pod is shown");
                    }
                } else if let Some(f) = self.filter_text() {
                    self.filter_cursor = f.chars().count();
                    self.filtering = true;
                } else {
                    self.set_info(
                        "/ filters the Skew, Nodes and Pods lists and searches Placement, Describe and YAML",
                    );
                }
            }
            Action::Back | Action::Close => {
                if self.filter_text().is_some_and(|f| !f.is_empty()) {
                    self.edit_filter(String::clear);
                } else if self.view == View::Placement
                    && let Some(s) = self.session_mut()
                    && !s.placement_search.query.is_empty()
                {
                    s.placement_search = Default::default();
                } else {
                    self.back();
                }
            }
            Action::Quit => self.should_quit = true,
            Action::Up => self.move_selection(Move::By(-1)),
            Action::Down => self.move_selection(Move::By(1)),
            Action::PageUp => self.move_selection(Move::Page(-1)),
            Action::PageDown => self.move_selection(Move::Page(1)),
            Action::Home => self.move_selection(Move::Home),
            Action::End => self.move_selection(Move::End),
            Action::Open => self.enter(),
            Action::ScrollSideList => {
                let down = key.code == KeyCode::Char('J');
                self.scroll_side_list(Move::By(if down { 1 } else { -1 }));
            }
            Action::CycleSort => self.cycle_sort(),
            Action::SortBy => {
                if let KeyCode::Char(c) = key.code {
                    self.sort_by_letter(c);
                }
            }
            Action::PrevRemedy => self.choose_remedy(-1),
            Action::NextRemedy => self.choose_remedy(1),
            Action::OpenRemedy => self.open_remedy(),
            Action::Describe => self.inspect(Kind::Describe),
            Action::Yaml => self.inspect(Kind::Yaml),
            Action::Draft => self.draft_from_selection(),
            Action::Drain => self.drain_selected(),
            Action::NextTopologyKey => {
                if let Some(s) = self.session_mut() {
                    let n = s.skew.as_ref().map_or(1, |r| r.count.max(1));
                    s.skew_key = (s.skew_key + 1) % n;
                    s.refresh_skew();
                }
            }
            Action::FleetList => self.open_fleet_list(),
            Action::SearchNext | Action::SearchPrev => {
                let forward = action == Action::SearchNext;
                let Some(s) = self.session_mut() else { return };
                if let Some(line) = s.placement_search.step(forward) {
                    s.placement_scroll.selected = line;
                }
                let text = s.placement_search.describe();
                self.set_info(text);
            }
            // What-if, editor, replay and input actions: their own handlers.
            _ => {}
        }
    }

    fn help_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Esc | KeyCode::Char('?') | KeyCode::Enter | KeyCode::Char('q') => {
                self.overlay = Overlay::None;
                self.help_scroll = 0;
            }
            // On a terminal too short for every binding.
            KeyCode::Down | KeyCode::Char('j') => self.help_scroll += 1,
            KeyCode::Up | KeyCode::Char('k') => {
                self.help_scroll = self.help_scroll.saturating_sub(1)
            }
            KeyCode::PageDown => self.help_scroll += 10,
            KeyCode::PageUp => self.help_scroll = self.help_scroll.saturating_sub(10),
            _ => {}
        }
    }

    /// `f` in Skew: the fleet list whole, in the overlay Describe uses (it
    /// scrolls and searches); the pane beside the workloads shows only
    /// its first rows.
    fn open_fleet_list(&mut self) {
        let Some(s) = self.session() else { return };
        let Some(fleet) = s.loaded.derived.fleet() else {
            self.set_info("the fleet list is still being built");
            return;
        };
        let i = Inspect::fleet(&s.fleet_alerts(fleet), s.namespace.as_deref());
        self.overlay = Overlay::Inspect(Box::new(i));
    }

    /// `d` / `y`: Describe or YAML of the selected pod, or in Nodes of the
    /// selected node.
    fn inspect(&mut self, kind: Kind) {
        let view = self.view;
        let Some(s) = self.session() else { return };
        let cluster = s.cluster();
        let overlay = if view == View::Nodes {
            s.nodes.selected_row().map(|n| match kind {
                Kind::Describe => Inspect::describe_node(cluster, n),
                Kind::Yaml => Inspect::node_yaml(cluster, n),
            })
        } else {
            s.selected_pod(view).map(|p| match kind {
                Kind::Describe => Inspect::describe_pod(cluster, p),
                Kind::Yaml => Inspect::pod_yaml(cluster, p),
            })
        };
        match overlay {
            Some(i) => self.overlay = Overlay::Inspect(Box::new(i)),
            None => self.set_info(
                "d / y describe or show as YAML the selected pod (Overview, Pods, Placement, Skew) or node (Nodes)",
            ),
        }
    }

    fn inspect_key(&mut self, key: KeyEvent) {
        let Overlay::Inspect(i) = &mut self.overlay else {
            return;
        };
        if i.search.typing {
            match line::edit(&mut i.search.query, &mut i.search.cursor, key) {
                Edit::Changed | Edit::Moved => {}
                Edit::Ignored => match keys::action(&[Scope::Input], &key) {
                    Some(Action::Cancel) => i.search = Default::default(),
                    Some(Action::Accept) => {
                        let from = i.scroll.selected;
                        if let Some(line) = i.search.run(&i.lines, from) {
                            i.scroll.selected = line;
                        }
                        let text = i.search.describe();
                        self.set_info(text);
                    }
                    _ => {}
                },
            }
            return;
        }
        let scopes = [
            Scope::Inspect,
            Scope::Placement,
            Scope::Lists,
            Scope::Global,
        ];
        let len = i.lines.len();
        match keys::action(&scopes, &key) {
            Some(Action::Close) => self.overlay = Overlay::None,
            Some(Action::Up) => Move::By(-1).apply_scroll(&mut i.scroll, len),
            Some(Action::Down) => Move::By(1).apply_scroll(&mut i.scroll, len),
            Some(Action::PageUp) => Move::Page(-1).apply_scroll(&mut i.scroll, len),
            Some(Action::PageDown) => Move::Page(1).apply_scroll(&mut i.scroll, len),
            Some(Action::Home) => Move::Home.apply_scroll(&mut i.scroll, len),
            Some(Action::End) => Move::End.apply_scroll(&mut i.scroll, len),
            Some(Action::Filter) => i.search.start(),
            Some(a @ (Action::SearchNext | Action::SearchPrev)) => {
                if let Some(line) = i.search.step(a == Action::SearchNext) {
                    i.scroll.selected = line;
                }
                let text = i.search.describe();
                self.set_info(text);
            }
            Some(Action::Help) => self.overlay = Overlay::Help,
            _ => {}
        }
    }

    fn placement_search_typing(&self) -> bool {
        self.view == View::Placement && self.session().is_some_and(|s| s.placement_search.typing)
    }

    /// Typing after `/` in Placement: the letters are the search, never
    /// commands.
    fn placement_search_key(&mut self, key: KeyEvent) {
        let Some(s) = self.session_mut() else { return };
        let search = &mut s.placement_search;
        match line::edit(&mut search.query, &mut search.cursor, key) {
            Edit::Changed | Edit::Moved => {}
            Edit::Ignored => match keys::action(&[Scope::Input], &key) {
                Some(Action::Cancel) => s.placement_search = Default::default(),
                Some(Action::Accept) => {
                    let lines = s
                        .placement
                        .as_ref()
                        .map(|r| r.lines.clone())
                        .unwrap_or_default();
                    let from = s.placement_scroll.selected;
                    if let Some(line) = s.placement_search.run(&lines, from) {
                        s.placement_scroll.selected = line;
                    }
                    let text = s.placement_search.describe();
                    self.set_info(text);
                }
                _ => {}
            },
        }
    }

    /// The line being typed, if any: its prompt, text and cursor (the
    /// status line draws it).
    pub fn input_line(&self) -> Option<(&'static str, &str, usize)> {
        if self.filtering {
            return Some(("/", self.filter_text().unwrap_or(""), self.filter_cursor));
        }
        if let Overlay::Inspect(i) = &self.overlay
            && i.search.typing
        {
            return Some(("/", &i.search.query, i.search.cursor));
        }
        if self.view == View::Placement
            && let Some(s) = self.session()
            && s.placement_search.typing
        {
            return Some(("/", &s.placement_search.query, s.placement_search.cursor));
        }
        if self.view == View::WhatIf
            && let Some(s) = self.session()
            && s.whatif.plan_search.typing
        {
            let search = &s.whatif.plan_search;
            return Some(("/", &search.query, search.cursor));
        }
        None
    }

    pub fn handle_mouse(&mut self, mouse: MouseEvent) {
        if !matches!(self.overlay, Overlay::None) {
            return;
        }
        let wheel = match mouse.kind {
            MouseEventKind::ScrollUp => Some(Move::By(-WHEEL_ROWS)),
            MouseEventKind::ScrollDown => Some(Move::By(WHEEL_ROWS)),
            _ => None,
        };
        // The Overview's node list and Skew's fleet pane scroll under the
        // pointer; the keys move through the pending pods and workloads.
        if let Some(m) = wheel
            && self.side_pane_contains(mouse.column, mouse.row)
        {
            self.scroll_side_list(m);
            return;
        }
        match mouse.kind {
            MouseEventKind::ScrollUp => self.move_selection(Move::By(-WHEEL_ROWS)),
            MouseEventKind::ScrollDown => self.move_selection(Move::By(WHEEL_ROWS)),
            MouseEventKind::Down(crossterm::event::MouseButton::Left) => self.click(mouse.row),
            _ => {}
        }
    }

    /// A click on a row of the list shown selects it.
    fn click(&mut self, row: u16) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        let (cursor, len) = match view {
            View::Nodes => (&mut s.nodes.cursor, s.nodes.rows.len()),
            View::Pods => (&mut s.pods.cursor, s.pods.rows.len()),
            View::Overview => (&mut s.pending_cursor, s.pending_rows.len()),
            _ => return,
        };
        if let Some(i) = cursor.row_at(row)
            && i < len
        {
            cursor.selected = i;
        }
    }

    fn palette_key(&mut self, key: KeyEvent) {
        let Overlay::Palette(p) = &mut self.overlay else {
            return;
        };
        match keys::action(&[Scope::Input], &key) {
            Some(Action::Cancel) => self.overlay = Overlay::None,
            Some(Action::Accept) => {
                let command = p.accept();
                self.overlay = Overlay::None;
                match command {
                    Ok(c) => self.run_command(c),
                    Err(e) => self.set_error(e),
                }
            }
            Some(Action::Complete) => p.complete(),
            Some(Action::Up) => p.move_highlight(-1),
            Some(Action::Down) => p.move_highlight(1),
            _ => {
                if line::edit(&mut p.input, &mut p.cursor, key) == Edit::Changed {
                    p.update();
                }
            }
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
            Command::Namespace(ns) => self.set_namespace(ns),
            Command::Contexts => self.list_contexts(),
            Command::UseContext(name) => self.use_context(&name),
        }
    }

    /// `:ns NAME` shows only that namespace in every namespaced list (the
    /// Overview's pending pods, Skew's workloads, Pods) and stays in the
    /// view shown; `:ns`, `:ns all` or `:ns -A` shows every namespace again.
    /// Nodes and Tiers are cluster-wide and stay as they are.
    pub(crate) fn set_namespace(&mut self, ns: Option<String>) {
        let Some(s) = self.session_mut() else { return };
        if let Some(n) = &ns {
            // The namespaces of the pods and workloads the lists show, from
            // the model (the tables may still be building).
            let cluster = s.cluster();
            let workloads = cluster.owners.iter().filter(|o| {
                matches!(
                    o.kind,
                    SelectorOwnerKind::ReplicaSet | SelectorOwnerKind::StatefulSet
                )
            });
            let syms: rustc_hash::FxHashSet<crate::model::Sym> = cluster
                .pods
                .iter()
                .map(|p| p.namespace)
                .chain(workloads.map(|o| o.namespace))
                .collect();
            let mut names: Vec<&str> = syms.iter().map(|&n| cluster.interner.resolve(n)).collect();
            names.sort_unstable();
            if !names.contains(&n.as_str()) {
                let text = format!(
                    "no pods or workloads in namespace {n:?}; namespaces: {}",
                    names.join(", ")
                );
                self.set_error(text);
                return;
            }
        }
        s.namespace = ns.clone();
        s.pods.forget_matches();
        s.pods.cursor.home();
        s.refresh_pods();
        s.pending_cursor.home();
        s.refresh_pending();
        s.skew_cursor.home();
        s.refresh_skew_rows();
        match ns {
            Some(n) => self.set_info(format!(
                "namespace {n}: pending pods, workloads and pods of {n} only (:ns all shows every namespace)"
            )),
            None => self.set_info("all namespaces"),
        }
    }

    /// The live context shown, or why there is none (a snapshot, a recording).
    fn live_context(&self) -> Result<String, String> {
        match self.feed.as_ref().and_then(super::Feed::live) {
            Some(live) => Ok(live.context().to_string()),
            None => {
                let name = self
                    .session()
                    .map_or(String::new(), |s| s.loaded.name.clone());
                Err(format!(
                    ":ctx is unavailable: {name} is a snapshot, not a live cluster, so there are no contexts (kplace --context NAME opens one)"
                ))
            }
        }
    }

    /// `ctx NAME` for each context of the kubeconfig (live only), for the
    /// palette's completion.
    fn context_commands(&self) -> Vec<String> {
        if self.live_context().is_err() {
            return Vec::new();
        }
        crate::app::live::contexts(self.kubeconfig.as_deref())
            .map(|names| names.into_iter().map(|n| format!("ctx {n}")).collect())
            .unwrap_or_default()
    }

    /// `:ctx`: the kubeconfig's contexts when live; a snapshot has none.
    fn list_contexts(&mut self) {
        let current = match self.live_context() {
            Ok(c) => c,
            Err(e) => return self.set_error(e),
        };
        match crate::app::live::contexts(self.kubeconfig.as_deref()) {
            Ok(names) => {
                let list: Vec<String> = names
                    .iter()
                    .map(|n| {
                        if *n == current {
                            format!("*{n}")
                        } else {
                            n.clone()
                        }
                    })
                    .collect();
                self.set_info(format!(
                    "contexts: {} (* shown; :ctx NAME switches)",
                    list.join(", ")
                ));
            }
            Err(e) => self.set_error(format!(":ctx: {e} (shown: {current})")),
        }
    }

    /// `:ctx NAME`: connects to that context of the same kubeconfig; once it
    /// has listed its objects it replaces the cluster shown (same view).
    /// Until then, or if it cannot be reached, the cluster shown stays.
    fn use_context(&mut self, name: &str) {
        let current = match self.live_context() {
            Ok(c) => c,
            Err(e) => return self.set_error(e),
        };
        if name == current {
            self.set_info(format!("already showing context {name}"));
            return;
        }
        match crate::app::live::contexts(self.kubeconfig.as_deref()) {
            Ok(names) if !names.iter().any(|n| n == name) => {
                self.set_error(format!(
                    ":ctx {name}: no such context; contexts: {}",
                    names.join(", ")
                ));
                return;
            }
            Ok(_) => {}
            Err(e) => {
                self.set_error(format!(":ctx {name}: {e}"));
                return;
            }
        }
        let options = crate::source::live::LiveOptions {
            target: crate::source::live::Target {
                kubeconfig: self.kubeconfig.clone(),
                context: Some(name.to_string()),
            },
            ..Default::default()
        };
        self.context_switch = Some((
            name.to_string(),
            Loading::start(Source::LiveContext(options)),
        ));
        self.set_info(format!(
            "connecting to context {name}… (still showing {current})"
        ));
    }

    fn filter_key(&mut self, key: KeyEvent) {
        match keys::action(&[Scope::Input], &key) {
            Some(Action::Cancel) => {
                self.filtering = false;
                self.edit_filter(String::clear);
            }
            Some(Action::Accept) => self.filtering = false,
            Some(Action::Up) => self.move_selection(Move::By(-1)),
            Some(Action::Down) => self.move_selection(Move::By(1)),
            _ => {
                let Some(mut text) = self.filter_text().map(str::to_string) else {
                    return;
                };
                let mut cursor = self.filter_cursor;
                let edit = line::edit(&mut text, &mut cursor, key);
                self.filter_cursor = cursor;
                if edit == Edit::Changed {
                    self.edit_filter(|f| *f = text);
                }
            }
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
                let name = s.loaded.derived.nodes.rows[row as usize].name.clone();
                s.pods.filter = name;
                s.pods.cursor.home();
                s.refresh_pods();
                self.switch_to(View::Pods);
            }
            View::Skew => {
                let Some(w) = s.selected_workload() else {
                    return;
                };
                let owner =
                    &s.loaded.cluster.owners[s.loaded.derived.fleet_now().workloads[w].owner];
                s.pods.filter = owner.name.to_string();
                s.pods.cursor.home();
                s.refresh_pods();
                self.switch_to(View::Pods);
            }
            _ => {}
        }
    }

    fn cycle_sort(&mut self) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        let (t, columns) = match view {
            View::Nodes => (&mut s.nodes, NODE_SORTS.len()),
            View::Pods => (&mut s.pods, POD_SORTS.len()),
            _ => return,
        };
        t.sort = (t.sort + 1) % columns;
        t.descending = false;
        t.cursor.home();
        match view {
            View::Nodes => s.refresh_nodes(),
            _ => s.refresh_pods(),
        }
    }

    /// Shift-letter in Nodes or Pods: sort by that column, again: reverse.
    fn sort_by_letter(&mut self, letter: char) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        let (t, columns): (_, &[crate::app::table::SortColumn]) = match view {
            View::Nodes => (&mut s.nodes, &NODE_SORTS),
            View::Pods => (&mut s.pods, &POD_SORTS),
            _ => return,
        };
        if !t.sort_by_letter(columns, letter) {
            let letters: Vec<String> = columns
                .iter()
                .map(|c| format!("{} {}", c.letter, c.name))
                .collect();
            let text = format!(
                "no column sorts with shift-{letter}; here: {}",
                letters.join(", ")
            );
            self.set_info(text);
            return;
        }
        match view {
            View::Nodes => s.refresh_nodes(),
            _ => s.refresh_pods(),
        }
    }

    /// Whether the point is over the shown view's side list (the
    /// Overview's node list, Skew's fleet pane), which the wheel scrolls.
    fn side_pane_contains(&self, column: u16, row: u16) -> bool {
        let Some(s) = self.session() else {
            return false;
        };
        match self.view {
            View::Overview => s.node_bars.pane_contains(column, row),
            View::Skew => s.fleet_scroll.pane_contains(column, row),
            _ => false,
        }
    }

    /// The Overview's node list and Skew's fleet pane, scrolled by their
    /// own keys (`J`, `K`) and the wheel: the arrows move the pending pods
    /// and the workloads.
    fn scroll_side_list(&mut self, m: Move) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        match view {
            View::Overview => {
                let len = s.loaded.derived.nodes.rows.len() + s.loaded.derived.zones.len();
                m.apply_scroll(&mut s.node_bars, len);
            }
            View::Skew => {
                let len = s
                    .loaded
                    .derived
                    .fleet()
                    .map_or(0, |f| s.fleet_alerts(f).len());
                m.apply_scroll(&mut s.fleet_scroll, len);
            }
            _ => {}
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
                let len = s.pending_rows.len();
                if len > 0 {
                    m.apply(&mut s.pending_cursor, len);
                } else {
                    let len = s.loaded.derived.nodes.rows.len() + s.loaded.derived.zones.len();
                    m.apply_scroll(&mut s.node_bars, len);
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
                let tiers = s.loaded.derived.tiers().map_or(0, |t| t.rows.len());
                m.apply(&mut s.tier_cursor, tiers);
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
        let last_top = c
            .last_top()
            .unwrap_or_else(|| len.saturating_sub(c.page()))
            .min(len.saturating_sub(1));
        c.selected = c.selected.min(last_top);
        match self {
            Move::By(n) => c.move_by(n, last_top + 1),
            Move::Page(n) => c.move_by(n * c.page() as isize, last_top + 1),
            Move::Home => c.home(),
            Move::End => c.end(last_top + 1),
        }
    }
}
