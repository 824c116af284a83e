//! Documents in parallel: when a run holds many documents (several whole inputs of pages, or
//! the responses of WARC files and the lines of JSONL files), each goes through the whole
//! per-document pipeline (read, decoded, parsed, cut into blocks, scored, decided and
//! rendered, by the same one-thread code as `-j1`) on one thread of a pool, into a record of
//! what it gives the sink and the observer; the calling thread replays the records in order.
//! So the output is byte-identical to `-j1`'s and problems are told in the same order, while no
//! stage is left to one thread. Whole inputs are read on the pool's threads; a WARC or JSONL
//! input is cut into its documents on one thread, which reads each whole (a response or a line
//! is bounded by `--max-record-bytes`) and hands it on.
//!
//! Memory: at most [`IN_FLIGHT_PER_THREAD`] documents a thread, and [`MAX_IN_FLIGHT`] in all,
//! are in flight (read and waiting, being cleaned, or cleaned and waiting for their turn), each
//! holding at most 256 KiB of its bytes and [`HELD_BYTES`] of its output in memory (the rest in
//! temporary files), besides what cleaning one document holds on each thread
//! (`--max-document-bytes`). A JSONL line in flight also holds the line itself (to be written
//! again with its field cleaned): the lines in flight hold at most `--max-record-bytes` in all
//! ([`LineBudget`]; one longer line goes alone), so that long lines at `-j2` take about what
//! they take at `-j1`, not a line per document in flight.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};

use super::document::OutputClosed;
use super::read::{cut_into_pages, hand_inputs, handed_document, Handed};
use super::write::{finish, Writer};
use super::{
    process, run, InputFormat, Observer, Options, Problem, RunError, Summary, MAX_THREADS,
};
use crate::lm::model::LanguageModel;
use crate::sink::{DocumentMeta, DocumentStats, Sink};
use crate::source::spool::Spool;
use crate::source::Input;

/// Output of a document in flight held in memory; the rest goes to a temporary file.
const HELD_BYTES: usize = 256 << 10;

/// Documents in flight for each thread. A long page holds the writer back while the threads go
/// on with the next documents: with 2 a thread, `-j2` over the CleanEval pages took 10 % more
/// wall time than the pipelined path; with 8, 5 % less.
const IN_FLIGHT_PER_THREAD: usize = 8;

/// Documents in flight at most, whatever the thread count: each may hold [`HELD_BYTES`] of
/// output and as much of its bytes (`read::HELD_BYTES`) in memory.
const MAX_IN_FLIGHT: usize = 64;

/// Whether `inputs` are cleaned a document per thread: with several threads, several whole
/// inputs of pages none of which is a stream read as one document (which is read once, as it
/// comes, by the pipelined path), a stream cut into its pages, or WARC or JSONL inputs.
pub(super) fn in_parallel(inputs: &[Input], options: &Options) -> bool {
    let whole_files = inputs.len() > 1
        && inputs.iter().all(|input| {
            matches!(
                input,
                Input::File(_) | Input::Found(_) | Input::Memory { .. }
            )
        });
    options.threads > 1
        && match options.read.input_format {
            InputFormat::Html | InputFormat::Text => {
                whole_files || inputs.iter().any(|input| cut_into_pages(input, options))
            }
            InputFormat::Warc | InputFormat::Jsonl => true,
        }
}

/// What a thread of the pool cleans.
enum Work {
    /// A whole input, by its index.
    Input(usize),
    /// A document read whole from a WARC or JSONL input.
    Document(Box<Handed>),
}

/// What the writer replays, in order.
enum Piece {
    /// A problem the reading of a WARC or JSONL input met (a damaged record, a bad line).
    Problem(Problem),
    /// A cleaned input or document.
    Cleaned(Recorded),
}

/// Cleans every document on `options.threads` threads, a document per thread at a time, and
/// writes them to `out` in order.
pub(super) fn run_in_parallel(
    inputs: &[Input],
    model: &LanguageModel,
    options: &Options,
    out: &mut dyn Sink,
    observer: &dyn Observer,
) -> Result<Summary, RunError> {
    let threads = options.threads.min(MAX_THREADS);
    let one = Options {
        threads: 1,
        ..options.clone()
    };
    let one = &one;
    let in_flight = (IN_FLIGHT_PER_THREAD * threads).min(MAX_IN_FLIGHT);
    let (work_tx, work_rx) = bounded::<(u64, Work)>(in_flight);
    // Unbounded, but never holding more than the tokens let in flight.
    let (done_tx, done_rx) = unbounded::<(u64, Piece)>();
    let (token_tx, token_rx) = bounded::<()>(in_flight);
    let lines = LineBudget::new(options.read.max_record_bytes as u64);
    let lines = &lines;
    for _ in 0..in_flight {
        token_tx
            .send(())
            .expect("the token channel has room for every token");
    }
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (work_rx, done_tx) = (work_rx.clone(), done_tx.clone());
            let worker = std::thread::Builder::new()
                .name("ppl-worker".into())
                .spawn_scoped(scope, move || {
                    for (seq, work) in work_rx {
                        let cleaned = match work {
                            Work::Input(index) => {
                                Recorded::of_input(&inputs[index], model, one, observer)
                            }
                            Work::Document(handed) => {
                                Recorded::of_document(*handed, model, one, observer)
                            }
                        };
                        if done_tx.send((seq, Piece::Cleaned(cleaned))).is_err() {
                            break;
                        }
                    }
                });
            // Workers already started end when the work channel closes on return.
            if let Err(source) = worker {
                return Err(RunError::Threads { threads, source });
            }
        }
        drop(work_rx);
        let feeder = std::thread::Builder::new()
            .name("ppl-reader".into())
            .spawn_scoped(scope, move || {
                let feed = Feed {
                    work: work_tx,
                    done: done_tx,
                    tokens: token_rx,
                    lines,
                    seq: AtomicU64::new(0),
                    progress: observer,
                };
                feed.all(inputs, one)
            })
            .map_err(|source| RunError::Threads { threads, source })?;
        let (mut summary, write_error) = replay_in_order(done_rx, token_tx, lines, out, observer);
        // The reading may wait for room the writer no longer makes.
        lines.close();
        match feeder.join() {
            Ok(counts) => summary.add(&counts),
            Err(panic) => std::panic::resume_unwind(panic),
        }
        finish(summary, write_error, out)
    })
}

/// The reading end: hands the work out in order, each piece once a token says that one more
/// may be in flight.
struct Feed<'a> {
    work: Sender<(u64, Work)>,
    done: Sender<(u64, Piece)>,
    tokens: Receiver<()>,
    lines: &'a LineBudget,
    seq: AtomicU64,
    progress: &'a dyn Observer,
}

impl Feed<'_> {
    /// Every input, whole or cut into its documents (all are, on this thread, when one is a
    /// stream of pages); the counts of the reading itself.
    fn all(&self, inputs: &[Input], options: &Options) -> Summary {
        let pages = inputs.iter().any(|input| cut_into_pages(input, options));
        match options.read.input_format {
            InputFormat::Html | InputFormat::Text if !pages => {
                for index in 0..inputs.len() {
                    if self.hand(Work::Input(index)).is_err() {
                        break;
                    }
                }
                Summary::default()
            }
            _ => {
                let mut hand = |handed| {
                    self.hand(Work::Document(Box::new(handed)))
                        .map_err(|()| OutputClosed)
                };
                hand_inputs(inputs, options, self, &mut hand)
            }
        }
    }

    /// The next number in the output's order, once a token allows it.
    fn next(&self) -> Result<u64, ()> {
        self.tokens.recv().map_err(drop)?;
        Ok(self.seq.fetch_add(1, Ordering::Relaxed))
    }

    fn hand(&self, work: Work) -> Result<(), ()> {
        let line = match &work {
            Work::Document(handed) => line_bytes(&handed.meta),
            Work::Input(_) => 0,
        };
        self.lines.take(line)?;
        let seq = self.next()?;
        self.work.send((seq, work)).map_err(drop)
    }
}

/// The bytes a document in flight holds in memory for its JSONL line.
fn line_bytes(meta: &DocumentMeta) -> u64 {
    match meta {
        DocumentMeta::JsonlLine(record) => record.original().len() as u64,
        _ => 0,
    }
}

/// The bytes of JSONL lines in flight (handed out and not yet written), at most `limit` in
/// all, but for one line alone, however long.
struct LineBudget {
    /// Bytes in flight, and whether the writer is gone (nothing will be given back).
    held: Mutex<(u64, bool)>,
    given_back: Condvar,
    limit: u64,
}

impl LineBudget {
    fn new(limit: u64) -> LineBudget {
        LineBudget {
            held: Mutex::new((0, false)),
            given_back: Condvar::new(),
            limit,
        }
    }

    /// Waits until `bytes` more fit (or nothing is in flight); `Err` once the writer is gone.
    fn take(&self, bytes: u64) -> Result<(), ()> {
        if bytes == 0 {
            return Ok(());
        }
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        while !held.1 && held.0 > 0 && held.0 + bytes > self.limit {
            held = self
                .given_back
                .wait(held)
                .unwrap_or_else(|e| e.into_inner());
        }
        if held.1 {
            return Err(());
        }
        held.0 += bytes;
        Ok(())
    }

    /// A line written: its bytes are free.
    fn give_back(&self, bytes: u64) {
        if bytes > 0 {
            let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
            held.0 -= bytes.min(held.0);
            self.given_back.notify_all();
        }
    }

    /// The writer is gone: whoever waits for room stops waiting.
    fn close(&self) {
        self.held.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        self.given_back.notify_all();
    }
}

impl Observer for Feed<'_> {
    /// A problem of the reading goes to the writer in its place among the documents.
    fn problem(&self, problem: &Problem) {
        if let Ok(seq) = self.next() {
            let _ = self.done.send((seq, Piece::Problem(problem.clone())));
        }
    }

    fn input_read(&self, index: usize) {
        self.progress.input_read(index);
    }

    fn document_read(&self, index: usize) {
        self.progress.document_read(index);
    }
}

/// Replays the pieces in order as they come, giving a token back for each; a write error
/// stops it (the channels it holds close, which stops the reading and the workers).
fn replay_in_order(
    done: Receiver<(u64, Piece)>,
    tokens: Sender<()>,
    lines: &LineBudget,
    out: &mut dyn Sink,
    observer: &dyn Observer,
) -> (Summary, Option<io::Error>) {
    let mut summary = Summary::default();
    let (mut next, mut documents) = (0, 0);
    let mut waiting = BTreeMap::new();
    for (seq, piece) in done {
        waiting.insert(seq, piece);
        while let Some(piece) = waiting.remove(&next) {
            let replayed = match piece {
                Piece::Problem(problem) => {
                    observer.problem(&problem);
                    Ok(())
                }
                Piece::Cleaned(cleaned) => {
                    lines.give_back(cleaned.line);
                    cleaned.replay(out, observer, &mut documents, &mut summary)
                }
            };
            if let Err(e) = replayed {
                return (summary, Some(e));
            }
            next += 1;
            // The reading may have handed out everything and gone: nothing to give back then.
            let _ = tokens.try_send(());
        }
    }
    (summary, None)
}

/// What cleaning one input or document gave the sink and the observer, to be replayed in
/// order.
struct Recorded {
    /// The bytes its JSONL line held in flight ([`LineBudget`]).
    line: u64,
    documents: Vec<RecordedDocument>,
    problems: Vec<Problem>,
    /// The input's counts, or why its output could not be held (a temporary file failed).
    summary: Result<Summary, RunError>,
}

/// One document as the sink received it.
struct RecordedDocument {
    meta: DocumentMeta,
    text: Spool,
    /// Given when the document ended.
    stats: Option<DocumentStats>,
}

impl Recorded {
    /// Cleans `input` on this thread, as `-j1` would, recording what it gives.
    fn of_input(
        input: &Input,
        model: &LanguageModel,
        options: &Options,
        observer: &dyn Observer,
    ) -> Recorded {
        let mut sink = Recorder(Vec::new());
        let problems = Problems::new(observer);
        let summary = run(
            std::slice::from_ref(input),
            model,
            options,
            &mut sink,
            &problems,
        );
        Recorded {
            line: 0,
            documents: sink.0,
            problems: problems.into_inner(),
            summary,
        }
    }

    /// Cleans a document read whole on this thread, as `-j1` would where it was read,
    /// recording what it gives.
    fn of_document(
        handed: Handed,
        model: &LanguageModel,
        options: &Options,
        observer: &dyn Observer,
    ) -> Recorded {
        let line = line_bytes(&handed.meta);
        let mut sink = Recorder(Vec::new());
        let problems = Problems::new(observer);
        let mut write_error = None;
        let mut writer = Writer::new(options, &mut sink);
        let mut counts = handed_document(handed, options, &problems, &mut |job| {
            writer.emit(process(job, model, options)).map_err(|e| {
                write_error = Some(e);
                OutputClosed
            })
        });
        (counts.sentences, counts.kept) = writer.totals;
        drop(writer);
        Recorded {
            line,
            documents: sink.0,
            problems: problems.into_inner(),
            summary: write_error.map_or(Ok(counts), |e| Err(RunError::Output(e))),
        }
    }

    /// Tells its problems and writes its documents, numbered on from `documents`.
    fn replay(
        self,
        out: &mut dyn Sink,
        observer: &dyn Observer,
        documents: &mut usize,
        summary: &mut Summary,
    ) -> io::Result<()> {
        for problem in &self.problems {
            observer.problem(problem);
        }
        match self.summary {
            Ok(counts) => summary.add(&counts),
            Err(RunError::Output(e)) => return Err(e),
            Err(e) => return Err(io::Error::other(e)),
        }
        for mut document in self.documents {
            let index = *documents;
            *documents += 1;
            match &document.stats {
                Some(stats) => out.held(index, &document.meta, &mut document.text, stats)?,
                // A document whose writing failed part-way: what was written, unended.
                None => {
                    out.begin(index, &document.meta)?;
                    document
                        .text
                        .each_written_chunk(&mut |chunk| out.write(chunk))?;
                }
            }
        }
        Ok(())
    }
}

/// A sink that keeps what it is given, for [`Recorded::replay`].
struct Recorder(Vec<RecordedDocument>);

impl Sink for Recorder {
    fn begin(&mut self, _index: usize, meta: &DocumentMeta) -> io::Result<()> {
        self.0.push(RecordedDocument {
            meta: meta.clone(),
            text: Spool::new(HELD_BYTES),
            stats: None,
        });
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self.0.last_mut() {
            Some(document) => document.text.write(bytes),
            None => Ok(()),
        }
    }

    fn end(&mut self, stats: &DocumentStats) -> io::Result<()> {
        if let Some(document) = self.0.last_mut() {
            document.stats = Some(stats.clone());
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An observer that keeps the problems, to be told in order, and passes progress on at once.
struct Problems<'a> {
    held: Mutex<Vec<Problem>>,
    progress: &'a dyn Observer,
}

impl<'a> Problems<'a> {
    fn new(progress: &'a dyn Observer) -> Problems<'a> {
        Problems {
            held: Mutex::new(Vec::new()),
            progress,
        }
    }

    fn into_inner(self) -> Vec<Problem> {
        self.held.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

impl Observer for Problems<'_> {
    fn problem(&self, problem: &Problem) {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(problem.clone());
    }

    fn input_read(&self, index: usize) {
        self.progress.input_read(index);
    }

    fn document_read(&self, index: usize) {
        self.progress.document_read(index);
    }
}
