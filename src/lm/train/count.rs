//! Counting for [`super::train`]: reads the inputs (plain or gzip) line by line, splits them
//! into sentences, maps tokens to dense ids and counts the n-grams of every order in memory,
//! with lossy pruning past a cap (steps 1–3 of the pipeline in [`super`]).

use std::cell::Cell;
use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::{Progress, TrainError, TrainOptions, TrainStats};
use crate::lm::format::MAX_ORDER;
use crate::lm::tokenize::{fmix64, tokenize_with, TokenHasher};
use crate::segment::split_sentences;

/// Id of `<s>` in the vocabulary.
pub(super) const BOS: u32 = 0;
/// Id of `</s>` in the vocabulary.
pub(super) const EOS: u32 = 1;

/// Hasher for keys that are already hashes or small integer tuples (fixed, no random state).
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    #[inline]
    fn finish(&self) -> u64 {
        fmix64(self.0)
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// An n-gram of vocabulary ids, left-aligned; unused slots are 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Gram(pub(super) [u32; MAX_ORDER]);

impl Hash for Gram {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(u64::from(self.0[0]) | u64::from(self.0[1]) << 32);
        state.write_u64(u64::from(self.0[2]) | u64::from(self.0[3]) << 32);
    }
}

impl Gram {
    pub(super) fn from_ids(ids: &[u32]) -> Gram {
        let mut g = [0u32; MAX_ORDER];
        g[..ids.len()].copy_from_slice(ids);
        Gram(g)
    }
    /// The first n-1 ids of an n-gram.
    pub(super) fn prefix(self, n: usize) -> Gram {
        let mut g = self.0;
        g[n - 1] = 0;
        Gram(g)
    }
    /// The last n-1 ids of an n-gram.
    pub(super) fn suffix(self, n: usize) -> Gram {
        let mut g = [0u32; MAX_ORDER];
        g[..n - 1].copy_from_slice(&self.0[1..n]);
        Gram(g)
    }
}

/// Raw counts after reading the corpus.
pub(super) struct Counts {
    /// Token hash of each id.
    pub(super) hashes: Vec<u64>,
    /// Raw unigram count of each id.
    pub(super) unigram: Vec<u64>,
    /// Raw counts per order 2..=N (index 0 = bigrams), sorted by gram.
    pub(super) grams: Vec<Vec<(Gram, u32)>>,
}

/// Reader that counts the bytes it reads and tells the progress of them.
struct ProgressReader<'a, R> {
    inner: R,
    progress: &'a dyn Progress,
    read: &'a Cell<u64>,
}

impl<R: Read> Read for ProgressReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        self.progress.read(n as u64);
        Ok(n)
    }
}

/// The file at `path` as lines (gunzipped when named `*.gz`), its bytes counted in `read`.
fn open_input<'a>(
    path: &Path,
    progress: &'a dyn Progress,
    read: &'a Cell<u64>,
) -> std::io::Result<Box<dyn BufRead + 'a>> {
    let file = File::open(path)?;
    let counted = ProgressReader {
        inner: file,
        progress,
        read,
    };
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    Ok(if gz {
        Box::new(BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, counted)),
        ))
    } else {
        Box::new(BufReader::with_capacity(1 << 20, counted))
    })
}

pub(super) struct Counter {
    order: usize,
    cap: usize,
    hasher: TokenHasher,
    ids: FastMap<u64, u32>,
    hashes: Vec<u64>,
    unigram: Vec<u64>,
    maps: Vec<FastMap<Gram, u32>>,
    lossy_prunings: Vec<u32>,
    sentence: Vec<u32>,
}

impl Counter {
    pub(super) fn new(opts: &TrainOptions) -> Counter {
        let hasher = TokenHasher::new(opts.seed);
        let mut ids = FastMap::default();
        ids.insert(hasher.bos, BOS);
        ids.insert(hasher.eos, EOS);
        Counter {
            order: opts.order,
            cap: opts.max_ngrams_in_memory,
            hashes: vec![hasher.bos, hasher.eos],
            hasher,
            ids,
            unigram: vec![0, 0],
            maps: (2..=opts.order).map(|_| FastMap::default()).collect(),
            lossy_prunings: vec![0; opts.order],
            sentence: Vec::new(),
        }
    }

    /// Counts one sentence, and adds it and its tokens to `stats` unless it has none.
    pub(super) fn add_sentence(&mut self, text: &str, stats: &mut TrainStats) {
        let tokens = self.count_sentence(text);
        if tokens > 0 {
            stats.sentences += 1;
            stats.tokens += tokens;
        }
    }

    /// Counts the n-grams of one sentence; returns its token count.
    fn count_sentence(&mut self, text: &str) -> u64 {
        let mut sentence = std::mem::take(&mut self.sentence);
        sentence.clear();
        sentence.push(BOS);
        let (ids, hashes, unigram) = (&mut self.ids, &mut self.hashes, &mut self.unigram);
        tokenize_with(&self.hasher, text, |token| {
            let next = hashes.len() as u32;
            let id = *ids.entry(token.hash).or_insert_with(|| {
                hashes.push(token.hash);
                unigram.push(0);
                next
            });
            sentence.push(id);
        });
        let tokens = sentence.len() as u64 - 1;
        if tokens == 0 {
            self.sentence = sentence;
            return 0;
        }
        sentence.push(EOS);
        self.unigram[BOS as usize] += 1;
        for i in 1..sentence.len() {
            self.unigram[sentence[i] as usize] += 1;
            for n in 2..=self.order.min(i + 1) {
                let gram = Gram::from_ids(&sentence[i + 1 - n..=i]);
                let map = &mut self.maps[n - 2];
                *map.entry(gram).or_insert(0) += 1;
                if map.len() > self.cap {
                    prune_lossy(map, self.cap);
                    self.lossy_prunings[n - 1] += 1;
                }
            }
        }
        self.sentence = sentence;
        tokens
    }
}

/// Drops low counts until the map holds at most 3/4 of `cap` entries.
fn prune_lossy(map: &mut FastMap<Gram, u32>, cap: usize) {
    let mut threshold = 1;
    loop {
        map.retain(|_, count| *count > threshold);
        if map.len() <= cap / 4 * 3 {
            break;
        }
        threshold += 1;
    }
}

pub(super) fn count_inputs(
    inputs: &[PathBuf],
    opts: &TrainOptions,
    progress: &dyn Progress,
    stats: &mut TrainStats,
) -> Result<Counts, TrainError> {
    let total: u64 = inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    progress.start(total);
    let read = Cell::new(0);
    let mut counter = Counter::new(opts);
    let mut line = Vec::new();
    let mut sentences = Vec::new();
    for path in inputs {
        let io_err = |source| TrainError::Io {
            path: path.clone(),
            source,
        };
        progress.file(path);
        let mut reader = open_input(path, progress, &read).map_err(io_err)?;
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line).map_err(io_err)?;
            if n == 0 {
                break;
            }
            stats.lines += 1;
            let text = match std::str::from_utf8(&line) {
                Ok(s) => std::borrow::Cow::Borrowed(s),
                Err(_) => {
                    stats.invalid_utf8_lines += 1;
                    String::from_utf8_lossy(&line)
                }
            };
            if opts.split_sentences {
                sentences.clear();
                split_sentences(&text, &mut sentences);
                for sentence in &sentences {
                    counter.add_sentence(&text[sentence.range()], stats);
                }
            } else {
                counter.add_sentence(&text, stats);
            }
        }
    }
    stats.input_bytes = read.get();
    progress.finish();
    Ok(counter.into_counts(stats))
}

impl Counter {
    /// The finished counts, sorted, with the counting statistics filled in.
    pub(super) fn into_counts(mut self, stats: &mut TrainStats) -> Counts {
        stats.vocabulary = self.hashes.len();
        stats.lossy_prunings = self.lossy_prunings.clone();
        stats.counted = vec![self.hashes.len()];
        let mut grams = Vec::with_capacity(self.maps.len());
        for map in std::mem::take(&mut self.maps) {
            stats.counted.push(map.len());
            let mut v: Vec<(Gram, u32)> = map.into_iter().collect();
            v.sort_unstable_by_key(|&(g, _)| g);
            grams.push(v);
        }
        Counts {
            hashes: self.hashes,
            unigram: self.unigram,
            grams,
        }
    }
}
