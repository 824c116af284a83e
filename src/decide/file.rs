//! The classifier file: `PPLC 1 <n>\n`, then `n` bytes of JSON ([`Weights`]), then the
//! boilerplate model in the language-model format (`PPLM`, checksummed). Reading checks every
//! length against what is there and every parameter against what this build can use.

use std::io::Read;
use std::path::Path;

use super::classifier::{Classifier, Scorer, Weights, INPUTS};
use crate::block::{Evidence, EVIDENCE_VALUES};
use crate::lm::model::{read_model, LanguageModel, ModelError};

/// Why a classifier file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ClassifierError {
    /// Reading the file failed.
    #[error("cannot read classifier: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not start with the classifier header.
    #[error("not a ppl-filter classifier (bad header)")]
    BadHeader,
    /// The file ends early.
    #[error("classifier file is truncated")]
    Truncated,
    /// The parameters are malformed or do not fit this build.
    #[error("corrupt classifier: {0}")]
    Corrupt(String),
    /// The embedded boilerplate model is unusable.
    #[error("classifier's boilerplate model: {0}")]
    Model(#[from] ModelError),
}

/// A classifier file that cannot be used, and its name.
#[derive(Debug, thiserror::Error)]
#[error("{}", path.display())]
pub struct ClassifierLoadError {
    /// The file.
    pub path: std::path::PathBuf,
    /// Why it cannot be used.
    #[source]
    pub source: ClassifierError,
}

/// First line of a classifier file, before the JSON length.
const HEADER: &str = "PPLC 1 ";

impl Classifier {
    /// [`Classifier::open`], the error naming the file.
    pub fn load(path: &Path) -> Result<Classifier, ClassifierLoadError> {
        Classifier::open(path).map_err(|source| ClassifierLoadError {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Reads and validates a classifier file.
    ///
    /// The header line, the parameters and the model are read in turn, each only up to the
    /// length recorded before it, and a regular file's recorded lengths are checked against
    /// its size before anything is read: memory grows with the bytes actually present, never
    /// with a recorded length, so a damaged header or an endless stream (a device, a pipe)
    /// cannot exhaust it.
    pub fn open(path: &Path) -> Result<Classifier, ClassifierError> {
        let mut file = std::fs::File::open(path)?;
        let metadata = file.metadata()?;
        let size = metadata.is_file().then_some(metadata.len());
        let mut head = Vec::with_capacity(HEADER_LINE_MAX);
        (&mut file)
            .take(HEADER_LINE_MAX as u64)
            .read_to_end(&mut head)?;
        let (start, len) = parse_header(&head)?;
        // Bytes after the header line, if known; the parameters must leave room for a model.
        let rest = size.map(|size| size.saturating_sub(start as u64));
        if rest.is_some_and(|rest| len >= rest) {
            return Err(ClassifierError::Truncated);
        }
        let mut reader = (&head[start..]).chain(file);
        let mut json = Vec::new();
        if rest.is_some() {
            // `len` is below the file's size here.
            json.try_reserve_exact(len as usize)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        }
        (&mut reader).take(len).read_to_end(&mut json)?;
        if (json.len() as u64) < len {
            return Err(ClassifierError::Truncated);
        }
        let weights = parse_weights(&json)?;
        drop(json);
        let model = read_model(&mut reader, rest.map(|rest| rest - len))?;
        if model.is_empty() {
            return Err(ClassifierError::Truncated);
        }
        Ok(Classifier::new(LanguageModel::from_bytes(model)?, weights))
    }

    /// Validates and parses classifier bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Classifier, ClassifierError> {
        let (weights, model) = split_file(bytes)?;
        Ok(Classifier::new(
            LanguageModel::from_bytes(model.to_vec())?,
            weights,
        ))
    }

    /// Validates and wraps classifier bytes with static lifetime (the embedded one).
    pub fn from_static(bytes: &'static [u8]) -> Result<Classifier, ClassifierError> {
        let (weights, model) = split_file(bytes)?;
        Ok(Classifier::new(LanguageModel::from_static(model)?, weights))
    }

    /// The file bytes for `weights` and the boilerplate model's bytes; refused when the
    /// parameters are larger than a classifier file may hold ([`MAX_PARAMETERS_BYTES`]).
    pub fn to_bytes(
        weights: &Weights,
        boilerplate_model: &[u8],
    ) -> Result<Vec<u8>, ClassifierError> {
        let json = serde_json::to_vec(weights).expect("weights serialise");
        if json.len() as u64 > MAX_PARAMETERS_BYTES {
            return Err(ClassifierError::Corrupt(format!(
                "{} bytes of parameters, more than the limit of {MAX_PARAMETERS_BYTES}: fewer or shallower trees",
                json.len()
            )));
        }
        let mut out = format!("{HEADER}{}\n", json.len()).into_bytes();
        out.extend_from_slice(&json);
        out.extend_from_slice(boilerplate_model);
        Ok(out)
    }
}

/// Longest header line (`PPLC 1 <n>` and the newline) looked for.
const HEADER_LINE_MAX: usize = 64;

/// The largest parameter section a classifier file may have (the default classifier's is
/// about 100 KB; 2,000 trees of depth 10 fit): parsing it takes a few times its size.
pub const MAX_PARAMETERS_BYTES: u64 = 64 << 20;

/// Where the parameters start (after the header line) and their recorded length.
fn parse_header(bytes: &[u8]) -> Result<(usize, u64), ClassifierError> {
    let line_end = memchr::memchr(b'\n', &bytes[..bytes.len().min(HEADER_LINE_MAX)])
        .ok_or(ClassifierError::BadHeader)?;
    let line = std::str::from_utf8(&bytes[..line_end]).map_err(|_| ClassifierError::BadHeader)?;
    let len: u64 = line
        .strip_prefix(HEADER)
        .and_then(|n| n.parse().ok())
        .ok_or(ClassifierError::BadHeader)?;
    if len > MAX_PARAMETERS_BYTES {
        return Err(ClassifierError::Corrupt(format!(
            "{len} bytes of parameters, more than the limit of {MAX_PARAMETERS_BYTES}"
        )));
    }
    Ok((line_end + 1, len))
}

pub(super) fn split_file(bytes: &[u8]) -> Result<(Weights, &[u8]), ClassifierError> {
    let (start, len) = parse_header(bytes)?;
    // Checked: the recorded length may be anything up to u64::MAX.
    let end = usize::try_from(len)
        .ok()
        .and_then(|len| start.checked_add(len))
        .filter(|&end| end <= bytes.len())
        .ok_or(ClassifierError::Truncated)?;
    let weights = parse_weights(&bytes[start..end])?;
    let model = &bytes[end..];
    if model.is_empty() {
        return Err(ClassifierError::Truncated);
    }
    Ok((weights, model))
}

/// Parses and validates the parameters: every number finite, every size and index in range
/// (so evaluation cannot index out of bounds, loop, or make a NaN), the trees proper trees.
fn parse_weights(json: &[u8]) -> Result<Weights, ClassifierError> {
    let weights: Weights =
        serde_json::from_slice(json).map_err(|e| ClassifierError::Corrupt(e.to_string()))?;
    let corrupt = |message: String| Err(ClassifierError::Corrupt(message));
    let checked = match &weights.scorer {
        Scorer::Logistic(logistic) => logistic.check(),
        Scorer::Trees(forest) => forest.validate(INPUTS),
    };
    if let Err(e) = checked {
        return corrupt(e);
    }
    if !weights.evidence.is_empty() && weights.evidence != Weights::evidence_names() {
        return corrupt(format!(
            "learned on other evidence ({} values: {}…) than this build's ({} values: {}…)",
            weights.evidence.len(),
            weights.evidence[..weights.evidence.len().min(3)].join(", "),
            EVIDENCE_VALUES,
            Evidence::NAMES[..3].join(", ")
        ));
    }
    if let Some(kinds) = &weights.page_kinds {
        if let Err(e) = kinds.check() {
            return corrupt(format!("its page-kind model: {e}"));
        }
    }
    if !weights.threshold.is_finite() {
        return corrupt("the decision threshold is not finite".into());
    }
    if !weights.smoothing.is_finite() || weights.transition.iter().flatten().any(|t| !t.is_finite())
    {
        return corrupt("a smoothing weight or transition is not finite".into());
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::classifier::embedded;

    #[test]
    fn damaged_classifier_files_are_errors() {
        let bytes = include_bytes!("../../model/en-classifier.bin");
        assert!(matches!(
            Classifier::from_bytes(b"hello"),
            Err(ClassifierError::BadHeader)
        ));
        let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();
        assert!(matches!(
            Classifier::from_bytes(&bytes[..header_end + 10]),
            Err(ClassifierError::Truncated)
        ));
        let cut = bytes.len() - 1000;
        assert!(matches!(
            Classifier::from_bytes(&bytes[..cut]),
            Err(ClassifierError::Model(_))
        ));
        let mut json_broken = bytes.to_vec();
        json_broken[header_end + 1] = b'[';
        assert!(matches!(
            Classifier::from_bytes(&json_broken),
            Err(ClassifierError::Corrupt(_))
        ));
    }

    /// `json` with the number after the first `key` replaced by `value`.
    fn with_number_after(json: &str, key: &str, value: &str) -> String {
        let start = json.find(key).unwrap() + key.len();
        let end = start + json[start..].find([',', '}']).unwrap();
        format!("{}{value}{}", &json[..start], &json[end..])
    }

    /// The embedded classifier file with its parameters replaced by `json`.
    fn with_json(json: &str) -> Vec<u8> {
        let bytes = include_bytes!("../../model/en-classifier.bin");
        let (start, len) = parse_header(bytes).unwrap();
        let mut out = format!("{HEADER}{}\n{json}", json.len()).into_bytes();
        out.extend_from_slice(&bytes[start + len as usize..]);
        out
    }

    #[test]
    fn huge_recorded_lengths_are_errors_not_overflows() {
        let bytes = include_bytes!("../../model/en-classifier.bin");
        let (start, _) = parse_header(bytes).unwrap();
        for len in [
            u64::MAX,
            u64::MAX - start as u64,
            u64::MAX / 2,
            bytes.len() as u64,
        ] {
            let mut damaged = format!("{HEADER}{len}\n").into_bytes();
            damaged.extend_from_slice(&bytes[start..]);
            let refused = Classifier::from_bytes(&damaged);
            let over_limit = matches!(&refused, Err(ClassifierError::Corrupt(m)) if m.contains("more than the limit"));
            assert!(
                matches!(refused, Err(ClassifierError::Truncated)) || over_limit,
                "{len}"
            );
        }
        // Too many digits for any length.
        assert!(matches!(
            Classifier::from_bytes(b"PPLC 1 99999999999999999999999\n{}"),
            Err(ClassifierError::BadHeader)
        ));
    }

    #[test]
    fn a_classifier_learned_on_other_evidence_is_refused() {
        let bytes = include_bytes!("../../model/en-classifier.bin");
        let (start, len) = parse_header(bytes).unwrap();
        let mut weights: Weights =
            serde_json::from_slice(&bytes[start..start + len as usize]).unwrap();
        weights.evidence = Weights::evidence_names();
        let json = serde_json::to_string(&weights).unwrap();
        assert!(Classifier::from_bytes(&with_json(&json)).is_ok());
        weights.evidence.swap(0, 1);
        let json = serde_json::to_string(&weights).unwrap();
        let err = Classifier::from_bytes(&with_json(&json)).unwrap_err();
        assert!(
            err.to_string().contains("learned on other evidence"),
            "{err}"
        );
    }

    #[test]
    fn non_finite_parameters_are_errors() {
        let bytes = include_bytes!("../../model/en-classifier.bin");
        let (start, len) = parse_header(bytes).unwrap();
        let json = std::str::from_utf8(&bytes[start..start + len as usize]).unwrap();
        // 1e39 is beyond f32.
        let first_leaf = json.find("\"value\":-").unwrap() + "\"value\":".len();
        let end = first_leaf + json[first_leaf..].find('}').unwrap();
        for damaged in [
            format!("{}1e39{}", &json[..first_leaf], &json[end..]),
            with_number_after(json, "\"threshold\":", "-1e39"),
            with_number_after(json, "\"base\":", "1e39"),
            // The decision threshold: the number just before the transitions.
            {
                let end = json.find(",\"transition\"").unwrap();
                let start = json[..end].rfind(':').unwrap() + 1;
                format!("{}1e39{}", &json[..start], &json[end..])
            },
            json.replace("\"smoothing\":0.0", "\"smoothing\":-1e39"),
        ] {
            assert_ne!(damaged, json);
            // serde_json refuses a number beyond f32 in some fields ("out of range") but
            // turns it into infinity in others (inside the tagged scorer, and `smoothing`).
            let err = Classifier::from_bytes(&with_json(&damaged)).unwrap_err();
            assert!(matches!(err, ClassifierError::Corrupt(_)), "{err}");
            let message = err.to_string();
            assert!(
                message.contains("not finite") || message.contains("out of range"),
                "{message}"
            );
        }
        assert!(Classifier::from_bytes(&with_json(json)).is_ok());
        // A logistic scorer with extreme (finite) parameters never makes a NaN.
        let mut logistic = serde_json::json!({
            "scorer": {"kind": "logistic", "mean": vec![0.0; INPUTS], "scale": vec![1e-45; INPUTS],
                       "weights": vec![3e38; INPUTS], "intercept": 0.0},
            "threshold": 0.0, "transition": [[0.0, 0.0], [0.0, 0.0]], "smoothing": 0.0, "provenance": "test"
        });
        logistic["scorer"]["weights"][1] = serde_json::json!(-3e38);
        let classifier = Classifier::from_bytes(&with_json(&logistic.to_string())).unwrap();
        let mut x = [1.0; INPUTS];
        assert!(!classifier.log_odds(&x).is_nan());
        x[1] = -1.0;
        assert!(!classifier.log_odds(&x).is_nan());
        logistic["scorer"]["mean"][3] = serde_json::json!(1e39);
        assert!(Classifier::from_bytes(&with_json(&logistic.to_string())).is_err());
    }

    #[test]
    fn open_reads_no_more_than_the_file_records() {
        let dir =
            std::env::temp_dir().join(format!("ppl-filter-classify-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bytes = include_bytes!("../../model/en-classifier.bin");
        let path = dir.join("c.bin");
        std::fs::write(&path, bytes).unwrap();
        let classifier = Classifier::open(&path).unwrap();
        assert_eq!(classifier.weights, embedded().weights);
        let (start, _) = parse_header(bytes).unwrap();
        let mut huge = format!("{HEADER}{}\n", u64::MAX).into_bytes();
        huge.extend_from_slice(&bytes[start..]);
        let header_end = bytes.iter().position(|&b| b == b'\n').unwrap();
        for (damaged, what) in [
            (huge, "more than the limit"),
            (bytes[..header_end + 10].to_vec(), "truncated"),
            (bytes[..bytes.len() - 1000].to_vec(), "truncated"),
            ([&bytes[..], b"extra"].concat(), "after the recorded end"),
            (Vec::new(), "bad header"),
        ] {
            std::fs::write(&path, &damaged).unwrap();
            let err = Classifier::open(&path).unwrap_err().to_string();
            assert!(err.contains(what), "{what}: {err}");
            // The same verdict as from the bytes.
            assert_eq!(
                err,
                Classifier::from_bytes(&damaged).unwrap_err().to_string()
            );
        }
        #[cfg(unix)]
        for endless in ["/dev/zero", "/dev/urandom"] {
            if Path::new(endless).exists() {
                assert!(matches!(
                    Classifier::open(Path::new(endless)),
                    Err(ClassifierError::BadHeader)
                ));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
