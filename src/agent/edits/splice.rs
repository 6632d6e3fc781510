//! Whole definitions into a big file: the model, shown only some functions
//! of a file too long to rewrite, sends back the functions, methods or
//! classes it changes (and new ones). Each is found by name with
//! tree-sitter and its lines replaced; a new one goes after the definition
//! that comes before it in the block (its named neighbour), or at the end;
//! a new import goes after the file's last import. Every byte outside the
//! replaced lines stays as it was: line endings, indentation style and the
//! rest of the file. The result is exact `edit_file` replacements, so the
//! write guards and the syntax guard see the spliced file.

use std::collections::BTreeSet;

use crate::agent::docstrings;
use crate::tools::outline::{self, Definition, Kind};
use crate::tools::similarity::Bigrams;
pub(crate) use change::applied;
use change::{Change, to_edits};
use indent::{Unit, dedent, indent_unit, leading, reindent};
use loose::{last_import, loose_lines};
pub(crate) use reading::without_placeholders;
use reading::{block_definitions, is_javascript};

mod change;
mod indent;
mod kept;
mod loose;
mod reading;

/// What a block of definitions does to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spliced {
    /// `(old_string, new_string)` pairs, exact and unique in the file, in
    /// file order; empty when every definition is as it was.
    pub edits: Vec<(String, String)>,
    /// Lines outside any definition that change lines of the file (an
    /// edited `if __name__ == "__main__":` block): they were left out, as
    /// only definitions and imports are placed. New stray lines (a usage
    /// example) are left out without a word.
    pub left_out: Vec<String>,
    /// The file's definitions the block changes that the model was never
    /// shown: they stay as they are (one would be rewritten from a guess).
    pub unseen: Vec<Unseen>,
}

/// A definition of the file the model was not shown: `Signer.sign`, lines
/// `start_line..=end_line` (1-based) of the file once the block's other
/// definitions are in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unseen {
    pub name: String,
    pub start_line: usize,
    pub end_line: usize,
}

/// What the model was shown of a file in parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ShownParts {
    /// Qualified names of the definitions shown (`Signer.sign`).
    pub definitions: Vec<String>,
    /// Line ranges shown, 1-based and inclusive.
    pub lines: Vec<(usize, usize)>,
    /// The file's text when the run first showed it: a definition that is
    /// not in it, the model wrote in this run, so it knows it.
    pub first: Option<String>,
}

impl ShownParts {
    /// Whether the model saw all of `def`: it was shown by name, or its
    /// lines lie in what was shown.
    fn covers(&self, def: &Definition) -> bool {
        self.definitions.contains(&def.qualified())
            || self
                .lines
                .iter()
                .any(|&(start, end)| start <= def.start_line && def.end_line <= end)
    }
}

/// The edits that put the definitions of `block` into `old`, the text of
/// `path`. `seen` is what the model was shown of the file: a name that two
/// definitions share means the one shown, and only a definition it saw may
/// be replaced (one it did not see would be rewritten from a guess): those
/// the block changes stay as they are and are listed in
/// [`Spliced::unseen`], the others go in; one sent back as the file has it
/// changes nothing.
///
/// Errors (for the model): the file's type has no grammar, the block holds
/// no definition, or a new one cannot be placed.
pub(crate) fn splice(
    path: &str,
    old: &str,
    block: &str,
    seen: &ShownParts,
) -> Result<Spliced, String> {
    let no_grammar = || {
        format!(
            "{path} is shown in parts and its definitions cannot be read; send SEARCH/REPLACE blocks for it"
        )
    };
    let old_defs = outline::definitions(path, old).ok_or_else(no_grammar)?;
    let raw_lines: Vec<&str> = block.lines().collect();
    let block = dedent(block);
    let block_defs = block_definitions(path, &block).ok_or_else(no_grammar)?;
    let block_lines: Vec<&str> = block.lines().collect();
    let verbatim: BTreeSet<usize> = outline::multiline_strings(path, &block)
        .into_iter()
        .flat_map(|(start, end)| start + 1..=end)
        .collect();
    let old_lines: Vec<&str> = old.lines().collect();
    let file = File {
        lines: &old_lines,
        defs: &old_defs,
        unit: indent_unit(old),
        seen,
        python: path.ends_with(".py") || path.ends_with(".pyi"),
        first: seen.first.as_ref().map(|text| text.replace("\r\n", "\n")),
    };
    let ours = Block {
        lines: &block_lines,
        raw: &raw_lines,
        verbatim,
        defs: &block_defs,
        unit: indent_unit(&block),
        javascript: is_javascript(path),
    };
    let mut top: Vec<&Definition> = block_defs.iter().filter(|d| d.parent.is_none()).collect();
    // Assignments after the last function or class are a usage example
    // (`c = Circle(2)`), not definitions of the file.
    if let Some(last_code) = top.iter().rposition(|d| d.kind != Kind::Value) {
        top.truncate(last_code + 1);
    }
    if top.is_empty() {
        return Err(format!(
            "the block for {path} holds no whole function, method or class; {path} is too long to send whole, so send each definition you change from its first line to its last, or SEARCH/REPLACE blocks"
        ));
    }
    let mut changes = Vec::new();
    let mut unseen = Vec::new();
    place_all(&file, &ours, &top, None, &mut changes, &mut unseen)?;
    let (imports, left_out) = loose_lines(&old_lines, &block_lines, &top);
    if !imports.is_empty() {
        changes.push(Change {
            start: last_import(&old_lines) + 1,
            end: last_import(&old_lines),
            lines: imports,
        });
    }
    // Unseen definitions are named where they are once the block is in.
    for u in &mut unseen {
        let shift: isize = changes
            .iter()
            .filter(|c| c.end < u.start_line)
            .map(|c| c.lines.len() as isize - (c.end + 1 - c.start) as isize)
            .sum();
        u.start_line = u.start_line.saturating_add_signed(shift);
        u.end_line = u.end_line.saturating_add_signed(shift);
    }
    let edits = to_edits(old, &old_lines, changes)?;
    Ok(Spliced {
        edits,
        left_out,
        unseen,
    })
}

/// The file being changed.
struct File<'a> {
    lines: &'a [&'a str],
    defs: &'a [Definition],
    unit: Unit,
    seen: &'a ShownParts,
    python: bool,
    /// [`ShownParts::first`] with `\n` line ends.
    first: Option<String>,
}

/// The model's block, dedented.
struct Block<'a> {
    lines: &'a [&'a str],
    /// The lines as the model wrote them, before the dedent.
    raw: &'a [&'a str],
    /// Lines (1-based) inside a string that runs over several lines: its
    /// value, kept as the model wrote it.
    verbatim: BTreeSet<usize>,
    defs: &'a [Definition],
    unit: Unit,
    javascript: bool,
}

impl Block<'_> {
    fn text_of(&self, def: &Definition) -> Vec<&str> {
        self.lines[def.start_line - 1..def.end_line].to_vec()
    }

    /// `def` moved to `indent` in the file's step (`unit`); the lines of a
    /// string's value stay as the model wrote them (moving them would
    /// change the string).
    fn reindented(&self, def: &Definition, indent: &str, unit: Unit) -> Vec<String> {
        let mut lines = reindent(&self.text_of(def), self.unit, indent, unit);
        for (i, line) in lines.iter_mut().enumerate() {
            let n = def.start_line + i;
            if self.verbatim.contains(&n)
                && let Some(raw) = self.raw.get(n - 1)
            {
                *line = raw.to_string();
            }
        }
        lines
    }

    fn members(&self, parent: &Definition) -> Vec<&Definition> {
        self.defs
            .iter()
            .filter(|d| {
                d.parent.as_deref() == Some(parent.name.as_str())
                    && d.start_line >= parent.start_line
                    && d.end_line <= parent.end_line
            })
            .collect()
    }
}

impl File<'_> {
    /// The file's definition `def` of the block stands for, among those in
    /// `within` (a container's span) when given.
    fn target(
        &self,
        def: &Definition,
        block: &Block<'_>,
        within: Option<&Definition>,
    ) -> Option<&Definition> {
        // A function sent alone that is no method is a top-level one, never
        // the method of a class that shares its name.
        let bare_method = within.is_none() && is_method(def, block);
        let named: Vec<&Definition> = self
            .defs
            .iter()
            .filter(|d| d.name == def.name)
            .filter(|d| match within {
                Some(w) => {
                    d.start_line > w.start_line
                        && d.end_line <= w.end_line
                        && d.parent.as_deref() == Some(w.name.as_str())
                }
                None => d.parent.is_none() || bare_method,
            })
            .collect();
        let alike: Vec<&Definition> = named
            .iter()
            .copied()
            .filter(|d| same_kind(d.kind, def.kind))
            .collect();
        // A name the file gives a definition of another kind at the same
        // level is that definition, never a new one beside it.
        let candidates: Vec<&Definition> = if alike.is_empty() {
            named
                .into_iter()
                .filter(|d| d.parent.is_none() == def.parent.is_none())
                .take(1)
                .collect()
        } else {
            // Of several (`impl Account`, `impl Display for Account`), the
            // one with the same header.
            let same_header: Vec<&Definition> = (alike.iter().copied())
                .filter(|d| d.signature == def.signature)
                .collect();
            if same_header.is_empty() {
                alike
            } else {
                same_header
            }
        };
        if candidates.len() <= 1 {
            return candidates.first().copied();
        }
        let shown: Vec<&Definition> = candidates
            .iter()
            .copied()
            .filter(|d| self.knows(d))
            .collect();
        let pool = if shown.is_empty() { candidates } else { shown };
        let text = Bigrams::of(&block.text_of(def).join("\n"));
        pool.into_iter().max_by(|a, b| {
            let sa = Bigrams::of(&self.text_of(a).join("\n")).dice(&text);
            let sb = Bigrams::of(&self.text_of(b).join("\n")).dice(&text);
            sa.total_cmp(&sb)
        })
    }

    fn text_of(&self, def: &Definition) -> Vec<&str> {
        self.lines[def.start_line - 1..def.end_line].to_vec()
    }

    /// The name of the block's method `def` and the classes it could be a
    /// method of, when it was sent without its class and several shown
    /// classes have it (a guess by its text picked the wrong one); `None`
    /// when one of them is as sent.
    fn ambiguous(&self, def: &Definition, block: &Block<'_>) -> Option<(String, Vec<String>)> {
        if !is_method(def, block) {
            return None;
        }
        let shown: Vec<&Definition> = (self.defs.iter())
            .filter(|d| d.name == def.name && d.parent.is_some() && self.knows(d))
            .collect();
        let mut classes: Vec<String> = shown.iter().filter_map(|d| d.parent.clone()).collect();
        classes.dedup();
        let sent = block.text_of(def);
        let unchanged = shown.iter().any(|d| same_code(&self.text_of(d), &sent));
        (classes.len() > 1 && !unchanged).then(|| (def.name.clone(), classes))
    }

    /// Whether the model knows all of `def`: it was shown it, or wrote it
    /// (it is not in the file as the run first showed it).
    fn knows(&self, def: &Definition) -> bool {
        self.seen.covers(def)
            || self
                .first
                .as_deref()
                .is_some_and(|first| !first.contains(&self.text_of(def).join("\n")))
    }

    fn members(&self, parent: &Definition) -> Vec<&Definition> {
        self.defs
            .iter()
            .filter(|d| {
                d.parent.as_deref() == Some(parent.name.as_str())
                    && d.start_line > parent.start_line
                    && d.end_line <= parent.end_line
            })
            .collect()
    }

    /// The one container whose members the model was shown.
    fn shown_container(&self) -> Option<&Definition> {
        let mut parents: Vec<&str> = self
            .defs
            .iter()
            .filter(|d| self.seen.definitions.contains(&d.qualified()))
            .filter_map(|d| d.parent.as_deref())
            .collect();
        parents.dedup();
        let [name] = parents.as_slice() else {
            return None;
        };
        self.defs
            .iter()
            .find(|d| d.parent.is_none() && d.name == *name && d.kind == Kind::Container)
    }

    /// The line a new member of `container` goes before: its closing
    /// brace, or the line after it (Python).
    fn end_of_body(&self, container: &Definition) -> usize {
        let last = self.lines[container.end_line - 1].trim_start();
        if !self.python && last.starts_with('}') {
            container.end_line
        } else {
            container.end_line + 1
        }
    }

    /// The indentation of a definition's first line.
    fn indent_of(&self, def: &Definition) -> String {
        leading(self.lines[def.start_line - 1]).to_string()
    }
}

/// A container the model saw members of: it may send the container with
/// those members (the others stay), never the container whole.
fn is_container_of_seen(file: &File<'_>, target: &Definition) -> bool {
    target.kind == Kind::Container && file.members(target).iter().any(|m| file.knows(m))
}

/// Whether the block's `def` is a method sent without its class: a Python
/// or Rust function that takes `self` (or `cls`), a Python static or class
/// method, a JavaScript method (no `function` keyword).
fn is_method(def: &Definition, block: &Block<'_>) -> bool {
    if def.kind != Kind::Function {
        return false;
    }
    let takes_self = ["(self", "(cls", "(&self", "(&mut self", "(mut self"]
        .iter()
        .any(|p| def.signature.contains(p));
    let decorated = block.lines[def.start_line - 1..def.header_line - 1]
        .iter()
        .any(|l| ["@staticmethod", "@classmethod"].contains(&l.trim()));
    let first = def.signature.split_whitespace().next().unwrap_or_default();
    let javascript_method = block.javascript
        && ![
            "function",
            "async",
            "export",
            "const",
            "let",
            "var",
            "function*",
        ]
        .contains(&first);
    takes_self || decorated || javascript_method
}

/// The lines of `container` (in `lines`) outside its header and its
/// `members`, trimmed: its docstring, attributes, comments.
fn own_lines<'t>(
    lines: &[&'t str],
    container: &Definition,
    members: &[&Definition],
) -> BTreeSet<&'t str> {
    (container.header_line + 1..=container.end_line)
        .filter(|&n| !members.iter().any(|m| m.start_line <= n && n <= m.end_line))
        .map(|n| lines[n - 1].trim())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Whether two texts are the same code, indentation and blank lines aside.
fn same_code(a: &[&str], b: &[&str]) -> bool {
    let code = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    code(a) == code(b)
}

fn kind_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Function => "function",
        Kind::Container => "class",
        Kind::Value => "value",
    }
}

fn same_kind(a: Kind, b: Kind) -> bool {
    a == b || (a == Kind::Value && b == Kind::Function) || (a == Kind::Function && b == Kind::Value)
}

/// Places the block's definitions `defs` (siblings, in block order) into
/// the file, inside `within` when they are a container's members. A
/// definition the model was not shown stays as it is: `unseen` gets its
/// name and lines when the block changes it.
fn place_all(
    file: &File<'_>,
    block: &Block<'_>,
    defs: &[&Definition],
    within: Option<&Definition>,
    changes: &mut Vec<Change>,
    unseen: &mut Vec<Unseen>,
) -> Result<(), String> {
    if within.is_none()
        && let Some((name, classes)) = defs.iter().find_map(|d| file.ambiguous(d, block))
    {
        return Err(format!(
            "`{name}` is a method of {}, all shown: send it inside its class (its `class` line, then the method) so that it is clear which one changes",
            classes.join(", ")
        ));
    }
    let targets: Vec<Option<&Definition>> =
        defs.iter().map(|d| file.target(d, block, within)).collect();
    for (i, def) in defs.iter().enumerate() {
        match targets[i] {
            // `...` for a body: the model left it as it is.
            Some(target)
                if file.python
                    && kept::ellipsis_body(block.lines, def)
                    && !kept::ellipsis_body(file.lines, target) => {}
            Some(target) if !file.knows(target) && !is_container_of_seen(file, target) => {
                if !same_code(&block.text_of(def), &file.text_of(target)) {
                    unseen.push(Unseen {
                        name: target.qualified(),
                        start_line: target.start_line,
                        end_line: target.end_line,
                    });
                }
            }
            Some(target) if def.kind == Kind::Container && target.kind == Kind::Container => {
                place_container(file, block, def, target, changes, unseen)?;
            }
            Some(target) if target.kind != def.kind && !same_kind(target.kind, def.kind) => {
                return Err(format!(
                    "`{}` is a {} in the file and a {} in your block; send it as the file has it, changed",
                    def.name,
                    kind_word(target.kind),
                    kind_word(def.kind)
                ));
            }
            Some(target) => changes.push(replace(file, block, def, target)),
            None => changes.push(insert_new(file, block, defs, &targets, i, within)?),
        }
    }
    Ok(())
}

/// Places the block's container `def` into the file's container `target`:
/// whole when it is sent whole (or the file's has no members) and the
/// model knows it, else member by member.
fn place_container(
    file: &File<'_>,
    block: &Block<'_>,
    def: &Definition,
    target: &Definition,
    changes: &mut Vec<Change>,
    unseen: &mut Vec<Unseen>,
) -> Result<(), String> {
    let old_members = file.members(target);
    let new_members = block.members(def);
    let complete = is_whole(file, block, def, target, &old_members, &new_members);
    if (complete || old_members.is_empty()) && file.knows(target) {
        changes.push(replace(file, block, def, target));
    } else {
        let direct: Vec<&Definition> = new_members;
        place_all(file, block, &direct, Some(target), changes, unseen)?;
    }
    Ok(())
}

/// Whether the block's container `def` (its members `new_members`) is the
/// file's `target` (`old_members`) whole: it has every member and most of
/// the lines; else only its members are meant.
fn is_whole(
    file: &File<'_>,
    block: &Block<'_>,
    def: &Definition,
    target: &Definition,
    old_members: &[&Definition],
    new_members: &[&Definition],
) -> bool {
    old_members
        .iter()
        .all(|m| new_members.iter().any(|n| n.name == m.name))
        && def.lines() * 10 >= target.lines() * 7
        && !new_members
            .iter()
            .any(|m| file.python && kept::ellipsis_body(block.lines, m))
        && own_lines(file.lines, target, old_members).is_subset(&own_lines(
            block.lines,
            def,
            new_members,
        ))
}

/// The change that puts the block's new definition `defs[i]` (no file
/// definition stands for it; `targets` are those of its siblings) into
/// the file, after the sibling before it, else before the one after it.
fn insert_new(
    file: &File<'_>,
    block: &Block<'_>,
    defs: &[&Definition],
    targets: &[Option<&Definition>],
    i: usize,
    within: Option<&Definition>,
) -> Result<Change, String> {
    let def = defs[i];
    let before = (0..i).rev().find_map(|j| targets[j]);
    let after = (i + 1..defs.len()).find_map(|j| targets[j]);
    let (at, indent, blank) = new_place(file, block, def, before, after, within)?;
    let mut lines = vec![String::new(); blank];
    // A note about hidden docstring lines, kept in a definition
    // the model renamed, is no text of the new one.
    let own = block.reindented(def, &indent, file.unit);
    lines.extend(own.into_iter().filter(|l| !docstrings::holds_note(l)));
    if after.is_some() && before.is_none() {
        // Before the next definition: the gap goes after.
        lines.rotate_left(blank);
    }
    Ok(Change {
        start: at,
        end: at - 1,
        lines,
    })
}

/// Where the block's new `def` goes: the line it goes before, its
/// indentation and the blank lines beside it. After the sibling `before`,
/// else before the sibling `after`, else at the end of the container
/// (`within`, or the one shown for a method), else at the end of the code.
fn new_place(
    file: &File<'_>,
    block: &Block<'_>,
    def: &Definition,
    before: Option<&Definition>,
    after: Option<&Definition>,
    within: Option<&Definition>,
) -> Result<(usize, String, usize), String> {
    Ok(match (before, after, within) {
        (Some(prev), _, _) => (
            prev.end_line + 1,
            file.indent_of(prev),
            gap(file, prev, within),
        ),
        (None, Some(next), _) => (
            next.start_line,
            file.indent_of(next),
            gap(file, next, within),
        ),
        (None, None, Some(container)) => end_of_members(file, container),
        (None, None, None) if is_method(def, block) => {
            let Some(container) = file.shown_container() else {
                return Err(format!(
                    "cannot tell which class the new `{}` belongs to: send it inside its class, or with the method it follows",
                    def.name
                ));
            };
            end_of_members(file, container)
        }
        (None, None, None) => (end_of_code(file.lines) + 1, String::new(), top_gap(file)),
    })
}

/// The place of a new member at the end of `container`: before the end of
/// its body, at the indentation of its last member (one step in from the
/// container when it has none), one blank line before it.
fn end_of_members(file: &File<'_>, container: &Definition) -> (usize, String, usize) {
    let last = file.members(container).last().copied();
    let indent = last.map_or_else(
        || format!("{}{}", file.indent_of(container), file.unit.one()),
        |l| file.indent_of(l),
    );
    (file.end_of_body(container), indent, 1)
}

/// The block's `def` in place of the file's `target`, at its indentation:
/// the decorators and comments above it that the model left out stay, and
/// a docstring the model was shown shortened is given back whole.
fn replace(file: &File<'_>, block: &Block<'_>, def: &Definition, target: &Definition) -> Change {
    let mut lines = block.reindented(def, &file.indent_of(target), file.unit);
    let body = lines.split_off(def.header_line - def.start_line);
    let old_doc = target
        .docstring
        .and_then(|(start, end)| file.lines.get(start - 1..end))
        .unwrap_or_default();
    let mut new = kept::prefix(
        &file.lines[target.start_line - 1..target.header_line - 1],
        &lines,
    );
    new.extend(docstrings::restore(body, old_doc));
    Change {
        start: target.start_line,
        end: target.end_line,
        lines: new,
    }
}

/// Blank lines between siblings: as many as the file has before `def`
/// (one or two).
fn gap(file: &File<'_>, def: &Definition, within: Option<&Definition>) -> usize {
    let blanks = (1..def.start_line)
        .rev()
        .take_while(|&n| file.lines[n - 1].trim().is_empty())
        .count();
    blanks.clamp(1, if within.is_some() { 1 } else { 2 })
}

/// Blank lines between top-level definitions of the file (PEP 8's two
/// in Python when the file has no second definition to tell).
fn top_gap(file: &File<'_>) -> usize {
    let default = if file.python { 2 } else { 1 };
    file.defs
        .iter()
        .filter(|d| d.parent.is_none())
        .nth(1)
        .map_or(default, |d| gap(file, d, None))
}

/// The last line of code before a Python `if __name__ == "__main__":`
/// block at the end, else the last non-blank line.
fn end_of_code(lines: &[&str]) -> usize {
    let main = lines
        .iter()
        .rposition(|l| l.starts_with("if __name__"))
        .map_or(lines.len(), |i| i);
    (1..=main)
        .rev()
        .find(|&n| !lines[n - 1].trim().is_empty())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
