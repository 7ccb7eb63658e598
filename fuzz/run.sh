#!/usr/bin/env bash
# fuzz/run.sh [SECONDS] [TARGET...]
#
# Builds the libFuzzer targets (snapshot, pod, timeline, quantity, lean_json) on the
# stable toolchain and runs each for SECONDS (default 45), two at a time.
# Exits non-zero if any target finds a crash, a timeout or an out-of-memory
# input, and says where the input is and how to keep it as a regression test.
# CI (.ci/run) runs it after `cargo test`.
#
# How it stays cheap: only kplace's own crates are instrumented (by
# fuzz/rustc-wrapper), in the root's target directory and with the root's
# test profile, so every dependency is the artifact `cargo test` already
# built. The instrumented crates get their own artifact names (a different
# `codegen-units` setting, below) and never replace the ones `cargo test` uses.
# libFuzzer itself is compiled once from libfuzzer-sys's sources.
set -euo pipefail

secs="${1:-45}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(snapshot pod timeline quantity lean_json)
case "$secs" in
  '' | *[!0-9]*) echo "usage: fuzz/run.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

fuzz="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$fuzz")"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
work="$fuzz/target"
mkdir -p "$work"
cd "$fuzz"

# The root's lock file, so that every shared dependency resolves to the
# version `cargo test` built; cargo adds libfuzzer-sys (only its sources are
# used here) to it.
if ! cmp -s "$root/Cargo.lock" "$work/root-Cargo.lock" || [ ! -f "$fuzz/Cargo.lock" ]; then
  cp "$root/Cargo.lock" "$fuzz/Cargo.lock"
  cp "$root/Cargo.lock" "$work/root-Cargo.lock"
fi

# --- libFuzzer, from the sources that libfuzzer-sys ships -----------------
manifest="$(cargo metadata --format-version 1 --manifest-path "$fuzz/Cargo.toml" \
  | grep -o '"manifest_path":"[^"]*/libfuzzer-sys-[0-9][^"/]*/Cargo.toml"' \
  | sed -n '1{s/^"manifest_path":"//; s/"$//; p}')"
[ -n "$manifest" ] || { echo "fuzz/run.sh: libfuzzer-sys's sources not found (cargo metadata)" >&2; exit 1; }
src="$(dirname "$manifest")/libfuzzer"
version="$(basename "$(dirname "$manifest")")"
libfuzzer="$work/$version/libfuzzer.a"
# Compiled beside the Rust build below (which leaves a core idle much of the
# time); only the final link of the targets waits for it.
build_libfuzzer() {
  local tmp="$work/$version.tmp"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  # Flags as libfuzzer-sys's build script gives them.
  find "$src" -maxdepth 1 -name '*.cpp' -print0 \
    | xargs -0 -P "$(nproc)" -I{} sh -c \
      'c++ -c -O2 -g0 -fPIC -std=c++17 -fno-omit-frame-pointer -w -o "$1/$(basename "$2" .cpp).o" "$2"' \
      sh "$tmp" {}
  ar crs "$tmp/libfuzzer.a" "$tmp"/*.o
  rm -rf "$work/$version"
  mkdir -p "$work/$version"
  mv "$tmp/libfuzzer.a" "$libfuzzer"
  rm -rf "$tmp"
}
libfuzzer_pid=""
trap '[ -z "$libfuzzer_pid" ] || kill "$libfuzzer_pid" 2>/dev/null || true' EXIT
if [ ! -f "$libfuzzer" ]; then
  echo "fuzz/run.sh: compiling libFuzzer ($version)" >&2
  build_libfuzzer &
  libfuzzer_pid=$!
fi

# --- the targets --------------------------------------------------------
# kplace's own crates get a profile of their own, which also gives their
# instrumented artifacts names of their own: opt-level 0 (kplace compiles in
# about 1.5 minutes instead of 5, and runs about half as fast), line tables
# only, not incremental, and 64 codegen units where the test profile has 256:
# that alone keeps the names apart whatever the opt-level (cargo hashes every
# profile setting into them). FUZZ_OPT_LEVEL=1 (or 2, 3) for a long run.
opt="${FUZZ_OPT_LEVEL:-0}"
config=()
for p in kplace kplace-core kplace-fuzz; do
  config+=(
    --config "profile.test.package.$p.opt-level=$opt"
    --config "profile.test.package.$p.debug=\"line-tables-only\""
    --config "profile.test.package.$p.incremental=false"
    --config "profile.test.package.$p.codegen-units=64"
  )
done
build() {
  RUSTC_WRAPPER="$fuzz/rustc-wrapper" KPLACE_LIBFUZZER="$libfuzzer" CARGO_TARGET_DIR="$target_dir" \
    cargo build --manifest-path "$fuzz/Cargo.toml" --profile test --no-default-features \
    "${config[@]}" "$@" 2>&1 | tee -a "$work/build.log"
}
start=$SECONDS
: >"$work/build.log"
build --lib
if [ -n "$libfuzzer_pid" ]; then
  status=0
  wait "$libfuzzer_pid" || status=$?
  libfuzzer_pid=""
  [ "$status" -eq 0 ] || { echo "fuzz/run.sh: compiling libFuzzer failed" >&2; exit 1; }
fi
build --bins
echo "fuzz/run.sh: targets built in $((SECONDS - start))s" >&2
# Only kplace's own crates should have compiled: a dependency built here
# means its features (or the profile) differ from what `cargo test` built.
rebuilt="$(sed -n 's/^ *Compiling \([^ ]*\) .*/\1/p' "$work/build.log" \
  | grep -v -x -e kplace -e kplace-core -e kplace-fuzz | tr '\n' ' ' || true)"
if [ -n "$rebuilt" ]; then
  echo "fuzz/run.sh: note: built again for fuzzing, not reused from cargo test: $rebuilt" >&2
fi
bin="$target_dir/debug"

# --- seed corpora, from the project's own inputs -------------------------
seeds="$work/seeds"
rm -rf "$seeds"
for t in snapshot pod timeline quantity lean_json; do
  mkdir -p "$seeds/$t"
  cp "$root/tests/data/fuzz/$t"/* "$seeds/$t/"
done
cases="$root/tests/conformance/cases"
# The smallest conformance snapshots, uncompressed (gzip's checksum would
# turn nearly every mutation into a refused input).
# (No `head` in these pipelines: with pipefail, the writer it cuts off fails.)
find "$cases" -name snapshot.yaml.gz -printf '%s %p\n' | sort -n | sed -n '1,16p' \
  | while read -r _ f; do
    gzip -dc "$f" >"$seeds/snapshot/$(basename "$(dirname "$f")").yaml"
  done
find "$cases" -name pod.yaml -print | while read -r f; do
  cp "$f" "$seeds/pod/$(basename "$(dirname "$f")").yaml"
done
gzip -dc "$root/assets/demo-timeline.jsonl.gz" >"$work/demo-timeline.jsonl"
timeline="$work/demo-timeline.jsonl"
head -n 20 "$timeline" >"$seeds/timeline/demo-start.jsonl"
{
  head -n 1 "$timeline"
  for pattern in '"kind":"Node"' '"kind":"Pod"' '"type":"MODIFIED"' '"type":"DELETED"'; do
    grep -m 3 "$pattern" "$timeline" || true
  done
} >"$seeds/timeline/demo-changes.jsonl"
i=0
for q in 0 1 100m 0.5 1500m 1Gi 512Mi 128974848 129e6 123Mi 1k 1Ki 2E 1e3 1.5e-3 -1 +5 .5 1n 7u 3P 4Ti; do
  printf '%s' "$q" >"$seeds/quantity/seed-$i.txt"
  i=$((i + 1))
done

# --- run ----------------------------------------------------------------
max_len() {
  case "$1" in
    snapshot) echo 32768 ;;
    timeline) echo 16384 ;;
    pod | lean_json) echo 4096 ;;
    quantity) echo 64 ;;
  esac
}
logs="$work/logs"
mkdir -p "$logs"
run() {
  local t="$1"
  mkdir -p "$fuzz/corpus/$t" "$fuzz/artifacts/$t"
  local dict=()
  [ "$t" = quantity ] || dict=(-dict="$fuzz/dict/kubernetes.dict")
  # -timeout: seconds one input may take (exit 70); -rss_limit_mb: the
  # process's memory (exit 71); a panic aborts (exit 77).
  "$bin/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len "$t")" -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$fuzz/artifacts/$t/" \
    "$fuzz/corpus/$t" "$seeds/$t" >"$logs/$t.log" 2>&1
}
failed=()
report() {
  local t="$1" status="$2"
  local execs
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -n 1)"
  if [ "$status" -eq 0 ]; then
    echo "fuzz $t: ok, ${execs:-?} inputs in ${secs}s, corpus $(find "$fuzz/corpus/$t" -type f | wc -l)"
    return
  fi
  failed+=("$t")
  echo "fuzz $t: FAILED (exit $status); the end of $logs/$t.log:"
  # The panic (or libFuzzer's verdict) first, then how the run ended.
  grep -m 1 -A 1 -E 'panicked at|ERROR: libFuzzer' "$logs/$t.log" | sed 's/^/  /' || true
  echo "  ..."
  grep -v '^#[0-9]' "$logs/$t.log" | tail -n 12 | sed 's/^/  /'
  local unit
  unit="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$logs/$t.log" | tail -n 1)"
  if [ -n "$unit" ]; then
    echo "  reproduce: $bin/$t $unit"
    echo "  once fixed, keep it as a regression test: cp $unit $root/tests/data/fuzz/$t/<what-it-is>"
  fi
}
i=0
while [ $i -lt ${#targets[@]} ]; do
  pair=("${targets[$i]}")
  [ $((i + 1)) -lt ${#targets[@]} ] && pair+=("${targets[$((i + 1))]}")
  pids=()
  for t in "${pair[@]}"; do
    [ -x "$bin/$t" ] || { echo "fuzz/run.sh: no target $t" >&2; exit 2; }
    run "$t" &
    pids+=($!)
  done
  for j in "${!pair[@]}"; do
    status=0
    wait "${pids[$j]}" || status=$?
    report "${pair[$j]}" "$status"
  done
  i=$((i + 2))
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz/run.sh: ${failed[*]} found inputs that crash kplace (see above)" >&2
  exit 1
fi
