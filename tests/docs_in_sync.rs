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

/// `stub` with its generated parts written from the library's lists: the names the options
/// take (`# Generated: the names …`), and the keyword arguments of the request's options and
/// of the decision's alone, each up to its `# (end of generated)` line.
fn python_stub(stub: &str) -> String {
    use ppl_filter::pipeline::{Decision, OptionName, Request, FAVORS, FORMATS, KINDS, METHODS};
    let literal = |name: &str, values: &[&str]| {
        let values: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
        format!("{name} = Literal[{}]\n", values.join(", "))
    };
    let arguments = |indent: &str, options: &[OptionName]| -> String {
        let default = |python: &str| if python == "bool" { "False" } else { "None" };
        options
            .iter()
            .map(|o| format!("{indent}{}: {} = {},\n", o.key, o.python, default(o.python)))
            .collect()
    };
    let mut out = String::new();
    let mut lines = stub.split_inclusive('\n');
    while let Some(line) = lines.next() {
        out.push_str(line);
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let generated = if trimmed.starts_with("# Generated: the names the options take") {
            [
                literal("_Format", &FORMATS),
                literal("_Method", &METHODS),
                literal("_Favor", &FAVORS),
                literal("_Kind", &KINDS),
            ]
            .concat()
        } else if trimmed.starts_with("# Generated: the request's options") {
            arguments(indent, &Request::OPTIONS)
        } else if trimmed.starts_with("# Generated: the decision's options") {
            arguments(indent, &Decision::OPTIONS)
        } else {
            continue;
        };
        out.push_str(&generated);
        for skipped in lines.by_ref() {
            if skipped.trim_start().starts_with("# (end of generated)") {
                out.push_str(skipped);
                break;
            }
        }
    }
    out
}

/// The Python stub's option names and keyword arguments are the library's: a new option or
/// name reaches it by `scripts/generate-docs.sh` (which runs this with `PPL_UPDATE_STUB=1`).
#[test]
fn the_python_stub_names_the_options_the_library_takes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/ppl_filter/_native.pyi");
    let stub = std::fs::read_to_string(&path).unwrap();
    let generated = python_stub(&stub);
    if std::env::var_os("PPL_UPDATE_STUB").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    assert!(
        generated == stub || std::env::var_os("PPL_UPDATE_STUB").is_some(),
        "python/ppl_filter/_native.pyi is stale: regenerate it with `scripts/generate-docs.sh`"
    );
    assert_eq!(stub.matches("# Generated: ").count(), 4, "{stub}");
}
