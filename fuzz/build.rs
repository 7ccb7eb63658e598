//! Without libfuzzer-sys (fuzz/run.sh), the targets link the libFuzzer
//! archive that run.sh compiled and names in KPLACE_LIBFUZZER. Only the
//! binaries link it, so the library builds while the archive is compiled.

fn main() {
    println!("cargo:rerun-if-env-changed=KPLACE_LIBFUZZER");
    if std::env::var_os("CARGO_FEATURE_LIBFUZZER_SYS").is_some() {
        return;
    }
    let Some(archive) = std::env::var_os("KPLACE_LIBFUZZER") else {
        panic!(
            "built without libfuzzer-sys and KPLACE_LIBFUZZER is not set: \
             build with fuzz/run.sh, which compiles libFuzzer and sets it"
        );
    };
    let archive = std::path::PathBuf::from(archive);
    if archive.exists() {
        println!("cargo:rerun-if-changed={}", archive.display());
    }
    println!("cargo:rustc-link-arg-bins={}", archive.display());
    println!("cargo:rustc-link-arg-bins=-lstdc++");
}
