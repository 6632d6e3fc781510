//! Images in exported fine-tuning data: records name their images
//! (`images/<sha256>.<ext>` under the records' `OC_HOME`, see
//! [`crate::images::ImageStore`]); each format gets them its own way:
//!
//! - `openai`: the user message's `content` becomes parts, the text then an
//!   `image_url` part per image with a `data:` URL (base64).
//! - `hf`: `content` parts `{"type": "image"}` then `{"type": "text"}`, and
//!   the line's `images` lists the image files' absolute paths in order
//!   (the layout of Hugging Face vision chat datasets and TRL).
//! - `sharegpt`: an `<image>` tag per image before the human turn's text,
//!   and the line's `images` lists the files' absolute paths in order
//!   (LLaMA-Factory's multimodal ShareGPT layout).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::record::FinetuneRecord;
use crate::client::Role;
use crate::images::ImageStore;

/// Where an exported line's images go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Layout {
    /// `image_url` content parts with `data:` URLs.
    DataUrlParts,
    /// `{"type": "image"}` content parts, paths in the line's `images`.
    ImagePartsAndPaths,
    /// `<image>` tags in the human turn, paths in the line's `images`.
    TagsAndPaths,
}

/// Puts the images of `record` into `line` (its export) as `layout` says.
///
/// Errors: an image named by the record is missing or unreadable in
/// `store` (the message names it).
pub(super) fn attach(
    line: &mut Value,
    record: &FinetuneRecord,
    layout: Layout,
    store: &ImageStore,
) -> Result<(), String> {
    let mut paths: Vec<Value> = Vec::new();
    let mut human = 0;
    for (i, message) in record.messages.iter().enumerate() {
        if matches!(message.role, Role::User | Role::System) {
            human += 1;
        }
        if message.images.is_empty() {
            continue;
        }
        let files = files_of(&message.images, store)?;
        match layout {
            Layout::DataUrlParts => {
                let mut parts = vec![json!({"type": "text", "text": message.content})];
                for name in &message.images {
                    let data = store.get(name).map_err(|e| e.to_string())?;
                    let url = format!("data:{};base64,{data}", ImageStore::media_type(name));
                    parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
                }
                *content_of(line, i)? = json!(parts);
            }
            Layout::ImagePartsAndPaths => {
                let mut parts: Vec<Value> =
                    files.iter().map(|_| json!({"type": "image"})).collect();
                parts.push(json!({"type": "text", "text": message.content}));
                *content_of(line, i)? = json!(parts);
            }
            Layout::TagsAndPaths => {
                let tags = "<image>".repeat(files.len());
                let turn = nth_human(line, human).ok_or("an image on a turn the format drops")?;
                turn["value"] = json!(format!("{tags}{}", message.content));
            }
        }
        paths.extend(files.iter().map(|f| json!(f.display().to_string())));
    }
    if !paths.is_empty() && layout != Layout::DataUrlParts {
        line["images"] = json!(paths);
    }
    Ok(())
}

/// The files of the stored images `names`; an error names one missing.
fn files_of(names: &[String], store: &ImageStore) -> Result<Vec<PathBuf>, String> {
    let files = (names.iter())
        .map(|name| store.path(name).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    match files.iter().find(|f| !f.is_file()) {
        Some(missing) => Err(format!("the image `{}` is missing", missing.display())),
        None => Ok(files),
    }
}

/// The `content` of the exported message for record message `i` (the
/// system prompt comes first in the exported messages).
fn content_of(line: &mut Value, i: usize) -> Result<&mut Value, String> {
    line.get_mut("messages")
        .and_then(|m| m.get_mut(i + 1))
        .and_then(|m| m.get_mut("content"))
        .ok_or_else(|| format!("the exported line has no message {}", i + 1))
}

/// The `n`-th (1-based) human turn of a ShareGPT line.
fn nth_human(line: &mut Value, n: usize) -> Option<&mut Value> {
    line["conversations"]
        .as_array_mut()?
        .iter_mut()
        .filter(|c| c["from"] == "human")
        .nth(n.checked_sub(1)?)
}
