//! A ready-made command line for Purview apps (feature `cli`): the options
//! every app serving MCP needs, a first run that explains itself at a
//! terminal, clean exits, and logging that keeps what agents send out of
//! the logs.
//!
//! The logging alone, [`init_logging`] and [`wire_guard`], comes with the
//! lighter feature `logging`, which has no `clap` in it: an app that parses
//! no options of its own (`features = ["logging"]`) builds a few seconds
//! sooner.
//!
//! Its types are those of `clap` 4 (`ServeArgs` is a `clap::Args`,
//! [`ToolSurface`](crate::settings::ToolSurface) a `clap::ValueEnum`) and
//! `tracing-subscriber` 0.3 ([`wire_guard`] is one of its filters), so an
//! app flattens them into its own parser and layers them into its own
//! subscriber; depend on the same major versions.
//!
//! Without the `http` feature (`default-features = false, features =
//! ["cli"]`) the command line serves stdio only: `--http` and the options
//! that go with it are not there, and neither are hyper, axum and
//! tower-http in the build.
//!
//! ```no_run
//! use clap::Parser;
//! use purview::cli::ServeArgs;
//!
//! /// My app, served to AI agents over MCP.
//! #[derive(Parser)]
//! #[command(version)]
//! struct Cli {
//!     #[command(flatten)]
//!     serve: ServeArgs,
//! }
//!
//! #[tokio::main]
//! async fn main() -> std::process::ExitCode {
//!     purview::cli::init_logging();
//!     let cli = Cli::parse();
//!     let app = purview::App::builder().name("my_app").tool_surface(cli.serve.tools).build();
//!     purview::cli::serve(&app, &cli.serve).await
//! }
//! ```

#[cfg(feature = "cli")]
mod command;
mod logging;

#[cfg(all(feature = "cli", feature = "http"))]
pub use command::serve_with;
#[cfg(feature = "cli")]
pub use command::{ServeArgs, serve, terminal_hint};
pub use logging::{init_logging, wire_guard};
