//! `ppl-filter serve`: the web demo, served until Ctrl-C.

use std::process::ExitCode;
use std::time::Duration;

use ppl_filter::cli::filter::{GlobalArgs, ServeArgs};
use ppl_filter::serve::fetch::FetchLimits;
use ppl_filter::serve::{ServeSettings, Server, PENDING_PER_THREAD};

/// Listens, says where on stderr, and answers requests until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs, global: &GlobalArgs) -> anyhow::Result<ExitCode> {
    let model = ppl_filter::lm::load_model(global.model.as_deref())?;
    let defaults = ServeSettings::default();
    let threads = args.threads.unwrap_or(defaults.threads);
    let settings = ServeSettings {
        bind: args.address()?,
        threads,
        max_body_bytes: args.max_body_bytes,
        max_body_memory: args.max_body_memory,
        body_timeout: Duration::from_secs(args.body_timeout),
        fetch: FetchLimits {
            max_bytes: args.max_fetch_bytes,
            timeout: Duration::from_secs(args.fetch_timeout),
        },
        max_pending: args
            .max_pending
            .unwrap_or(threads.saturating_mul(PENDING_PER_THREAD)),
        max_connections: args.max_connections,
        max_connections_per_client: args.max_connections_per_client,
        idle_timeout: Duration::from_secs(args.idle_timeout),
        max_blocks: args.max_blocks,
        max_answer_bytes: args.max_answer_bytes,
    };
    let server = Server::bind(&settings)?;
    eprintln!("ppl-filter: serving on http://{}/", server.local_addr());
    server.run(model)?;
    Ok(ExitCode::SUCCESS)
}
