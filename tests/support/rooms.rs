//! Each source file is one room: no two files of a crate use each other,
//! directly or around a circle. A circle means neither file can be read,
//! changed or tested without the other, so the decision they share has no
//! one place; what one needs belongs in the file that decides it.
//!
//! The graph is built from the source text: every `use` and every path
//! through `crate::`, `super::`, `self::` or a child module, resolved to the
//! file that defines the item it names (through re-exports, so a file that
//! names `crate::Report` uses the file where `Report` is defined, not the
//! crate root that re-exports it). A file may use the files above it (its
//! folder's `mod.rs` or the file named after its folder, the crate root):
//! a module sits inside those, and whether a room below calls back up into
//! them is a question of layers, not of circles. Unit tests
//! (`#[cfg(test)]` items) are left out: a test may use what it tests.
//!
//! `tests/architecture.rs` holds the rule ([`circles_in`] finds none) and
//! a check that the finder sees what it is meant to.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace")
}

/// The source folder of every member of the workspace that has one.
pub fn crate_sources() -> Vec<PathBuf> {
    let manifest = fs::read_to_string(workspace().join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest.split("members = [").nth(1).expect("a members list");
    let members = &members[..members.find(']').expect("a closed members list")];
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .map(|m| workspace().join(m).join("src"))
        .filter(|src| src.join("lib.rs").exists() || src.join("main.rs").exists())
        .collect()
}

/// `text` with comments, string and character literals blanked out (line
/// breaks kept), so braces and paths are only those of the code.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let end = if c == '/' && next == Some('/') {
            (i..chars.len()).find(|&j| chars[j] == '\n').unwrap_or(chars.len())
        } else if c == '/' && next == Some('*') {
            (i + 2..chars.len())
                .find(|&j| chars[j - 1] == '*' && chars[j] == '/')
                .map_or(chars.len(), |j| j + 1)
        } else if (c == 'r' || (c == 'b' && next == Some('r'))) && !ident_before {
            raw_string_end(&chars, i).unwrap_or(i)
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            j + 1
        } else if c == '\'' && !ident_before {
            char_literal_end(&chars, i).unwrap_or(i)
        } else {
            i
        };
        if end > i {
            out.extend(chars[i..end.min(chars.len())].iter().map(|&c| blank(c)));
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Where a raw string starting at `i` (`r"`, `r#"`, `br#"`) ends, if one does.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i + if chars[i] == 'b' { 2 } else { 1 };
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
    (j + 1..chars.len()).find(|&k| chars[k..].starts_with(&close)).map(|k| k + close.len())
}

/// Where a character literal starting at `i` ends; `None` for a lifetime.
fn char_literal_end(chars: &[char], i: usize) -> Option<usize> {
    if chars.get(i + 1) == Some(&'\\') {
        return (i + 2..chars.len()).find(|&j| chars[j] == '\'').map(|j| j + 1);
    }
    (chars.get(i + 2) == Some(&'\'')).then_some(i + 3)
}

/// `code` without the items marked `#[cfg(test)]`.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        // The item ends at its `;`, or at the brace that closes its body.
        let (semi, brace) = (item.find(';'), item.find('{'));
        let end = match (semi, brace) {
            (Some(s), Some(b)) if s < b => s + 1,
            (_, Some(b)) => {
                let mut depth = 0;
                item[b..]
                    .char_indices()
                    .find(|&(_, c)| {
                        depth += match c {
                            '{' => 1,
                            '}' => -1,
                            _ => 0,
                        };
                        depth == 0
                    })
                    .map_or(item.len(), |(j, _)| b + j + 1)
            }
            (Some(s), None) => s + 1,
            (None, None) => item.len(),
        };
        out.extend(item[..end].chars().filter(|&c| c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// One crate's modules: module path → the file it is written in, and
/// each file's code (tests left out).
#[derive(Default)]
struct Crate {
    modules: BTreeMap<Vec<String>, PathBuf>,
    code: BTreeMap<PathBuf, String>,
}

impl Crate {
    fn read(src: &Path) -> Self {
        let mut krate = Crate::default();
        let root = if src.join("lib.rs").exists() { "lib.rs" } else { "main.rs" };
        krate.add(src.join(root), Vec::new());
        krate
    }

    /// Adds the module `path` written in `file`, and every module it declares.
    fn add(&mut self, file: PathBuf, path: Vec<String>) {
        let Ok(text) = fs::read_to_string(&file) else { return };
        let code = without_tests(&code_only(&text));
        // Where `mod name;` looks for its file: beside a root or a mod.rs,
        // else in the folder named after this file.
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        let dir = file.parent().expect("a file in a folder").to_path_buf();
        let children_dir =
            if path.is_empty() || stem == "mod" { dir.clone() } else { dir.join(&stem) };
        self.modules.insert(path.clone(), file.clone());
        for (inline, name, declared_path) in declared_modules(&code, &text) {
            let mut child = path.clone();
            child.push(name.clone());
            if inline {
                self.modules.insert(child, file.clone());
                continue;
            }
            let candidates = match declared_path {
                Some(p) => vec![dir.join(p)],
                None => vec![
                    children_dir.join(format!("{name}.rs")),
                    children_dir.join(&name).join("mod.rs"),
                ],
            };
            if let Some(found) = candidates.into_iter().find(|c| c.exists()) {
                self.add(found, child);
            }
        }
        self.code.insert(file, code);
    }

    fn module_of(&self, file: &Path) -> Vec<String> {
        self.modules
            .iter()
            .find(|(_, f)| f.as_path() == file)
            .map(|(m, _)| m.clone())
            .unwrap_or_default()
    }
}

/// The modules `code` declares: (inline, name, its `#[path]` if any).
/// `text` is the file as written, where `#[path = ".."]` keeps its string.
fn declared_modules(code: &str, text: &str) -> Vec<(bool, String, Option<String>)> {
    let mut out = Vec::new();
    let (code_lines, text_lines): (Vec<&str>, Vec<&str>) =
        (code.lines().collect(), text.lines().collect());
    for (n, line) in code_lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "mod") else { continue };
        if !words[..at].iter().all(|w| w.starts_with("pub")) {
            continue;
        }
        let Some(name) = words.get(at + 1) else { continue };
        let inline = name.ends_with('{') || words.get(at + 2) == Some(&"{");
        let name = name.trim_end_matches([';', '{']).to_owned();
        let path = n.checked_sub(1).and_then(|p| text_lines.get(p)).and_then(|attr| {
            attr.trim()
                .strip_prefix("#[path = \"")
                .and_then(|p| p.split('"').next())
                .map(str::to_owned)
        });
        out.push((inline, name, path));
    }
    out
}

/// The paths one `use` tree names: `a::{b::C, D as E, self}` gives
/// `a::b::C`, `a::D` (as `E`) and `a`, each with the name it brings in.
fn expand_use(tree: &str) -> Vec<(Vec<String>, String)> {
    let tree = tree.split_whitespace().collect::<Vec<_>>().join(" ").replace(" as ", "@");
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let mut out = Vec::new();
    expand_into(&tree, &[], &mut out);
    out
}

fn expand_into(tree: &str, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    for part in split_top_level(tree) {
        let (head, group) = match part.find('{') {
            Some(b) => (&part[..b], Some(&part[b + 1..part.len() - 1])),
            None => (part, None),
        };
        let (head, alias) = match head.split_once('@') {
            Some((head, alias)) => (head, Some(alias)),
            None => (head, None),
        };
        let mut path = prefix.to_vec();
        path.extend(head.split("::").filter(|s| !s.is_empty()).map(str::to_owned));
        if let Some(group) = group {
            expand_into(group, &path, out);
            continue;
        }
        if path.last().is_some_and(|l| l == "self") {
            path.pop();
        }
        let name = alias.map(str::to_owned).or_else(|| path.last().cloned()).unwrap_or_default();
        out.push((path, name));
    }
}

/// `a,b::{c,d},e` split at the commas outside braces.
fn split_top_level(tree: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// The `use` trees of `code`, and `code` with them blanked out.
fn use_trees(code: &str) -> (Vec<String>, String) {
    let mut trees = Vec::new();
    let mut rest = code.to_owned();
    let mut from = 0;
    while let Some(found) = rest[from..].find("use ") {
        let at = from + found;
        let word_start =
            at == 0 || !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        let Some(end) = rest[at..].find(';').map(|e| at + e) else { break };
        if word_start {
            trees.push(rest[at + 4..end].to_owned());
            let blanked: String =
                rest[at..end].chars().map(|c| if c == '\n' { c } else { ' ' }).collect();
            rest.replace_range(at..end, &blanked);
        }
        from = at + 4;
    }
    (trees, rest)
}

/// The paths written in `code` outside `use` items: `a::b::c` chains.
fn written_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut chain: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut chars = code.chars().peekable();
    let mut before = ' ';
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            if word.is_empty() && chain.is_empty() && (before == '.' || before == '\'') {
                before = c;
                while chars.peek().is_some_and(|n| n.is_alphanumeric() || *n == '_') {
                    chars.next();
                }
                continue;
            }
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') && !word.is_empty() {
            chars.next();
            chain.push(std::mem::take(&mut word));
        } else {
            if !chain.is_empty() && !word.is_empty() {
                chain.push(std::mem::take(&mut word));
                out.push(std::mem::take(&mut chain));
            }
            chain.clear();
            word.clear();
        }
        before = c;
    }
    out
}

/// Who defines or brings in the name `name` in module `module`: a file, if
/// the crate has it.
struct Resolver<'c> {
    krate: &'c Crate,
    uses: BTreeMap<PathBuf, Vec<(Vec<String>, String)>>,
}

impl Resolver<'_> {
    /// The file that defines what `path`, written in `module`, names.
    fn file_of(&self, module: &[String], path: &[String], depth: usize) -> Option<PathBuf> {
        let mut at: Vec<String> = module.to_vec();
        let mut rest = path;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                at.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().is_some_and(|s| s == "super") {
                    at.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(first) => {
                let mut child = at.clone();
                child.push(first.to_owned());
                self.krate.modules.get(&child)?;
            }
            None => return None,
        }
        while let Some(segment) = rest.first() {
            let mut child = at.clone();
            child.push(segment.clone());
            if self.krate.modules.contains_key(&child) {
                at = child;
                rest = &rest[1..];
            } else {
                return self.item_file(&at, segment, depth);
            }
        }
        self.krate.modules.get(&at).cloned()
    }

    /// The file that defines `name`, which module `module` has.
    fn item_file(&self, module: &[String], name: &str, depth: usize) -> Option<PathBuf> {
        let file = self.krate.modules.get(module)?;
        let code = self.krate.code.get(file)?;
        const KINDS: [&str; 9] =
            ["struct", "enum", "trait", "fn", "const", "static", "type", "union", "macro_rules!"];
        let words: Vec<&str> = code.split_whitespace().collect();
        let defined = words.windows(2).any(|w| {
            KINDS.contains(&w[0])
                && w[1].split(|c: char| !(c.is_alphanumeric() || c == '_')).next() == Some(name)
        });
        if defined {
            return Some(file.clone());
        }
        if depth > 8 {
            return None;
        }
        let uses = self.uses.get(file)?;
        if let Some((path, _)) = uses.iter().find(|(_, brought)| brought == name) {
            return self.file_of(module, path, depth + 1);
        }
        uses.iter().filter(|(_, brought)| brought == "*").find_map(|(glob, _)| {
            let mut path = glob.clone();
            path.pop();
            path.push(name.to_owned());
            self.file_of(module, &path, depth + 1)
        })
    }
}

/// Edges of one crate's file graph: file → file it uses → the path that
/// says so, as written.
type Graph = BTreeMap<PathBuf, BTreeMap<PathBuf, String>>;

fn file_graph(src: &Path) -> Graph {
    let krate = Crate::read(src);
    let mut resolver = Resolver { krate: &krate, uses: BTreeMap::new() };
    let mut written = BTreeMap::new();
    for (file, code) in &krate.code {
        let (trees, rest) = use_trees(code);
        resolver.uses.insert(file.clone(), trees.iter().flat_map(|t| expand_use(t)).collect());
        written.insert(file.clone(), written_paths(&rest));
    }
    let mut graph = Graph::new();
    for file in krate.code.keys() {
        let module = krate.module_of(file);
        let paths = resolver.uses[file].iter().map(|(p, _)| p.clone()).chain(written[file].clone());
        let edges = graph.entry(file.clone()).or_default();
        for path in paths {
            let Some(used) = resolver.file_of(&module, &path, 0) else { continue };
            // A module sits inside the ones above it (the file of its
            // folder, the crate root) and may use what they hold.
            if used == *file || module.starts_with(&krate.module_of(&used)) {
                continue;
            }
            edges.entry(used).or_insert_with(|| path.join("::"));
        }
    }
    graph
}

/// Every circle of `graph`, each as the files around it with the path that
/// leads from each to the next: one per group of files that reach each
/// other (Tarjan's strongly connected components).
fn circles(graph: &Graph) -> Vec<Vec<(PathBuf, String)>> {
    let files: Vec<&PathBuf> = graph.keys().collect();
    let mut reach: BTreeMap<&PathBuf, BTreeSet<&PathBuf>> = BTreeMap::new();
    // Small graphs (tens of files): what each file reaches, by search.
    for &file in &files {
        let mut seen = BTreeSet::new();
        let mut stack = vec![file];
        while let Some(at) = stack.pop() {
            for next in graph.get(at).into_iter().flat_map(BTreeMap::keys) {
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        reach.insert(file, seen);
    }
    let mut placed = BTreeSet::new();
    let mut out = Vec::new();
    for &file in &files {
        if placed.contains(file) || !reach[file].contains(file) {
            continue;
        }
        let group: BTreeSet<&PathBuf> =
            reach[file].iter().copied().filter(|other| reach[*other].contains(file)).collect();
        placed.extend(group.iter().copied());
        let mut circle = circle_through(graph, file, &group);
        if group.len() > circle.len() {
            let others = group.iter().filter(|f| !circle.iter().any(|(c, _)| c == **f));
            let others: Vec<String> = others.map(|f| name(f)).collect();
            circle.push((
                PathBuf::new(),
                format!("and on circles through the same files: {}", others.join(", ")),
            ));
        }
        out.push(circle);
    }
    out
}

/// A shortest circle from `start` back to it within `group`.
fn circle_through(
    graph: &Graph,
    start: &PathBuf,
    group: &BTreeSet<&PathBuf>,
) -> Vec<(PathBuf, String)> {
    let mut came_from: BTreeMap<&PathBuf, &PathBuf> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in graph[at].keys().filter(|n| group.contains(n)) {
            if next == start {
                let mut files = vec![at];
                while let Some(&before) = came_from.get(files.last().expect("a file")) {
                    files.push(before);
                }
                files.reverse();
                let mut circle: Vec<(PathBuf, String)> = Vec::new();
                for (i, file) in files.iter().enumerate() {
                    let next = files.get(i + 1).copied().unwrap_or(start);
                    circle.push(((*file).clone(), graph[*file][next].clone()));
                }
                return circle;
            }
            if next != start && !came_from.contains_key(next) {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    Vec::new()
}

/// `file` from the workspace's root.
fn name(file: &Path) -> String {
    file.strip_prefix(workspace()).unwrap_or(file).display().to_string()
}

/// A circle as one line: each file, the path that leads on, and back to
/// the first; then the other files that share circles with these, if any.
fn shown(circle: &[(PathBuf, String)]) -> String {
    let mut out = String::new();
    let mut also = "";
    for (file, via) in circle {
        if file.as_os_str().is_empty() {
            also = via;
            continue;
        }
        out.push_str(&format!("{} --({via})--> ", name(file)));
    }
    out.push_str(&circle.first().map(|(f, _)| name(f)).unwrap_or_default());
    if !also.is_empty() {
        out.push_str(&format!("\n    {also}"));
    }
    out
}

/// The circles of the crates whose sources are `sources`, as lines.
pub fn circles_in(sources: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    let mut files = 0;
    for src in sources {
        let graph = file_graph(src);
        files += graph.len();
        found.extend(circles(&graph).iter().map(|c| shown(c)));
    }
    assert!(
        files >= sources.len() * 2,
        "only {files} files read: the graph is not reading the crates"
    );
    found
}

/// The pairs of a crate's top-level modules (each folder or file under
/// `src`) that use each other's items, each as `a ↔ b` with a path each
/// way: how tangled the crate's rooms are above the level of files.
pub fn mutual_modules(src: &Path) -> Vec<String> {
    let graph = file_graph(src);
    let top = |file: &Path| -> String {
        let inner = file.strip_prefix(src).unwrap_or(file);
        let first = inner.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned());
        first.unwrap_or_default().trim_end_matches(".rs").to_owned()
    };
    let mut uses: BTreeMap<(String, String), String> = BTreeMap::new();
    for (file, edges) in &graph {
        for (used, via) in edges {
            let (from, to) = (top(file), top(used));
            if from != to && from != "lib" && to != "lib" {
                uses.entry((from, to)).or_insert_with(|| format!("{} uses {via}", name(file)));
            }
        }
    }
    uses.iter()
        .filter(|((a, b), _)| a < b)
        .filter_map(|((a, b), there)| {
            let back = uses.get(&(b.clone(), a.clone()))?;
            Some(format!("{a} ↔ {b}: {there}; {back}"))
        })
        .collect()
}
