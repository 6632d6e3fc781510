//! The one integration test binary: the real `oc` against a fake Ollama
//! server on 127.0.0.1, in temp directories.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;
mod suite;
