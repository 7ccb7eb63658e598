//! The `kplace` binary: parses the command line and maps errors to exit
//! statuses (2 bad input, 3 `--fail-on`, 1 anything else).

mod cli;
mod cli_live;

use std::process::ExitCode;

use clap::Parser;

/// Loading a large snapshot makes millions of small allocations; mimalloc
/// is several times faster than the system allocator at that.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let result = match &args.command {
        Some(cli::Command::Place(place)) => cli::place(place),
        Some(cli::Command::Synth(synth)) => cli::synth(synth),
        Some(cli::Command::Record(a)) => cli_live::record(a),
        Some(cli::Command::Verify(a)) => cli_live::verify(a),
        None => cli::tui(args.tui),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("kplace: {err:#}");
            cli::exit_code(&err)
        }
    }
}
