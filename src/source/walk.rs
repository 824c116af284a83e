//! From command-line arguments to inputs: files as given, directories walked as ripgrep walks
//! them (the `ignore` crate: `--glob`, `--hidden`, `--follow`, a parallel walk), and lists
//! of files (`--files-from`).
//!
//! The order is deterministic whatever the walk's threads do: the files found under one
//! directory argument are sorted by path, component by component (so `a/z.html` comes before
//! `a.html`'s sibling directory `b/`, as a sorted recursive walk would give them).
//! Ignore files (`.gitignore`, `.ignore`) are not read: a crawl's pages are data, not code.

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::overrides::{Override, OverrideBuilder};
use ignore::{WalkBuilder, WalkState};

use crate::source::{Input, NamedInput};

/// How directories are walked.
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// Globs (gitignore syntax, `!` to exclude) a file found in a directory must match; files
    /// named on the command line are always read.
    pub globs: Vec<String>,
    /// Also walk hidden files and directories (names starting with `.`).
    pub hidden: bool,
    /// Follow symbolic links to directories.
    pub follow_links: bool,
    /// Threads of the walk (at least 1).
    pub threads: usize,
}

/// What the arguments expand to.
#[derive(Debug, Default)]
pub struct Expanded {
    /// The inputs in order, each with the name its output takes under `--output-dir`.
    pub inputs: Vec<NamedInput>,
    /// Directories (or entries below them) that could not be read, with why.
    pub unreadable: Vec<(PathBuf, String)>,
    /// Directory arguments under which no file was found (or none matched the globs).
    pub empty_dirs: Vec<PathBuf>,
    /// The directories walked (each output directory must lie outside them).
    pub walked: Vec<PathBuf>,
    /// Entries found while walking that are not regular files (FIFOs, sockets, devices):
    /// skipped, since reading one could block or never end.
    pub special_skipped: u64,
}

/// Why the arguments cannot be expanded at all.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// A `--glob` that does not parse.
    #[error("invalid --glob: {0}")]
    Glob(#[source] ignore::Error),
    /// A `--files-from` list that cannot be read.
    #[error("{}: cannot read the list of files: {source}", path.display())]
    List {
        /// The list, `-` for standard input.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

/// The inputs named by `args` (none: standard input), in order, each with its path below the
/// directory argument that found it (just its file name for a file argument; `stdin` for
/// standard input), from which its output name under `--output-dir` is made.
pub fn expand(args: &[PathBuf], options: &WalkOptions) -> Result<Expanded, WalkError> {
    let mut expanded = Expanded::default();
    let mut streams = std::collections::HashMap::new();
    let stdin_only = [PathBuf::from("-")];
    let args = if args.is_empty() { &stdin_only } else { args };
    for arg in args {
        if arg.as_os_str() != "-" && arg.is_dir() {
            let before = expanded.inputs.len();
            walk(arg, options, &mut expanded)?;
            expanded.walked.push(arg.clone());
            if expanded.inputs.len() == before {
                expanded.empty_dirs.push(arg.clone());
            }
        } else {
            let name = match arg.as_os_str() == "-" {
                true => PathBuf::from("stdin"),
                false => arg.file_name().map_or_else(|| arg.clone(), PathBuf::from),
            };
            // Standard input or a pipe named twice is one stream, read once (opening a FIFO again would wait
            // for a writer that is gone).
            let input = match Input::from_arg(arg) {
                Input::Stream(stream) => {
                    let first = streams.entry(stream_key(arg)).or_insert(stream);
                    let path = (arg.as_os_str() != "-").then(|| arg.clone());
                    Input::Stream(first.named_again(path))
                }
                input => input,
            };
            expanded.inputs.push((input, name));
        }
    }
    Ok(expanded)
}

/// What makes two stream arguments one stream: the pipe, FIFO or device they open (`-` and
/// `/dev/stdin` are the same pipe), else the argument itself.
#[cfg(unix)]
fn stream_key(arg: &Path) -> (u64, u64, PathBuf) {
    use std::os::unix::fs::MetadataExt;
    let path = match arg.as_os_str() == "-" {
        true => Path::new("/dev/stdin"),
        false => arg,
    };
    match std::fs::metadata(path) {
        Ok(meta) => (meta.dev(), meta.ino(), PathBuf::new()),
        Err(_) => (0, 0, arg.to_path_buf()),
    }
}

#[cfg(not(unix))]
fn stream_key(arg: &Path) -> PathBuf {
    arg.to_path_buf()
}

/// Appends the files under `root` to `expanded`, sorted by path.
fn walk(root: &Path, options: &WalkOptions, expanded: &mut Expanded) -> Result<(), WalkError> {
    let found = Mutex::new(Vec::new());
    let unreadable = Mutex::new(Vec::new());
    let special = std::sync::atomic::AtomicU64::new(0);
    WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(!options.hidden)
        .follow_links(options.follow_links)
        .overrides(overrides(root, &options.globs)?)
        .threads(options.threads.max(1))
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                match entry {
                    Ok(entry) if entry.file_type().is_some_and(|t| !t.is_dir()) => {
                        // A link is a file when it points to one (a dangling link fails to
                        // open later); a FIFO, socket or device is not read.
                        let regular = entry.file_type().is_some_and(|t| t.is_file());
                        if regular || (entry.path_is_symlink() && entry.path().is_file()) {
                            lock(&found).push(entry.into_path());
                        } else if !entry.path_is_symlink() || entry.path().exists() {
                            special.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                    Ok(_) => {}
                    Err(e) => lock(&unreadable).push(e),
                }
                WalkState::Continue
            })
        });
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    found.sort();
    for path in found {
        let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        expanded.inputs.push((Input::Found(path), relative));
    }
    expanded.special_skipped += special.into_inner();
    let mut errors: Vec<(PathBuf, String)> = unreadable
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|e| {
            (
                error_path(&e).unwrap_or(root).to_path_buf(),
                error_message(&e),
            )
        })
        .collect();
    errors.sort();
    expanded.unreadable.extend(errors);
    Ok(())
}

/// The globs as the walk's overrides, relative to `root`.
fn overrides(root: &Path, globs: &[String]) -> Result<Override, WalkError> {
    let mut builder = OverrideBuilder::new(root);
    for glob in globs {
        builder.add(glob).map_err(WalkError::Glob)?;
    }
    builder.build().map_err(WalkError::Glob)
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The path a walk error is about, if it names one.
fn error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}

/// A walk error's message without its path (which is reported before it) or Rust's
/// "(os error N)" suffix.
fn error_message(error: &ignore::Error) -> String {
    match error {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => error_message(err),
        ignore::Error::Io(e) => crate::errors::io_message(e),
        ignore::Error::Loop { ancestor, .. } => {
            format!("link loop back to {}: not followed", ancestor.display())
        }
        other => other.to_string(),
    }
}

/// The paths listed in `path` (`-`: standard input), one per line; empty lines are skipped
/// and a line's trailing `\r` dropped.
pub fn read_list(path: &Path) -> Result<Vec<PathBuf>, WalkError> {
    let list_error = |source| WalkError::List {
        path: path.to_path_buf(),
        source,
    };
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        Box::new(io::BufReader::new(
            std::fs::File::open(path).map_err(list_error)?,
        ))
    };
    let mut paths = Vec::new();
    for line in reader.split(b'\n') {
        let mut line = line.map_err(list_error)?;
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if !line.is_empty() {
            paths.push(path_from_bytes(line));
        }
    }
    Ok(paths)
}

#[cfg(unix)]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> PathBuf {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "ppl-walk-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        for file in files {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, b"x").unwrap();
        }
        root
    }

    fn names(expanded: &Expanded) -> Vec<String> {
        expanded
            .inputs
            .iter()
            .map(|(_, n)| n.display().to_string())
            .collect()
    }

    const FILES: [&str; 6] = [
        "b/2.html.gz",
        "a.html",
        "b/1.htm",
        ".hidden/x.html",
        "b/.skip.html",
        "b/c/3.warc.gz",
    ];

    #[test]
    fn directories_are_walked_in_order_whatever_the_threads() {
        let root = tree(&FILES);
        for threads in [1, 4] {
            let options = WalkOptions {
                threads,
                ..WalkOptions::default()
            };
            let expanded = expand(&[root.clone(), PathBuf::from("-")], &options).unwrap();
            assert!(expanded.unreadable.is_empty() && expanded.empty_dirs.is_empty());
            assert_eq!(
                names(&expanded),
                ["a.html", "b/1.htm", "b/2.html.gz", "b/c/3.warc.gz", "stdin"]
            );
            assert!(expanded.inputs[4].0.is_stdin());
            assert!(matches!(expanded.inputs[0].0, Input::Found(_)));
        }
        // A missing path is an input that fails to open, reported when it is read.
        let missing = expand(&[root.join("no-such-file")], &WalkOptions::default()).unwrap();
        assert_eq!(missing.inputs.len(), 1);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn globs_and_hidden_choose_the_files() {
        let root = tree(&FILES);
        let with = |globs: &[&str], hidden| WalkOptions {
            globs: globs.iter().map(|g| g.to_string()).collect(),
            hidden,
            threads: 1,
            ..WalkOptions::default()
        };
        let only_warc = expand(std::slice::from_ref(&root), &with(&["*.warc.gz"], false)).unwrap();
        assert_eq!(names(&only_warc), ["b/c/3.warc.gz"]);
        let no_gz = expand(std::slice::from_ref(&root), &with(&["!*.gz"], true)).unwrap();
        assert_eq!(
            names(&no_gz),
            [".hidden/x.html", "a.html", "b/.skip.html", "b/1.htm"]
        );
        let none = expand(std::slice::from_ref(&root), &with(&["*.pdf"], false)).unwrap();
        assert_eq!(none.empty_dirs, std::slice::from_ref(&root));
        // A file named on the command line is read whatever the globs say.
        let named = expand(&[root.join("a.html")], &with(&["*.pdf"], false)).unwrap();
        assert_eq!(names(&named), ["a.html"]);
        assert!(matches!(
            expand(std::slice::from_ref(&root), &with(&["a/**{"], false)),
            Err(WalkError::Glob(_))
        ));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn fifos_found_while_walking_are_skipped_and_one_named_twice_is_one_stream() {
        let root = tree(&["page.html"]);
        let fifo = root.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here
        }
        let walked = expand(std::slice::from_ref(&root), &WalkOptions::default()).unwrap();
        assert_eq!(names(&walked), ["page.html"]);
        assert_eq!(walked.special_skipped, 1);
        let named = expand(&[fifo.clone(), fifo], &WalkOptions::default()).unwrap();
        assert!(matches!(named.inputs[0].0, Input::Stream(_)));
        assert_eq!(named.inputs[0].0, named.inputs[1].0, "one handle");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_only_when_asked_and_loops_are_reported() {
        let root = tree(&["real/page.html"]);
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(&root, root.join("real/loop")).unwrap();
        let plain = expand(std::slice::from_ref(&root), &WalkOptions::default()).unwrap();
        assert_eq!(names(&plain), ["real/page.html"]);
        let follow = WalkOptions {
            follow_links: true,
            ..WalkOptions::default()
        };
        let followed = expand(std::slice::from_ref(&root), &follow).unwrap();
        assert_eq!(names(&followed), ["link/page.html", "real/page.html"]);
        assert!(
            followed.unreadable.iter().any(|(_, m)| m.contains("loop")),
            "{:?}",
            followed.unreadable
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn lists_of_files_are_read_line_by_line() {
        let root = tree(&[]);
        std::fs::create_dir_all(&root).unwrap();
        let list = root.join("list");
        std::fs::write(&list, "a.html\r\n\nb dir/c.html\n").unwrap();
        assert_eq!(
            read_list(&list).unwrap(),
            [PathBuf::from("a.html"), PathBuf::from("b dir/c.html")]
        );
        assert!(matches!(
            read_list(&root.join("missing")),
            Err(WalkError::List { .. })
        ));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
