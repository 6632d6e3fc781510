//! Indentation for splicing: a file's indentation step, and a block's
//! lines moved to the depth and step of the definition they replace.

/// A file's indentation step: a tab, or a number of spaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    Tab,
    Spaces(usize),
}

impl Unit {
    pub(super) fn one(self) -> String {
        match self {
            Unit::Tab => "\t".to_string(),
            Unit::Spaces(n) => " ".repeat(n),
        }
    }
}

/// The indentation step of `text`: tabs when its indented lines start
/// with one, else the step by which a line most often goes deeper than the
/// line before it (four spaces when nothing is indented). The most common
/// step, not the smallest: a docstring's examples or a continued argument
/// list indent by odd amounts that are not the file's step.
pub(super) fn indent_unit(text: &str) -> Unit {
    let indents: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(leading)
        .collect();
    let indented = indents.iter().filter(|i| !i.is_empty()).count();
    if indents.iter().filter(|i| i.starts_with('\t')).count() * 2 > indented {
        return Unit::Tab;
    }
    let mut steps: Vec<(usize, usize)> = Vec::new();
    for pair in indents.windows(2) {
        let (before, after) = (pair[0].len(), pair[1].len());
        if after > before {
            let step = after - before;
            match steps.iter_mut().find(|(s, _)| *s == step) {
                Some((_, count)) => *count += 1,
                None => steps.push((step, 1)),
            }
        }
    }
    let step = steps
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map_or(4, |(step, _)| *step);
    Unit::Spaces(step.clamp(1, 8))
}

pub(super) fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The block's lines moved to `to` (the target's indentation), each line's
/// depth below the first kept, converted from the block's indentation step
/// to the file's.
pub(super) fn reindent(lines: &[&str], from_unit: Unit, to: &str, to_unit: Unit) -> Vec<String> {
    let base = lines.first().map_or(0, |l| width(leading(l), from_unit));
    lines
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                return String::new();
            }
            let depth = width(leading(line), from_unit).saturating_sub(base);
            let levels = depth / step_width(from_unit);
            let rest = depth % step_width(from_unit);
            format!(
                "{to}{}{}{}",
                to_unit.one().repeat(levels),
                " ".repeat(rest),
                line.trim_start()
            )
        })
        .collect()
}

/// The width of an indentation in columns (a tab is one step).
fn width(indent: &str, unit: Unit) -> usize {
    indent
        .chars()
        .map(|c| if c == '\t' { step_width(unit) } else { 1 })
        .sum()
}

fn step_width(unit: Unit) -> usize {
    match unit {
        Unit::Tab => 4,
        Unit::Spaces(n) => n,
    }
}

/// `text` without the indentation all its non-blank lines share.
pub(super) fn dedent(text: &str) -> String {
    let common = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| leading(l).len())
        .min()
        .unwrap_or(0);
    let mut out: String = text
        .lines()
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                &l[common.min(l.len())..]
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}
