mod config;
mod errors;
mod permissions;
mod run;
mod scenarios;
mod stdin;
mod stream;
