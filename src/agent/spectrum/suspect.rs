//! A function spectrum-based fault localisation points at.

/// A workspace function the failing tests executed, scored by how much
/// more the failing tests than the passing ones did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Suspect {
    /// Workspace-relative, `/`-separated.
    pub path: String,
    /// Qualified as the language names it: `Class.method`, `f.<locals>.g`.
    pub name: String,
    /// 1-based first line (a decorated function's first decorator).
    pub line: usize,
    /// 1-based last line, when the file's outline has the function.
    pub end_line: Option<usize>,
    /// The Ochiai score, 0 to 1.
    pub score: f64,
}
