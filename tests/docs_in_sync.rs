//! The committed man pages and shell completions match what the flag definitions generate.

use std::path::Path;
use std::process::Command;

fn check(binary: &str, generate: &str, committed: &str) {
    let out = Command::new(binary)
        .args(["--generate", generate])
        .output()
        .unwrap();
    assert!(out.status.success());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(committed);
    let on_disk = std::fs::read(&path).unwrap_or_default();
    assert!(
        out.stdout == on_disk,
        "{committed} is stale: regenerate it with `scripts/generate-docs.sh`"
    );
}

#[test]
fn man_pages_and_completions_are_in_sync() {
    for (binary, name) in [
        (env!("CARGO_BIN_EXE_ppl-filter"), "ppl-filter"),
        (env!("CARGO_BIN_EXE_ppl-eval"), "ppl-eval"),
    ] {
        check(binary, "man", &format!("man/{name}.1"));
        for shell in ["bash", "zsh", "fish"] {
            check(
                binary,
                &format!("complete-{shell}"),
                &format!("completions/{name}.{shell}"),
            );
        }
    }
}
