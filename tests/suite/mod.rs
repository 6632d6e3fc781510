mod config;
mod errors;
mod permissions;
mod run;
mod stdin;
mod stream;
