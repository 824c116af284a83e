//! Documents in parallel: when a run holds several whole inputs (files of pages), each input
//! goes through the whole per-document pipeline (read, decoded, parsed, cut into blocks, scored,
//! decided and rendered, by the same one-thread path as `-j1`) on one thread of a pool, into a
//! record of what it gives the sink and the observer; the calling thread replays the records
//! in input order. So the output is byte-identical to `-j1`'s and problems are told in the same
//! order, while no stage is left to one thread.
//!
//! Memory: at most [`IN_FLIGHT_PER_THREAD`] inputs a thread are in flight (being cleaned, or
//! cleaned and waiting for their turn), each holding at most [`HELD_BYTES`] of output in memory
//! (the rest in a temporary file), besides what cleaning one document holds on each thread
//! (`--max-document-bytes`).

use std::collections::BTreeMap;
use std::io;
use std::sync::Mutex;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::write::finish;
use super::{run, InputFormat, Observer, Options, Problem, RunError, Summary, MAX_THREADS};
use crate::io::sink::{DocumentMeta, DocumentStats, Sink};
use crate::io::spool::Spool;
use crate::io::Input;
use crate::lm::model::LanguageModel;

/// Output of an input in flight held in memory; the rest goes to a temporary file.
const HELD_BYTES: usize = 256 << 10;

/// Inputs in flight for each thread. A long page holds the writer back while the threads go
/// on with the next inputs: with 2 a thread, `-j2` over the CleanEval pages took 10 % more wall
/// time than the pipelined path; with 8, 5 % less.
const IN_FLIGHT_PER_THREAD: usize = 8;

/// Whether `inputs` are cleaned an input per thread: several whole inputs of pages, none read
/// from a stream (a stream is read once, as it comes, by the pipelined path).
pub(super) fn whole_inputs(inputs: &[Input], options: &Options) -> bool {
    options.threads > 1
        && inputs.len() > 1
        && matches!(
            options.read.input_format,
            InputFormat::Html | InputFormat::Text
        )
        && inputs.iter().all(|input| {
            matches!(
                input,
                Input::File(_) | Input::Found(_) | Input::Memory { .. }
            )
        })
}

/// Cleans every input on `options.threads` threads, an input per thread at a time, and writes
/// them to `out` in order.
pub(super) fn run_whole_inputs(
    inputs: &[Input],
    model: &LanguageModel,
    options: &Options,
    out: &mut dyn Sink,
    observer: &dyn Observer,
) -> Result<Summary, RunError> {
    let threads = options.threads.min(MAX_THREADS).min(inputs.len());
    let one = Options {
        threads: 1,
        ..options.clone()
    };
    let in_flight = IN_FLIGHT_PER_THREAD * threads;
    let (index_tx, index_rx) = bounded::<usize>(in_flight);
    let (done_tx, done_rx) = bounded::<(usize, Recorded)>(in_flight);
    let (token_tx, token_rx) = bounded::<()>(in_flight);
    for _ in 0..in_flight {
        token_tx
            .send(())
            .expect("the token channel has room for every token");
    }
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (index_rx, done_tx) = (index_rx.clone(), done_tx.clone());
            let one = &one;
            let worker = std::thread::Builder::new()
                .name("ppl-worker".into())
                .spawn_scoped(scope, move || {
                    for index in index_rx {
                        let recorded = Recorded::of(&inputs[index], model, one, observer);
                        if done_tx.send((index, recorded)).is_err() {
                            break;
                        }
                    }
                });
            // Workers already started end when the index channel closes on return.
            if let Err(source) = worker {
                return Err(RunError::Threads { threads, source });
            }
        }
        drop((index_rx, done_tx));
        // Hands the inputs out, each once a token says that one more may be in flight.
        let feeder = std::thread::Builder::new()
            .name("ppl-feeder".into())
            .spawn_scoped(scope, move || {
                for index in 0..inputs.len() {
                    if token_rx.recv().is_err() || index_tx.send(index).is_err() {
                        break;
                    }
                }
            });
        if let Err(source) = feeder {
            return Err(RunError::Threads { threads, source });
        }
        let (summary, write_error) = replay_in_order(done_rx, token_tx, out, observer);
        finish(summary, write_error, out)
    })
}

/// Replays the inputs' records in input order as they come, giving a token back for each; a
/// write error stops it (the channels it holds close, which stops the feeder and the workers).
fn replay_in_order(
    done: Receiver<(usize, Recorded)>,
    tokens: Sender<()>,
    out: &mut dyn Sink,
    observer: &dyn Observer,
) -> (Summary, Option<io::Error>) {
    let mut summary = Summary::default();
    let (mut next, mut documents) = (0, 0);
    let mut waiting = BTreeMap::new();
    for (index, recorded) in done {
        waiting.insert(index, recorded);
        while let Some(recorded) = waiting.remove(&next) {
            if let Err(e) = recorded.replay(out, observer, &mut documents, &mut summary) {
                return (summary, Some(e));
            }
            next += 1;
            // The feeder may have handed out every input and gone: nothing to give back then.
            let _ = tokens.try_send(());
        }
    }
    (summary, None)
}

/// What cleaning one input gave the sink and the observer, to be replayed in order.
struct Recorded {
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
    fn of(
        input: &Input,
        model: &LanguageModel,
        options: &Options,
        observer: &dyn Observer,
    ) -> Recorded {
        let mut sink = Recorder(Vec::new());
        let problems = Problems {
            held: Mutex::new(Vec::new()),
            progress: observer,
        };
        let summary = run(
            std::slice::from_ref(input),
            model,
            options,
            &mut sink,
            &problems,
        );
        Recorded {
            documents: sink.0,
            problems: problems
                .held
                .into_inner()
                .unwrap_or_else(|e| e.into_inner()),
            summary,
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
            out.begin(*documents, &document.meta)?;
            *documents += 1;
            document
                .text
                .each_written_chunk(&mut |chunk| out.write(chunk))?;
            if let Some(stats) = &document.stats {
                out.end(stats)?;
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
