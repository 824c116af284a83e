//! Where the outputs of a run go, checked before anything is written ([`check`]): no output
//! may be an input (or standard output one of the input files), no two inputs may share an
//! output, and an output directory may not lie inside a directory that is walked for inputs
//! (the next run would clean the outputs as inputs).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::source::{Input, NamedInput};

/// Why a run's outputs would overwrite or feed its inputs; nothing is written then.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OutputConflict {
    /// Two inputs whose outputs take the same name (`x.html` and `x.htm`, or one file twice).
    #[error("{first} and {second} would both be written to {}: nothing written (rename one, or clean them in separate runs)", .output.display())]
    SharedName {
        /// The first input.
        first: String,
        /// The second input.
        second: String,
        /// Their output.
        output: PathBuf,
    },
    /// An input that is its own output, or another input's.
    #[error("{input} would be overwritten by the output {}: nothing written (choose an output directory apart from the inputs)", .output.display())]
    OverwritesInput {
        /// The input.
        input: String,
        /// The output that is the same file.
        output: PathBuf,
    },
    /// The output directory is inside (or is) a directory walked for inputs.
    #[error("the output directory {} is inside the input directory {}: a later run would clean the outputs as pages; nothing written (choose an output directory outside it)", .output_dir.display(), .input_dir.display())]
    InsideInputs {
        /// The output directory.
        output_dir: PathBuf,
        /// The directory walked for inputs.
        input_dir: PathBuf,
    },
    /// The output directory names a file that is not a directory.
    #[error("the output directory {} is a file, not a directory: nothing written (give a directory, new or existing; -o writes a file per input under it)", .0.display())]
    NotADirectory(PathBuf),
    /// Standard output is one of the input files (`ppl-filter page.html >> page.html`).
    #[error("{input} is also the output (standard output): nothing written")]
    StdoutIsInput {
        /// The input.
        input: String,
    },
}

/// The checks of a run writing each input's output to `output_dir.join(name)` (`named`; `None`
/// for one stream on standard output), whose inputs were found by walking `walked`.
pub fn check(
    output_dir: Option<&Path>,
    named: &[NamedInput],
    walked: &[PathBuf],
) -> Result<(), OutputConflict> {
    let Some(dir) = output_dir else {
        return check_stdout(named);
    };
    let mut seen: HashMap<&PathBuf, usize> = HashMap::new();
    for (i, (input, name)) in named.iter().enumerate() {
        if let Some(&first) = seen.get(name) {
            return Err(OutputConflict::SharedName {
                first: named[first].0.to_string(),
                second: input.to_string(),
                output: dir.join(name),
            });
        }
        seen.insert(name, i);
    }
    let canonical_dir = canonical(dir);
    for root in walked {
        if canonical_dir.starts_with(canonical(root)) {
            return Err(OutputConflict::InsideInputs {
                output_dir: dir.to_path_buf(),
                input_dir: root.clone(),
            });
        }
    }
    if !dir.exists() {
        // No output exists yet, so none can be an input.
        return Ok(());
    }
    if !dir.is_dir() {
        return Err(OutputConflict::NotADirectory(dir.to_path_buf()));
    }
    let inputs: HashMap<FileId, &Input> = named
        .iter()
        .filter_map(|(input, _)| Some((file_id(input.path()?)?, input)))
        .collect();
    for (_, name) in named {
        let output = dir.join(name);
        if let Some(input) = file_id(&output).and_then(|id| inputs.get(&id)) {
            return Err(OutputConflict::OverwritesInput {
                input: input.to_string(),
                output,
            });
        }
    }
    Ok(())
}

/// Standard output, when it is a regular file, must not be one of the inputs.
fn check_stdout(named: &[NamedInput]) -> Result<(), OutputConflict> {
    let Some(stdout) = stdout_id() else {
        return Ok(());
    };
    let ids: HashSet<FileId> = [stdout].into();
    match named.iter().find(|(input, _)| {
        input
            .path()
            .and_then(file_id)
            .is_some_and(|id| ids.contains(&id))
    }) {
        Some((input, _)) => Err(OutputConflict::StdoutIsInput {
            input: input.to_string(),
        }),
        None => Ok(()),
    }
}

/// `path` with its links and `..` resolved as far as it exists, the rest appended.
fn canonical(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(found) = existing.canonicalize() {
            return rest.iter().rev().fold(found, |path, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// What makes a file the same file whatever its path (a link, a hard link).
#[cfg(unix)]
type FileId = (u64, u64);
#[cfg(not(unix))]
type FileId = PathBuf;

#[cfg(unix)]
fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    meta.is_file().then(|| (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &Path) -> Option<FileId> {
    path.canonicalize().ok()
}

#[cfg(unix)]
fn stdout_id() -> Option<FileId> {
    file_id(Path::new("/dev/stdout"))
}

#[cfg(not(unix))]
fn stdout_id() -> Option<FileId> {
    None
}

/// The name of an input's output under `--output-dir`: its relative path with `.gz` dropped and
/// the extension replaced by `extension` (`a/b.html.gz` → `a/b.txt`), or unchanged for `None`
/// (a WARC or JSONL input gives an output of its own kind and name).
pub fn output_name(relative: &Path, extension: Option<&str>) -> PathBuf {
    let mut name = relative.to_path_buf();
    if let Some(extension) = extension {
        if name.extension().is_some_and(|x| x == "gz") {
            name.set_extension("");
        }
        name.set_extension(extension);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ppl-outputs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn named(root: &Path, files: &[&str]) -> Vec<NamedInput> {
        files
            .iter()
            .map(|f| {
                (
                    Input::Found(root.join(f)),
                    output_name(Path::new(f), Some("txt")),
                )
            })
            .collect()
    }

    #[test]
    fn outputs_that_would_share_a_name_are_refused() {
        let root = scratch("shared");
        let out = root.join("out");
        assert_eq!(
            check(Some(&out), &named(&root, &["x.html", "a/x.html"]), &[]),
            Ok(())
        );
        let clash = check(
            Some(&out),
            &named(&root, &["x.html", "y.html", "x.htm.gz"]),
            &[],
        );
        assert!(
            matches!(&clash, Err(OutputConflict::SharedName { first, second, output })
                if first.ends_with("x.html") && second.ends_with("x.htm.gz") && output == &out.join("x.txt")),
            "{clash:?}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let root = scratch("overwrite");
        std::fs::write(root.join("b.txt"), "<p>page</p>").unwrap();
        std::fs::write(root.join("a.html"), "<p>page</p>").unwrap();
        let inputs = named(&root, &["a.html", "b.txt"]);
        let elsewhere = root.join("elsewhere");
        assert_eq!(check(Some(&elsewhere), &inputs, &[]), Ok(()));
        let over = check(Some(&root), &inputs, &[]);
        assert!(
            matches!(&over, Err(OutputConflict::OverwritesInput { input, .. }) if input.ends_with("b.txt")),
            "{over:?}"
        );
    }

    #[test]
    fn an_output_directory_inside_a_walked_one_is_refused() {
        let root = scratch("inside");
        let site = root.join("site");
        std::fs::create_dir_all(&site).unwrap();
        let inputs = named(&site, &["a.html"]);
        for out in [
            site.join("clean"),
            site.join("clean/deeper"),
            site.clone(),
            root.join("site/../site/x"),
        ] {
            assert!(
                matches!(
                    check(Some(&out), &inputs, std::slice::from_ref(&site)),
                    Err(OutputConflict::InsideInputs { .. })
                ),
                "{}",
                out.display()
            );
        }
        assert_eq!(
            check(
                Some(&root.join("clean")),
                &inputs,
                std::slice::from_ref(&site)
            ),
            Ok(())
        );
        assert_eq!(
            check(Some(&root.join("site-clean")), &inputs, &[site]),
            Ok(())
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn output_names_replace_the_extension_or_keep_a_record_file_s() {
        assert_eq!(
            output_name(Path::new("a/b.html.gz"), Some("txt")),
            Path::new("a/b.txt")
        );
        let record = output_name(Path::new("a/c.warc.gz"), None);
        assert_eq!(record, Path::new("a/c.warc.gz"));
    }
}
