//! `oc export-ft`: the fine-tuning records turned into a trainer's JSONL
//! (see `session::export`), on stdout or into `--out`, with a summary on
//! stderr.

use std::fs::OpenOptions;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::cli::ExportArgs;
use crate::error::{Error, ExitStatus, Result};
use crate::fsutil::{self, StreamedWriteError};
use crate::images::ImageStore;
use crate::session::{Store, export};

/// `oc export-ft`: records in, trainer JSONL out (stdout or `--out`,
/// atomically), a summary on stderr.
pub(super) fn export_ft(home: &Path, args: &ExportArgs) -> Result<ExitStatus> {
    let input = args
        .input
        .clone()
        .unwrap_or_else(|| Store::new(home).finetune_path());
    check_args(&input, args)?;
    let from_stdin = input == Path::new("-");
    let reader = open_input(&input)?;
    if args.arguments_as_string && args.format != export::Format::Hf {
        crate::ui::print_warning(
            "`--arguments-as-string` only applies to `--format hf`; it is ignored",
        );
    }
    let options = export::Options {
        success_only: args.success_only,
        model: args.model.clone(),
        mode: args.mode.clone(),
        since: args.since.clone(),
        min_turns: args.min_turns,
        dedupe: args.dedupe,
        strict: args.strict,
        mask_failed_steps: !args.no_mask_failed_steps,
        arguments_as_string: args.arguments_as_string,
        // Records live in `OC_HOME/finetune.jsonl`; their images beside
        // them (records on stdin: those of the home in use).
        images: Some(ImageStore::new(&match from_stdin {
            true => home.to_path_buf(),
            false => image_home(&input),
        })),
    };
    let export = |writer: &mut dyn Write| {
        export::export(
            reader,
            std::io::BufWriter::new(writer),
            args.format,
            &options,
        )
    };
    let summary = write_out(args.out.as_deref(), export)?;
    crate::ui::print_note(&summary.describe());
    Ok(ExitStatus::Success)
}

/// The arguments that cannot work: a directory as input, a mode that is
/// none, `--out` the input file itself.
///
/// Errors: each of these ([`Error::Usage`]).
fn check_args(input: &Path, args: &ExportArgs) -> Result<()> {
    if input.is_dir() {
        return Err(Error::Usage(format!(
            "`{}` is a directory; `--input` takes a finetune.jsonl file",
            input.display()
        )));
    }
    if let Some(mode) = args
        .mode
        .as_deref()
        .filter(|m| !matches!(*m, "code" | "plan" | "chat"))
    {
        return Err(Error::Usage(format!(
            "`--mode {mode}` is not a mode; use code, plan or chat"
        )));
    }
    if let Some(out) = &args.out {
        let same = out
            .canonicalize()
            .ok()
            .is_some_and(|o| input.canonicalize().ok() == Some(o));
        if same {
            return Err(Error::Usage(format!(
                "`--out {}` is the input file; writing there would destroy the records. Choose another file",
                out.display()
            )));
        }
    }
    Ok(())
}

/// The records to read: the file, or stdin for `--input -`.
///
/// Errors: the file is missing (a usage error saying where runs write
/// them) or cannot be read.
fn open_input(input: &Path) -> Result<Box<dyn BufRead>> {
    if input == Path::new("-") {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    let file = std::fs::File::open(input).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::Usage(format!(
                "no fine-tuning records at `{}`; runs write them there (see `oc run`), or pass `--input FILE`",
                input.display()
            ))
        } else {
            Error::io(format!("cannot read `{}`", input.display()), e)
        }
    })?;
    Ok(Box::new(std::io::BufReader::new(file)))
}

/// Writes the export where `--out` says: stdout, through a pipe or a
/// device, or atomically to a file.
///
/// Errors: the target cannot be opened or written; the export's own
/// errors ([`Error::Usage`]).
fn write_out(
    out: Option<&Path>,
    export: impl FnOnce(&mut dyn Write) -> std::result::Result<export::Summary, String>,
) -> Result<export::Summary> {
    Ok(match Target::of(out)? {
        Target::Stdout => export(&mut crate::ui::term::stdout()).map_err(Error::Usage)?,
        Target::Stream(path) => {
            // A pipe or a device (`/dev/stdout`) is written through, never
            // replaced by a file.
            let mut file = OpenOptions::new()
                .write(true)
                .open(&path)
                .map_err(|e| Error::io(format!("cannot write `{}`", path.display()), e))?;
            export(&mut file).map_err(Error::Usage)?
        }
        Target::File(path) => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf();
            let written =
                fsutil::write_atomic_streamed(&path, ".oc-export-", |mut file| export(&mut file));
            written.map_err(|e| match e {
                StreamedWriteError::CreateDir(e) => {
                    Error::io(format!("cannot create `{}`", dir.display()), e)
                }
                StreamedWriteError::TempFile(e) => {
                    Error::io(format!("cannot write in `{}`", dir.display()), e)
                }
                StreamedWriteError::Write(message) => Error::Usage(message),
                StreamedWriteError::Persist(e) => {
                    Error::io(format!("cannot write `{}`", path.display()), e)
                }
            })?
        }
    })
}

/// Where `--out` writes.
enum Target {
    /// No `--out`, or `--out -`.
    Stdout,
    /// A pipe, a device or another file that is not a regular one: written
    /// through.
    Stream(PathBuf),
    /// A regular file (a link's target when it is a link): replaced
    /// atomically.
    File(PathBuf),
}

impl Target {
    /// Errors: `--out` names a directory (a usage error).
    fn of(out: Option<&Path>) -> Result<Target> {
        let Some(out) = out.filter(|o| *o != Path::new("-")) else {
            return Ok(Target::Stdout);
        };
        let Ok(meta) = std::fs::metadata(out) else {
            return Ok(Target::File(follow(out)));
        };
        if meta.is_dir() {
            return Err(Error::Usage(format!(
                "`--out {}` is a directory; give a file to write",
                out.display()
            )));
        }
        Ok(match meta.is_file() {
            true => Target::File(follow(out)),
            false => Target::Stream(out.to_path_buf()),
        })
    }
}

/// `path`, or the file a link there points to.
fn follow(path: &Path) -> PathBuf {
    match std::fs::read_link(path) {
        Ok(target) => path.parent().unwrap_or(Path::new(".")).join(target),
        Err(_) => path.to_path_buf(),
    }
}

/// The `OC_HOME` of a records file (the folder holding it), absolute so
/// exported image paths work from anywhere.
fn image_home(input: &Path) -> std::path::PathBuf {
    let input = input.canonicalize().unwrap_or_else(|_| input.to_path_buf());
    input.parent().map(Path::to_path_buf).unwrap_or_default()
}
