//! Unpacks the embedded English model (`model/en.pack`, committed packed so that the crate
//! fits crates.io's size limit; see `src/lm/pack.rs`) into `OUT_DIR/en.bin`, which
//! `src/lm/model.rs` embeds with `include_bytes!`.

#[path = "src/lm/pack.rs"]
#[allow(dead_code)] // `pack` is for the library; the build only unpacks
mod pack;

fn main() {
    println!("cargo:rerun-if-changed=model/en.pack");
    println!("cargo:rerun-if-changed=src/lm/pack.rs");
    let packed = std::fs::read("model/en.pack").expect("model/en.pack is part of the crate");
    let model = pack::unpack(&packed).expect("model/en.pack unpacks");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("en.bin"), model).expect("OUT_DIR is writable");
}
