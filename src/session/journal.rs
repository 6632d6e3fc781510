//! A session being written: the run's conversation with the store that
//! keeps it. Every message pushed is saved at once (atomically; nothing
//! with `--no-save`), so a run killed at any point leaves its conversation
//! on disk; calls a run stops before running are answered, so the next
//! request (a resumed run's) is a valid conversation.

use std::ops::Deref;

use super::file::Session;
use super::store::Store;
use crate::client::Message;
use crate::error::Result;

/// A session and where it is saved (`None` with `--no-save`). Reads as the
/// [`Session`] it holds; changes go through its methods: [`Journal::push`]
/// saves, [`Journal::unsaved`] says it does not.
#[derive(Debug)]
pub(crate) struct Journal<'a> {
    session: Session,
    store: Option<&'a Store>,
}

impl<'a> Journal<'a> {
    /// Starts writing `session`, and saves it.
    ///
    /// Errors: the session file cannot be written.
    pub(crate) fn open(session: Session, store: Option<&'a Store>) -> Result<Self> {
        let mut journal = Journal { session, store };
        journal.save()?;
        Ok(journal)
    }

    /// Adds `message` to the conversation and saves.
    ///
    /// Errors: the session file cannot be written.
    pub(crate) fn push(&mut self, message: Message) -> Result<()> {
        self.session.messages.push(message);
        self.save()
    }

    /// Puts `messages` in place of the conversation and saves (a
    /// conversation another runtime kept, read back whole).
    ///
    /// Errors: the session file cannot be written.
    pub(crate) fn replace_messages(&mut self, messages: Vec<Message>) -> Result<()> {
        self.session.messages = messages;
        self.save()
    }

    /// The session to change without saving now: its fields (turns,
    /// usage, checks), and its conversation only through the methods named
    /// `unsaved`. The next save writes it; a push through
    /// [`Journal::push`] is saved at once.
    pub(crate) fn unsaved(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Saves the session as it stands.
    ///
    /// Errors: the session file cannot be written.
    pub(crate) fn save(&mut self) -> Result<()> {
        match self.store {
            Some(store) => store.save(&mut self.session),
            None => Ok(()),
        }
    }

    /// Answers every call of the last reply that has no result yet with
    /// `note` (a turn that stops before running them), and saves.
    ///
    /// Errors: the session file cannot be written.
    pub(crate) fn close_calls(&mut self, note: &str) -> Result<()> {
        self.session.answer_unanswered_calls(note);
        self.save()
    }

    /// The store it saves to.
    pub(crate) fn store(&self) -> Option<&'a Store> {
        self.store
    }
}

impl Deref for Journal<'_> {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.session
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{Role, ToolCall};
    use crate::vocab::Mode;

    #[test]
    fn pushes_are_saved_and_closing_answers_calls() {
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path());
        let session = Session::new(Mode::Code, "m", "h", home.path(), "p", 4096);
        let id = session.id.clone();
        let mut journal = Journal::open(session, Some(&store)).unwrap();
        assert!(store.load(&id).unwrap().messages.is_empty());
        let mut reply = Message::text(Role::Assistant, "");
        let mut call = ToolCall::new("read_file", serde_json::json!({"path": "a"}));
        call.id = Some("c1".into());
        reply.tool_calls = vec![call];
        journal.push(reply).unwrap();
        assert_eq!(store.load(&id).unwrap().messages.len(), 1);
        journal
            .close_calls("error: not run: the run was stopped")
            .unwrap();
        let saved = store.load(&id).unwrap();
        assert_eq!(saved.messages.len(), 2);
        assert_eq!(saved.messages[1].role, Role::Tool);
        assert_eq!(
            saved.messages[1].content,
            "error: not run: the run was stopped"
        );
    }

    #[test]
    fn without_a_store_nothing_is_written() {
        let home = tempfile::tempdir().unwrap();
        let session = Session::new(Mode::Code, "m", "h", home.path(), "p", 4096);
        let mut journal = Journal::open(session, None).unwrap();
        journal.push(Message::text(Role::User, "x")).unwrap();
        assert_eq!(journal.messages.len(), 1);
        assert!(!home.path().join("sessions").exists());
    }
}
