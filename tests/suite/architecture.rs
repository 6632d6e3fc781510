//! The shape of the house (ARCHITECTURE.md): the modules under `src/` import
//! each other without a cycle, and no source file is longer than a reader can
//! hold in mind.
//!
//! The import graph is read from the source with `syn`: one node per module
//! (a file, or an inline `mod`), one edge per module that a `use` or a path
//! names (`crate::…`, `super::…`, `self::…`, a child module, or a name a `use`
//! brought in). Test code (`#[cfg(test)]`) is left out. `cargo test
//! module_graph -- --nocapture` prints the graph in dependency order.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The longest a file under `src/` may be.
const MAX_LINES: usize = 700;
/// The longest a function may be, from `fn` to its closing brace.
const MAX_FN_LINES: usize = 100;

type ModPath = Vec<String>;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The file of module `child` declared in a module whose children live in
/// `dir`: `dir/child.rs`, else `dir/child/mod.rs`.
fn child_file(dir: &Path, child: &str) -> PathBuf {
    let flat = dir.join(format!("{child}.rs"));
    if flat.exists() {
        flat
    } else {
        dir.join(child).join("mod.rs")
    }
}

fn name(path: &ModPath) -> String {
    if path.is_empty() {
        "crate".to_string()
    } else {
        path.join("::")
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Every module of the library, with the paths its code names.
#[derive(Default)]
struct Crate {
    /// Module → the paths named in it, as written (with the module's
    /// aliases already applied where they start a path).
    named: BTreeMap<ModPath, Vec<ModPath>>,
    /// Module → the paths named in it that lead out of the crate
    /// (`std::io::stdout`, `dialoguer::Confirm`), aliases applied.
    external: BTreeMap<ModPath, Vec<ModPath>>,
}

impl Crate {
    fn load() -> Crate {
        let mut krate = Crate::default();
        krate.load_file(&src_dir().join("lib.rs"), Vec::new(), &src_dir());
        krate
    }

    /// Reads a module file; `dir` is where its child modules' files are.
    fn load_file(&mut self, file: &Path, module: ModPath, dir: &Path) {
        let text = std::fs::read_to_string(file).unwrap();
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        self.load_items(&parsed.items, module, dir);
    }

    fn load_items(&mut self, items: &[syn::Item], module: ModPath, dir: &Path) {
        let mut collector = Collector::default();
        for item in items {
            match item {
                syn::Item::Mod(m) if is_cfg_test(&m.attrs) => {}
                syn::Item::Mod(m) => {
                    let child_name = m.ident.to_string();
                    collector.children.insert(child_name.clone());
                    let mut child = module.clone();
                    child.push(child_name.clone());
                    match &m.content {
                        Some((_, inner)) => {
                            self.load_items(inner, child, &dir.join(&child_name));
                        }
                        None => {
                            let file = child_file(dir, &child_name);
                            self.load_file(&file, child, &dir.join(&child_name));
                        }
                    }
                }
                other => collector.item(other),
            }
        }
        let (named, external) = collector.resolve(&module);
        self.named.insert(module.clone(), named);
        self.external.insert(module, external);
    }

    /// Module → the modules it imports.
    fn graph(&self) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
        let modules: BTreeSet<&ModPath> = self.named.keys().collect();
        self.named
            .iter()
            .map(|(module, paths)| {
                let targets = paths
                    .iter()
                    .filter_map(|path| {
                        (1..=path.len())
                            .rev()
                            .map(|n| path[..n].to_vec())
                            .find(|prefix| modules.contains(prefix))
                    })
                    .filter(|target| target != module)
                    .collect();
                (module.clone(), targets)
            })
            .collect()
    }
}

/// The paths one module's (non-test) items name.
#[derive(Default)]
struct Collector {
    children: BTreeSet<String>,
    /// Names brought in by `use`: name → the path it stands for.
    aliases: HashMap<String, ModPath>,
    /// `use` paths and other paths, as written.
    paths: Vec<ModPath>,
}

impl Collector {
    fn item(&mut self, item: &syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        };
        if is_cfg_test(attrs) {
            return;
        }
        if let syn::Item::Use(u) = item {
            self.use_tree(&u.tree, Vec::new());
        } else {
            self.visit_item(item);
        }
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: ModPath) {
        let with = |segment: String| {
            let mut path = prefix.clone();
            path.push(segment);
            path
        };
        match tree {
            syn::UseTree::Path(p) => self.use_tree(&p.tree, with(p.ident.to_string())),
            syn::UseTree::Name(n) if n.ident == "self" => {
                if let Some(last) = prefix.last() {
                    self.aliases.insert(last.clone(), prefix.clone());
                }
                self.paths.push(prefix);
            }
            syn::UseTree::Name(n) => {
                let path = with(n.ident.to_string());
                self.aliases.insert(n.ident.to_string(), path.clone());
                self.paths.push(path);
            }
            syn::UseTree::Rename(r) => {
                let path = with(r.ident.to_string());
                self.aliases.insert(r.rename.to_string(), path.clone());
                self.paths.push(path);
            }
            syn::UseTree::Glob(_) => self.paths.push(prefix),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(tree, prefix.clone());
                }
            }
        }
    }

    /// The paths as absolute module paths where they lead into this crate,
    /// and the paths that lead out of it.
    fn resolve(self, module: &ModPath) -> (Vec<ModPath>, Vec<ModPath>) {
        let resolve_one = |path: &ModPath| -> Option<ModPath> {
            let (first, rest) = path.split_first()?;
            let mut base = match first.as_str() {
                "crate" => Vec::new(),
                "self" => module.clone(),
                "super" => module[..module.len().checked_sub(1)?].to_vec(),
                child if self.children.contains(child) => {
                    let mut base = module.clone();
                    base.push(child.to_string());
                    base
                }
                _ => return None,
            };
            let mut rest = rest.iter().peekable();
            while rest.peek().is_some_and(|s| *s == "super") {
                rest.next();
                base.pop()?;
            }
            base.extend(rest.cloned());
            Some(base)
        };
        let mut inside = Vec::new();
        let mut outside = Vec::new();
        for path in &self.paths {
            let expanded = match path.first().and_then(|f| self.aliases.get(f)) {
                // A path through a `use` alias: `tools::bash::run` after `use crate::tools`.
                Some(target) if path.len() > 1 || target != path => {
                    let mut full = target.clone();
                    full.extend(path[1..].iter().cloned());
                    full
                }
                _ => path.clone(),
            };
            match resolve_one(&expanded) {
                Some(resolved) => inside.push(resolved),
                None => outside.push(expanded),
            }
        }
        (inside, outside)
    }

    fn tokens(&mut self, tokens: TokenStream) {
        // Paths inside macro calls (`format!("{}", crate::x::y())`) are
        // tokens: `ident :: ident :: …`.
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(first) => {
                    let mut path = vec![first.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    if path.len() > 1 {
                        self.paths.push(path);
                    }
                    i = j - 1;
                }
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: ModPath = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 || self.aliases.contains_key(&segments[0]) {
            self.paths.push(segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        // A `use` inside a function body.
        self.use_tree(&u.tree, Vec::new());
    }
}

/// The strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'g> {
        graph: &'g BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: HashMap<&'g ModPath, usize>,
        low: HashMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        found: Vec<Vec<ModPath>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[test]
fn architecture_module_graph_has_no_cycle() {
    let graph = Crate::load().graph();
    let found = describe_cycles(&graph);
    assert!(found.is_empty(), "{}", found.join("\n"));
    print_in_order("modules, leaves first:", &graph);
}

/// The graph between the crate's top-level modules (folders and files right
/// under `src/`): an edge where any module inside one names one inside another.
fn folder_graph(
    graph: &BTreeMap<ModPath, BTreeSet<ModPath>>,
) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let top = |m: &ModPath| m.first().map_or_else(Vec::new, |f| vec![f.clone()]);
    let mut folders: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (from, targets) in graph {
        let entry = folders.entry(top(from)).or_default();
        entry.extend(targets.iter().map(top).filter(|t| *t != top(from)));
    }
    folders
}

/// Says each cycle with its edges, or nothing when there is none.
fn describe_cycles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<String> {
    cycles(graph)
        .iter()
        .map(|component| {
            let members: BTreeSet<&ModPath> = component.iter().collect();
            let edges: Vec<String> = component
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|to| members.contains(to))
                        .map(move |to| format!("  {} → {}", name(from), name(to)))
                })
                .collect();
            format!(
                "a cycle of {} modules:\n{}",
                component.len(),
                edges.join("\n")
            )
        })
        .collect()
}

/// Prints the graph leaves first, each node with what it imports.
fn print_in_order(title: &str, graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) {
    let mut placed: Vec<&ModPath> = Vec::new();
    while placed.len() < graph.len() {
        let ready: Vec<&ModPath> = graph
            .iter()
            .filter(|(m, deps)| !placed.contains(m) && deps.iter().all(|d| placed.contains(&d)))
            .map(|(m, _)| m)
            .collect();
        placed.extend(ready);
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{title}");
    for module in placed {
        let deps: Vec<String> = graph[module].iter().map(name).collect();
        let _ = writeln!(err, "{:<28} → {}", name(module), deps.join(", "));
    }
}

#[test]
fn architecture_folder_graph_has_no_cycle() {
    let folders = folder_graph(&Crate::load().graph());
    let found = describe_cycles(&folders);
    assert!(found.is_empty(), "{}", found.join("\n"));
    print_in_order("top-level modules, leaves first:", &folders);
}

#[test]
fn source_files_stay_short() {
    let mut long = Vec::new();
    let mut dirs = vec![src_dir()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let lines = std::fs::read_to_string(&path).unwrap().lines().count();
                if lines > MAX_LINES {
                    long.push(format!("{} ({lines} lines)", path.display()));
                }
            }
        }
    }
    long.sort();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines; split them by concern:\n{}",
        long.join("\n")
    );
}

/// `module` is `ancestor` or inside it.
fn within(module: &ModPath, ancestor: &[&str]) -> bool {
    module.len() >= ancestor.len() && module.iter().zip(ancestor).all(|(a, b)| a == b)
}

#[test]
fn architecture_children_never_import_their_parents() {
    let graph = Crate::load().graph();
    let upward: Vec<String> = graph
        .iter()
        .flat_map(|(module, targets)| {
            targets
                .iter()
                .filter(|t| t.len() < module.len() && module.starts_with(t))
                .map(move |t| format!("{} → {}", name(module), name(t)))
        })
        .collect();
    assert!(
        upward.is_empty(),
        "a module imports an item of its own parent; move the item to a file of its own and import that:\n{}",
        upward.join("\n")
    );
}

#[test]
fn architecture_runtimes_sit_side_by_side_over_job() {
    let graph = Crate::load().graph();
    // (who, must not import)
    let forbidden: [(&[&str], &[&str]); 4] = [
        (&["job"], &["agent"]),
        (&["job"], &["opencode"]),
        (&["opencode"], &["agent"]),
        (&["agent"], &["opencode"]),
    ];
    let mut found = Vec::new();
    for (who, never) in forbidden {
        for (module, targets) in graph.iter().filter(|(m, _)| within(m, who)) {
            for target in targets.iter().filter(|t| within(t, never)) {
                found.push(format!("{} → {}", name(module), name(target)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "what both runtimes share belongs in `job`:\n{}",
        found.join("\n")
    );
}

/// Outside `owner`, no (non-test) code names a path that starts with one of
/// `paths`.
fn only_in(owner: &[&str], paths: &[&[&str]]) -> Vec<String> {
    let krate = Crate::load();
    let mut found = BTreeSet::new();
    for (module, named) in krate.external.iter().filter(|(m, _)| !within(m, owner)) {
        for path in named {
            if paths.iter().any(|p| within(path, p)) {
                found.insert(format!("{} names {}", name(module), path.join("::")));
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn architecture_only_ui_writes_to_the_terminal() {
    let found = only_in(
        &["ui"],
        &[
            &["std", "io", "stdout"],
            &["std", "io", "stderr"],
            &["dialoguer"],
            &["console", "Term"],
            &["indicatif"],
        ],
    );
    assert!(
        found.is_empty(),
        "stdout, stderr and prompts belong to `ui`:\n{}",
        found.join("\n")
    );
}

/// `permissions` reads a command line once (`reading`, with `words` for
/// one word): no other module parses shell.
#[test]
fn architecture_only_the_reading_parses_shell() {
    let found: Vec<String> = only_in(&["permissions", "reading"], &[&["brush_parser"]])
        .into_iter()
        .filter(|f| !f.starts_with("permissions::words "))
        .collect();
    assert!(
        found.is_empty(),
        "shell is parsed in `permissions::reading` alone:\n{}",
        found.join("\n")
    );
}

#[test]
fn architecture_file_contents_are_written_through_fsutil() {
    let found = only_in(
        &["fsutil"],
        &[
            &["std", "fs", "write"],
            &["std", "fs", "File", "create"],
            &["File", "create"],
        ],
    );
    assert!(
        found.is_empty(),
        "a file's contents are written through `fsutil` (atomic, synced):\n{}",
        found.join("\n")
    );
}

/// Functions (free, in `impl` and `trait` blocks, nested) longer than
/// [`MAX_FN_LINES`], outside test code.
#[derive(Default)]
struct LongFunctions {
    file: String,
    found: Vec<String>,
}

impl LongFunctions {
    fn check(&mut self, name: &syn::Ident, sig: &syn::Signature, block: &syn::Block) {
        let start = sig.fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        let lines = end + 1 - start;
        if lines > MAX_FN_LINES {
            self.found
                .push(format!("{}:{start} {name} ({lines} lines)", self.file));
        }
    }
}

impl<'ast> Visit<'ast> for LongFunctions {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_cfg_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            self.check(&f.sig.ident, &f.sig, &f.block);
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_cfg_test(&f.attrs) {
            self.check(&f.sig.ident, &f.sig, &f.block);
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.check(&f.sig.ident, &f.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// Visits the library's (non-test) module files from `file` down; `dir` is
/// where its child modules' files are.
fn visit_modules(file: &Path, dir: &Path, long: &mut LongFunctions) {
    let text = std::fs::read_to_string(file).unwrap();
    let parsed = syn::parse_file(&text).unwrap();
    long.file = file.strip_prefix(src_dir()).unwrap().display().to_string();
    long.visit_file(&parsed);
    for item in &parsed.items {
        if let syn::Item::Mod(m) = item
            && m.content.is_none()
            && !is_cfg_test(&m.attrs)
        {
            let child = m.ident.to_string();
            visit_modules(&child_file(dir, &child), &dir.join(&child), long);
        }
    }
}

#[test]
fn architecture_functions_stay_short() {
    let mut long = LongFunctions::default();
    visit_modules(&src_dir().join("lib.rs"), &src_dir(), &mut long);
    let mut main = LongFunctions::default();
    visit_modules(&src_dir().join("main.rs"), &src_dir(), &mut main);
    long.found.extend(main.found);
    long.found.sort();
    assert!(
        long.found.is_empty(),
        "functions over {MAX_FN_LINES} lines; split them into steps that read as the story:\n{}",
        long.found.join("\n")
    );
}

/// Where a change to the conversation may skip the save, and why: every
/// other change goes through `Journal::push`, which saves at once.
const UNSAVED_CONVERSATION: [(&str, &str); 6] = [
    (
        "agent/setup.rs",
        "the system prompt of a session not yet written",
    ),
    (
        "agent/opening.rs",
        "the opening, scrubbed of secrets before it is saved",
    ),
    (
        "agent/turns.rs",
        "the prompt's images and a fallback's system prompt, saved with the opening or the turn",
    ),
    ("agent/room.rs", "compaction in place, saved with the turn"),
    (
        "agent/structured.rs",
        "the schema's instruction, added to the prompt before the first request",
    ),
    ("job/steps.rs", "a unit test's conversation"),
];

/// The Journal rule (ARCHITECTURE.md): a session's conversation changes
/// only through `Journal`, whose pushes are saved at once, or through the
/// methods named `unsaved`, in the places [`UNSAVED_CONVERSATION`] lists.
#[test]
fn architecture_every_message_pushed_is_saved_or_said_unsaved() {
    let journal = std::fs::read_to_string(src_dir().join("session/journal.rs")).unwrap();
    let journal = syn::parse_file(&journal).unwrap();
    for item in &journal.items {
        if let syn::Item::Impl(block) = item
            && let Some((_, trait_path, _)) = &block.trait_
        {
            let name = trait_path.segments.last().unwrap().ident.to_string();
            assert_ne!(name, "DerefMut", "a Journal lends no `&mut Session` unsaid");
        }
    }
    let file = std::fs::read_to_string(src_dir().join("session/file.rs")).unwrap();
    let file = syn::parse_file(&file).unwrap();
    let session = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Struct(s) if s.ident == "Session" => Some(s),
            _ => None,
        })
        .unwrap();
    let messages = session
        .fields
        .iter()
        .find(|f| f.ident.as_ref().is_some_and(|i| i == "messages"))
        .unwrap();
    assert!(
        matches!(&messages.vis, syn::Visibility::Restricted(r) if r.path.is_ident("super")),
        "Session::messages is seen only by the session module"
    );
    let mut unlisted = Vec::new();
    let root = src_dir();
    let mut files = vec![root.clone()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let relative = path.strip_prefix(&root).unwrap().display().to_string();
        if relative.starts_with("session/") || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let unsaved = text.contains("push_unsaved(") || text.contains("messages_unsaved(");
        if unsaved && !UNSAVED_CONVERSATION.iter().any(|(f, _)| *f == relative) {
            unlisted.push(relative);
        }
    }
    assert!(
        unlisted.is_empty(),
        "unsaved changes to the conversation outside the listed places: {unlisted:?}"
    );
}

/// One end of a run (ARCHITECTURE.md): both runtimes end through
/// `job::Finish` (the verdict on record, `-o`, the checkpoint, the session
/// and record saved), and nothing outside `job` saves a record or settles
/// a checkpoint itself.
#[test]
fn architecture_both_runtimes_end_a_run_through_finish() {
    let krate = Crate::load();
    let names_finish = |module: &[&str]| {
        let module: ModPath = module.iter().map(|s| s.to_string()).collect();
        krate.named.get(&module).is_some_and(|paths| {
            paths.iter().any(|p| {
                p.first().is_some_and(|c| c == "job") && p.last().is_some_and(|l| l == "Finish")
            })
        })
    };
    assert!(
        names_finish(&["agent", "close"]),
        "agent::close ends through job::Finish"
    );
    assert!(
        names_finish(&["opencode", "runtime"]),
        "opencode::runtime ends through job::Finish"
    );
    let mut found = Vec::new();
    for (module, paths) in krate.named.iter().filter(|(m, _)| !within(m, &["job"])) {
        for path in paths {
            let own = [
                "save_with_record",
                "settle_checkpoint",
                "set_aside",
                "record",
            ];
            if within(path, &["job"]) && path.iter().skip(1).any(|p| own.contains(&p.as_str())) {
                found.push(format!("{} names {}", name(module), path.join("::")));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the end of a run is written by job::Finish alone:\n{}",
        found.join("\n")
    );
}
