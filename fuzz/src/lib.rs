//! `fuzz_target!` for the targets in `fuzz_targets/`: libfuzzer-sys's when
//! built with it (`cargo fuzz`), else a minimal equivalent for the libFuzzer
//! that fuzz/run.sh links: the input is handed to the body, and a panic
//! aborts the process so that libFuzzer reports it and keeps the input.

#[cfg(feature = "libfuzzer-sys")]
pub use libfuzzer_sys::fuzz_target;

#[cfg(not(feature = "libfuzzer-sys"))]
#[doc(hidden)]
pub fn abort_on_panic() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        std::process::abort();
    }));
}

#[cfg(not(feature = "libfuzzer-sys"))]
#[macro_export]
macro_rules! fuzz_target {
    (|$bytes:ident: &[u8]| $body:expr) => {
        const _: () = {
            #[unsafe(no_mangle)]
            pub extern "C" fn LLVMFuzzerInitialize(
                _argc: *const isize,
                _argv: *const *const *const u8,
            ) -> isize {
                $crate::abort_on_panic();
                0
            }

            /// # Safety
            /// libFuzzer passes `size` readable bytes at `data`.
            #[unsafe(no_mangle)]
            pub unsafe extern "C" fn LLVMFuzzerTestOneInput(data: *const u8, size: usize) -> i32 {
                let $bytes: &[u8] = if size == 0 {
                    &[]
                } else {
                    // SAFETY: libFuzzer hands `size` readable bytes at `data`.
                    unsafe { ::std::slice::from_raw_parts(data, size) }
                };
                if ::std::panic::catch_unwind(|| run($bytes)).is_err() {
                    ::std::process::abort();
                }
                0
            }

            // Named per target, so that a crash's stack says which one.
            #[inline(never)]
            fn run($bytes: &[u8]) {
                $body
            }
        };
    };
}
