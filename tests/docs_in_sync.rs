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

/// What bash's completion function offers for `words`, the last being the word completed.
fn bash_completions(binary: &str, name: &str, words: &[&str]) -> Vec<String> {
    let script = Command::new(binary)
        .args(["--generate", "complete-bash"])
        .output()
        .unwrap()
        .stdout;
    let dir = std::env::temp_dir().join(format!("ppl-complete-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.bash"));
    std::fs::write(&path, script).unwrap();
    let function = format!("_{}", name.replace('-', "__"));
    let current = words.last().unwrap();
    let previous = words[words.len() - 2];
    let driver = format!(
        r#"source "{}"; COMP_WORDS=({}); COMP_CWORD={}; {function} {name} '{current}' '{previous}'; printf '%s\n' "${{COMPREPLY[@]}}""#,
        path.display(),
        words
            .iter()
            .map(|w| format!("'{w}'"))
            .collect::<Vec<_>>()
            .join(" "),
        words.len() - 1,
    );
    let out = Command::new("bash").args(["-c", &driver]).output().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_the_flags_of_subcommands() {
    let filter = env!("CARGO_BIN_EXE_ppl-filter");
    let learn = bash_completions(filter, "ppl-filter", &["ppl-filter", "learn", "--set-"]);
    assert_eq!(learn, ["--set-weight", "--set-balance"], "{learn:?}");
    let train = bash_completions(filter, "ppl-filter", &["ppl-filter", "train", "--or"]);
    assert_eq!(train, ["--order"]);
    // Global options complete after a subcommand too.
    let global = bash_completions(filter, "ppl-filter", &["ppl-filter", "perplexity", "--mo"]);
    assert_eq!(global, ["--model"]);
    let top = bash_completions(filter, "ppl-filter", &["ppl-filter", "--max-d"]);
    assert_eq!(top, ["--max-document-bytes"]);
    let eval = env!("CARGO_BIN_EXE_ppl-eval");
    let compare = bash_completions(eval, "ppl-eval", &["ppl-eval", "compare", "--work"]);
    assert_eq!(compare, ["--work-dir"]);
}

#[test]
fn the_man_page_refers_to_no_missing_page_and_has_an_exit_status_section() {
    let out = Command::new(env!("CARGO_BIN_EXE_ppl-filter"))
        .args(["--generate", "man"])
        .output()
        .unwrap();
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        !page.contains("ppl\\-filter\\-learn(1)"),
        "dangling reference"
    );
    for section in [
        ".SH \"PPL-FILTER LEARN\"",
        ".SH \"EXIT STATUS\"",
        ".SS OPTIONS",
    ] {
        assert!(page.contains(section), "no {section}");
    }
    assert!(!page.contains(".SH EXTRA"));
}
