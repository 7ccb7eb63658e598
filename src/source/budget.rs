//! The input budget: how many bytes (after decompression) kplace reads from
//! the files it is given before refusing them, so a hostile or mistaken
//! input (`/dev/zero`, a gzip bomb, an endless pipe) cannot exhaust memory.
//! The budget is enforced while reading, never after.
//!
//! It is process-wide: `--max-input` sets it once at start, and every
//! reader (snapshots, directories, pods, timelines, the TUI's loader
//! thread) asks [`max_input`].

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use super::mapped::{FileBytes, MAP_FROM, Mapping};

/// The default budget: 1 GiB of decompressed input.
pub const DEFAULT_MAX_INPUT: u64 = 1 << 30;

static MAX_INPUT: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT);

/// Sets the budget (`--max-input`).
pub fn set_max_input(bytes: u64) {
    MAX_INPUT.store(bytes, Ordering::Relaxed);
}

/// The budget in force.
pub fn max_input() -> u64 {
    MAX_INPUT.load(Ordering::Relaxed)
}

const UNITS: [(&str, u64); 4] = [
    ("TiB", 1 << 40),
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
];

/// `1 GiB`, `512 MiB`, `1536 KiB`, `1000 bytes`: the largest binary unit
/// the size is a whole multiple of.
pub fn format_size(bytes: u64) -> String {
    for (name, unit) in UNITS {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{} {name}", bytes / unit);
        }
    }
    format!("{bytes} bytes")
}

/// `--max-input`: a whole number of bytes with an optional suffix, binary
/// (`Ki`, `Mi`, `Gi`, `Ti`, also with a trailing `B`) or decimal (`k`/`K`,
/// `M`, `G`, `T`), as Kubernetes writes memory sizes: `512Mi`, `2Gi`,
/// `1500M`, `1073741824`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let s = text.trim();
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    let (number, suffix) = s.split_at(digits);
    let bad = || {
        format!(
            "`{text}` is not a size: give bytes with an optional suffix, e.g. 512Mi, 2Gi, 1500M"
        )
    };
    let number: u64 = number.parse().map_err(|_| bad())?;
    let unit: u64 = match suffix.trim().trim_end_matches('B') {
        "" => 1,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        "k" | "K" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "T" => 1_000_000_000_000,
        _ => return Err(bad()),
    };
    let bytes = number
        .checked_mul(unit)
        .ok_or_else(|| format!("`{text}` is too large a size"))?;
    if bytes == 0 {
        return Err("the input budget must be more than 0 bytes".into());
    }
    Ok(bytes)
}

/// Why a read stopped.
#[derive(Debug)]
pub enum ReadError {
    /// More than `limit` bytes (after decompression).
    TooLarge {
        limit: u64,
    },
    /// The gzip stream is broken.
    Gzip(std::io::Error),
    Io(std::io::Error),
}

/// Reads a file (a pipe, a device) to its end, decompressing gzip (known
/// by its magic bytes), and stops as soon as the decompressed bytes pass
/// `limit`. The file is read once: a pipe is never opened twice.
pub fn read_limited(path: &Path, limit: u64) -> Result<FileBytes, ReadError> {
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    let regular = meta.is_file();
    if regular && meta.len() > limit {
        // A plain file that large is over the budget whatever it holds
        // (the compressed bytes would be held too).
        return Err(ReadError::TooLarge { limit });
    }
    // A large plain file is mapped, unless it is gzip (decompressed into
    // memory below) or the mapping is refused (then it is read).
    if regular && meta.len() >= MAP_FROM {
        let name = path.display().to_string();
        if let Ok(mapped) = Mapping::of(&file, meta.len() as usize, &name) {
            let bytes = FileBytes::Mapped(mapped);
            if !bytes.starts_with(&GZIP_MAGIC) {
                return Ok(bytes);
            }
        }
    }
    let mut file = file;
    let mut magic = Vec::with_capacity(2);
    (&mut file)
        .take(2)
        .read_to_end(&mut magic)
        .map_err(ReadError::Io)?;
    let gzip = magic == GZIP_MAGIC;
    let reader = std::io::Cursor::new(magic).chain(file);
    // Room for the whole budget is reserved up front (address space only:
    // pages are touched as bytes arrive), so the buffer never reallocates
    // and never holds two copies; if the reservation is refused (`ulimit
    // -v`), it grows as it goes.
    let mut out = Vec::new();
    let want = if regular && !gzip {
        meta.len() as usize
    } else {
        limit.saturating_add(1).min(usize::MAX as u64) as usize
    };
    let _ = out.try_reserve_exact(want);
    let taken = if gzip {
        flate2::read::MultiGzDecoder::new(reader)
            .take(limit.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(ReadError::Gzip)
    } else {
        reader
            .take(limit.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(ReadError::Io)
    };
    taken?;
    if out.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(FileBytes::Read(out))
}

/// The first two bytes of every gzip stream.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_kubernetes_writes_them() {
        assert_eq!(parse_size("512Mi"), Ok(512 << 20));
        assert_eq!(parse_size("2Gi"), Ok(2 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1500M"), Ok(1_500_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("2Xi").is_err());
        assert!(parse_size("-1Gi").is_err());
        assert!(parse_size("0").is_err());
        assert!(
            parse_size("99999999999Ti")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn sizes_print_in_the_largest_whole_unit() {
        assert_eq!(format_size(1 << 30), "1 GiB");
        assert_eq!(format_size(512 << 20), "512 MiB");
        assert_eq!(format_size(1536 << 10), "1536 KiB");
        assert_eq!(format_size(1000), "1000 bytes");
    }

    #[test]
    fn dev_zero_stops_at_the_limit() {
        match read_limited(Path::new("/dev/zero"), 1 << 20) {
            Err(ReadError::TooLarge { limit }) => assert_eq!(limit, 1 << 20),
            other => panic!("expected too large, got {:?}", other.map(|v| v.len())),
        }
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_limit_while_decompressing() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bomb.gz");
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&path).unwrap(),
            flate2::Compression::best(),
        );
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..8 {
            gz.write_all(&zeros).unwrap();
        }
        gz.finish().unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 64 << 10);
        assert!(matches!(
            read_limited(&path, 4 << 20),
            Err(ReadError::TooLarge { limit }) if limit == 4 << 20
        ));
        // Under a budget it fits, it reads whole.
        assert_eq!(read_limited(&path, 8 << 20).unwrap().len(), 8 << 20);
    }
}
