//! Synthetic clusters at scale, for benchmarks and `kplace synth`.
