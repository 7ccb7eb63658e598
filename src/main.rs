//! The `kplace` binary: parses the command line and maps errors to exit
//! statuses (2 bad input, 3 `--fail-on`, 1 anything else).

mod cli;
mod cli_live;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

/// Loading a large snapshot makes millions of small allocations; mimalloc
/// is several times faster than the system allocator at that.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Installed as `kubectl-kplace` on the PATH, kplace is a kubectl plugin
/// (`kubectl kplace --context prod --pod ns/name`); help then says so.
fn invoked_as_kubectl_plugin() -> bool {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().starts_with("kubectl-"))
        })
        .unwrap_or(false)
}

/// Whether the error is a write to a closed pipe (EPIPE), wherever in the
/// chain it sits (an `io::Error`, or serde's error wrapping one).
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || e.downcast_ref::<serde_json::Error>()
                .and_then(serde_json::Error::io_error_kind)
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}

fn main() -> ExitCode {
    kplace::allocator::tune();
    let mut command = cli::Cli::command();
    if invoked_as_kubectl_plugin() {
        command = command.bin_name("kubectl kplace");
    }
    let args = match cli::Cli::from_arg_matches(&command.clone().get_matches()) {
        Ok(a) => a,
        Err(e) => e.exit(),
    };
    kplace::source::budget::set_max_input(args.max_input);
    let result = match &args.command {
        Some(cli::Command::Place(place)) => cli::place(place),
        #[cfg(feature = "synth")]
        Some(cli::Command::Synth(synth)) => cli::synth(synth),
        Some(cli::Command::Record(a)) => cli_live::record(a),
        Some(cli::Command::Verify(a)) => cli_live::verify(a),
        Some(cli::Command::Completions(a)) => cli::completions(a, command),
        Some(cli::Command::Man) => cli::man(command),
        None => cli::tui(args.tui),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `kplace place ... | head -1`: the reader has gone, so has the
        // need for the rest of the output. Not an error.
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // Names from a snapshot may carry escape sequences: shown, not run.
            let message = format!("{err:#}");
            eprintln!("kplace: {}", kplace::report::escape_controls(&message));
            cli::exit_code(&err)
        }
    }
}
