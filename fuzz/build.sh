#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer's coverage instrumentation on the
# stable toolchain (what `cargo fuzz build --sanitizer none` does, without
# needing cargo-fuzz or nightly). Then run one, e.g.:
#   fuzz/target/x86_64-unknown-linux-gnu/release/snapshot -max_total_time=60 fuzz/corpus/snapshot
set -euo pipefail
cd "$(dirname "$0")"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_PROFILE_RELEASE_OPT_LEVEL="${CARGO_PROFILE_RELEASE_OPT_LEVEL:-1}"
# An explicit target keeps the flags off build scripts and proc macros.
cargo build --release --target "$(rustc -vV | sed -n "s/^host: //p")" --bins "$@"
