//! Writes a model file packed (`src/lm/pack.rs`), as `model/en.pack` is committed; a model with
//! 32-bit bigram fingerprints (format version 1) is narrowed to 16 bits first:
//! `cargo run --release --example pack_model -- MODEL.bin model/en.pack [NARROWED.bin]`

use std::process::ExitCode;

use ppl_filter::lm::model::{narrow_fingerprints, LanguageModel};
use ppl_filter::lm::pack;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(packed)) = (args.first(), args.get(1)) else {
        eprintln!("usage: pack_model MODEL.bin PACKED [NARROWED.bin]");
        return ExitCode::from(2);
    };
    let run = || -> Result<(), String> {
        let old = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
        let narrow = narrow_fingerprints(&old).map_err(|e| format!("{input}: {e}"))?;
        LanguageModel::from_bytes(narrow.clone()).map_err(|e| format!("converted model: {e}"))?;
        let bytes = pack::pack(&narrow).map_err(|e| e.to_string())?;
        if pack::unpack(&bytes).map_err(|e| e.to_string())? != narrow {
            return Err("the packed model does not unpack to the same bytes".into());
        }
        std::fs::write(packed, &bytes).map_err(|e| format!("{packed}: {e}"))?;
        if let Some(new) = args.get(2) {
            std::fs::write(new, &narrow).map_err(|e| format!("{new}: {e}"))?;
        }
        eprintln!(
            "{input}: {} bytes → {} bytes, packed {} bytes",
            old.len(),
            narrow.len(),
            bytes.len()
        );
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pack_model: {e}");
            ExitCode::from(1)
        }
    }
}
