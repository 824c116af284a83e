# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ppl_filter_global_optspecs
    string join \n m/model= q/quiet files-from= u/fetch= i/fetch-list= fetch-delay= fetch-timeout= no-robots max-filesize= g/glob= hidden L/follow method= t/threshold= max-link-density= bias= comments drop-tables kind= classifier= favor-precision favor-recall mark scores f/format= input= all-responses z/compress url= field= output-field= add-scores skip-bad-lines encoding= title j/threads= max-block-bytes= max-record-bytes= max-document-bytes= max-parser-memory= target-language= one-document 0/null stats o/output-dir= generate= h/help V/version
end

function __fish_ppl_filter_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ppl_filter_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ppl_filter_using_subcommand
    set -l cmd (__fish_ppl_filter_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s m -l model -d 'Language model file to use instead of the embedded English model (learn with the one you will clean with)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l files-from -d 'Also clean the files listed in FILE, one path per line (`-`: standard input)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s u -l fetch -d 'Fetch the page at URL and clean it (repeatable; http and https, any address). Fetched one at a time, politely: see --fetch-delay, --no-robots, --max-filesize' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s i -l fetch-list -d 'Fetch and clean the URLs listed in FILE, one a line (`-`: standard input; empty lines and lines starting with `#` are skipped), read as they are fetched; a URL listed twice is fetched once' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l fetch-delay -d 'Seconds between two requests to one host (longer when its robots.txt asks)' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l fetch-timeout -d 'Seconds a URL\'s page may take to fetch (connecting, redirects, reading and decoding); a page whose end has not come by then is cleaned as far as it came, with a warning' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l max-filesize -d 'Skip files larger than BYTES (by their size; compressed size for .gz), and cut a fetched page at BYTES once decoded, with a warning [default: no limit for files, 20000000 for a fetched page]' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s g -l glob -d 'In directories, clean only files matching GLOB (gitignore syntax; `!GLOB` excludes; repeatable). Files named on the command line are always cleaned' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l method -d 'How blocks and sentences are kept or dropped [default: combined]' -r -f -a "perplexity\t'PyPlexity\'s rule: drop sentences above --threshold, and blocks above --max-link-density'
combined\t'A learned classifier over perplexity under the general and a boilerplate model, the block\'s shape and markup, and its neighbours (`ppl-filter learn` makes one)'"
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s t -l threshold -d 'Drop sentences whose perplexity is above PPL [default: 3000000 with --method perplexity; none with the combined method, whose classifier weighs perplexity itself and must not empty pages in other languages]' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l max-link-density -d 'Perplexity method: drop blocks whose share of link text is above this (1 keeps all) [default: 0.4]. The combined method weighs link density itself and refuses this flag' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l bias -d 'Combined method: add BIAS log-odds to every block\'s score: above 0 keeps more, below keeps less, from -20 to 20 (--favor-recall is 1, --favor-precision -1) [default: 0]' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l kind -d 'Combined method: decide every page as this kind instead of the kind it declares (schema.org types, Open Graph type, URL). The kind sets what the main content is: every post of a forum (comments kept), every section and card of documentation, collections, listings and service pages (leaning to recall); articles, products and `other` are decided as the flags say' -r -f -a "article\t''
forum\t''
product\t''
collection\t''
listing\t''
documentation\t''
service\t''
other\t''"
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l classifier -d 'Classifier file (from `ppl-filter learn`) instead of the embedded one (combined method)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s f -l format -d 'Output layout' -r -f -a "text\t'The kept text, one block per line (`plain` is another name for it)'
markdown\t'Markdown: headings by level, lists, GitHub tables, fenced code, inline code, $formulas$'
html\t'The main content as clean, minimal HTML (headings, paragraphs, lists, tables, pre/code, blockquotes, formulas), to render or parse again'
xml\t'The main content as XML in trafilatura\'s element names (doc, main, head, p, list, item, table, row, cell, code, quote, hi), TeX formulas as TEI\'s formula'
cleaneval\t'One block per line, prefixed with <p>, <h> or <l> as in CleanEval gold'
mark\t'Every sentence, the dropped ones wrapped as <ppl score="…">…</ppl> (`--mark`)'
scores\t'`perplexity<TAB>sentence` for every sentence (`--scores`)'
json\t'One JSON object per document and line: source, url, title, lang, kind of page, text, counts (for every input kind; `jsonl` is another name for it)'"
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l input -d 'What the inputs hold [default: told from each input\'s first bytes (WARC, JSON lines, else pages: HTML, or plain text when their first 4 KiB hold no tag), or from its name (*.warc[.gz], *.jsonl[.gz]) when they do not tell]' -r -f -a "html\t'HTML pages'
text\t'Plain text: one block per blank-line-separated paragraph'
warc\t'WARC: every HTML response record is cleaned'
jsonl\t'JSON lines: the --field of every line is cleaned and written back'"
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l url -d '--format json: the URL of the page(s) read, ahead of a page\'s own canonical link (a WARC response\'s target URI still wins)' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l field -d 'JSONL: the field to clean (HTML; plain text when the field is named `text`)' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l output-field -d 'JSONL: write the cleaned text to this field (added, or replaced if the line has it) and keep the --field as it was [default: the --field itself]' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l encoding -d 'Decode every input with this encoding (a WHATWG label such as utf-8, windows-1252, shift_jis) instead of detecting it (<meta charset> or a WARC response\'s HTTP charset, then a guess); a byte-order mark still wins' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s j -l threads -d 'Scoring threads, 1 to 256 (default: the number of cores, at most 256)' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l max-block-bytes -d 'The longest block, at least 256: a longer one is cut into several (after a sentence near the limit, else between words); no text is dropped' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l max-record-bytes -d 'WARC and JSONL: the largest record or line read. A larger WARC record is skipped, a larger JSONL line passed through unchanged (dropped with --skip-bad-lines): each is reported (exit status 1)' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l max-document-bytes -d 'The combined method decides a document whole when it holds at most this many bytes (its text plus 512 a block); a longer one is decided in pieces of this size' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l max-parser-memory -d 'Memory the HTML parser may use for one tag; a larger tag ends its document' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l target-language -d 'Keep only the documents whose cleaned text is in LANG: an ISO 639-1 or 639-3 code or an English name (de, deu, German), as whatlang guesses it from the text\'s first 256 KiB (reliably, or with a confidence of 0.5 or more). The others, and those whose language is not told with that confidence (too short, mixed), are left out whole, counted by --stats' -r
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s o -l output-dir -d 'Write each input\'s text to its own file under DIR, mirroring the input tree (`a/b.html.gz` → `DIR/a/b.txt`; `.md` for Markdown, `.jsonl` for JSON), instead of to standard output; DIR is created if missing. Inputs whose outputs would share a name (`x.html` and `x.htm`, one file given twice) are refused before anything is written (exit 2)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l generate -d 'Write the man page, a shell completion script or the embedded language model\'s file to standard output and exit' -r -f -a "man\t'The roff man page'
complete-bash\t'bash completions'
complete-zsh\t'zsh completions'
complete-fish\t'fish completions'
model\t'The embedded language model\'s file (committed packed as `model/en.pack`)'"
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s q -l quiet -d 'Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l no-robots -d 'Fetch what a site\'s robots.txt disallows too (it is obeyed by default, for `User-agent: ppl-filter`, else `*`)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l hidden -d 'In directories, also clean hidden files and walk hidden directories'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s L -l follow -d 'In directories, follow symbolic links to directories'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l comments -d 'Combined method: keep readers\' comments (dropped by default, as the Dragnet gold does)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l drop-tables -d 'Combined method: drop the tables of data (and their captions), for corpora of prose alone; kept by default, whole, with their header'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l favor-precision -d 'Combined method: keep less, only what is clearly main content'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l favor-recall -d 'Combined method: keep more, anything that may be main content'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l mark -d 'Keep every sentence; wrap dropped ones as <ppl score="…">…</ppl> (as --format mark, and with the other formats too)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l scores -d 'Print `perplexity<TAB>sentence` for every sentence instead of the text (as --format scores)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l all-responses -d 'WARC: also clean responses whose status is not 2xx and payloads that are not HTML (as plain text); by default they are skipped and counted'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s z -l compress -d 'WARC output on standard output: gzip it, one gzip member per record (as `.warc.gz` files are written under --output-dir)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l add-scores -d 'JSONL: add sentences_kept, sentences_dropped and mean_perplexity (of the kept sentences)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l skip-bad-lines -d 'JSONL: drop lines that are not valid JSON objects with the field, instead of passing them through unchanged (either way each is reported with its line number)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l title -d 'Also write the page <title> as a heading block'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l one-document -d 'Read a stream of pages (standard input, a pipe) as one document. By default it is cut into its pages, each cleaned as a file holding it would be: a new page begins at a <!DOCTYPE once the page has opened an element, at <html> or <?xml once it has closed </html>, and after a NUL or form-feed byte outside the page\'s <html> (markup inside scripts, comments and attribute values does not count). With --output-dir, which writes a file per input, a stream is always one document'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s 0 -l null -d 'Separate documents with a NUL byte instead of an empty line'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -l stats -d 'At the end, one line of counts on stderr: documents, bytes read, sentences kept, what was skipped and why, seconds'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -s V -l version -d 'Print version'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -a "train" -d 'Train a word n-gram language model from plain text (or .gz) files'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -a "perplexity" -d 'Print the perplexity of each SENTENCE (or of each line of standard input)'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -a "learn" -d 'Learn the combined method\'s classifier from pages and their hand-cleaned text'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -a "serve" -d 'Serve the web demo: a page to try the cleaning on, and a JSON API'
complete -c ppl-filter -n "__fish_ppl_filter_needs_command" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -s o -l output -d 'Where to write the model' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -l order -d 'n-gram order: 2 (bigram) or 3 (trigram)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -l min-count -d 'Drop n-grams (of order 2 and up) seen fewer times than this' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -l min-unigram-count -d 'Leave words seen fewer times than this out of the vocabulary (scored as unknown)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -l max-ngrams-in-memory -d 'Most distinct n-grams per order held while counting; rarer ones are pruned beyond it, which bounds memory on corpora larger than RAM' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -l credit -d 'Credit or licence line of the training text, stored in the model header' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -s m -l model -d 'Language model file to use instead of the embedded English model (learn with the one you will clean with)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -s q -l quiet -d 'Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand train" -s h -l help -d 'Print help'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand perplexity" -s m -l model -d 'Language model file to use instead of the embedded English model (learn with the one you will clean with)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand perplexity" -s q -l quiet -d 'Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand perplexity" -s h -l help -d 'Print help'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l set -d 'Another training set: its pages and their cleaned text (repeatable)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l sets -d 'A file listing training sets, one `INPUT_DIR GOLD_DIR [WEIGHT]` per line (white-space separated, `#` starts a comment, relative paths are from the file\'s directory)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l set-weight -d 'Weight of a set given on the command line: the first --set-weight is the positional INPUT_DIR GOLD_DIR\'s (or the first --set\'s when there is none), the next the next --set\'s, and so on; unweighted sets weigh 1. Multiplies the set\'s example weights after --set-balance' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l set-balance -d 'How the training sets weigh against each other before their weights apply' -r -f -a "equal\t'Every set\'s examples add up to the same total weight, whatever its size (then each is multiplied by its set weight)'
natural\t'Examples keep their own weight (words): a set counts as much as it has words'"
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l gold-format -d 'How the gold files are written [default: told per file: CleanEval when a file starts with a URL line or has <p>/<h>/<l> markers, else plain]' -r -f -a "cleaneval\t'CleanEval: a `URL: …` first line, then blocks that start with `<p>`, `<h>` or `<l>`. Words are taken as `ppl-eval` takes them (lines starting with `URL` dropped, markers split out and ignored)'
plain\t'Plain text, one block per line, no markers and no URL line: every line is text (even one that starts with "URL"). Words are the white-space-separated tokens'"
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -s o -l output -d 'Where to write the classifier (load it with --classifier)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l learner -d 'The classifier fitted' -r -f -a "logistic\t'L2-regularised logistic regression'
trees\t'Gradient-boosted shallow trees'"
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l trees -d 'Boosted trees: how many' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l depth -d 'Boosted trees: their depth (1 to 10)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -s j -l threads -d 'Boosted trees: threads searching their splits, 1 to 256 (default: the number of cores, at most 256). The classifier is the same for any number' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l learning-rate -d 'Boosted trees: the learning rate (shrinkage)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l l2 -d 'Logistic regression: the L2 penalty' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l decision-threshold -d 'Log-odds a block needs above 0 to be kept (positive: stricter)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l smoothing -d 'Weight of the smoothing between neighbouring blocks (0: none)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l min-count -d 'Boilerplate model: drop bigrams seen fewer times than this (a smaller classifier file)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -l min-unigram-count -d 'Boilerplate model: leave words seen fewer times than this out of its vocabulary' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -s m -l model -d 'Language model file to use instead of the embedded English model (learn with the one you will clean with)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -s q -l quiet -d 'Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand learn" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l bind -d 'The host name or address to listen on, with or without a port (`localhost:9000`, `0.0.0.0`, `[::1]:8080`); port 0 is any free port' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l port -d 'The port to listen on (instead of the one --bind names) [default: 8080]' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l threads -d 'Requests cleaned at once, each on a thread of its own, 1 to 256 (default: the number of cores)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-body-bytes -d 'A larger request body is refused (413)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-body-memory -d 'The request bodies being read hold at most this many bytes in all, and an eighth of it for one client (never less than --max-body-bytes); a body that would hold more is answered 503' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-fetch-bytes -d 'A larger page fetched from a URL is refused' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l fetch-timeout -d 'Seconds a URL\'s page may take to fetch (connecting, redirects and reading), 1 to 3600' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l body-timeout -d 'Seconds a request\'s body may take to come, 1 to 3600; one not complete by then is answered 408 and its connection closed. A request is taken in (--max-pending) only once its body has come' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-pending -d 'Requests taken in at once, their bodies come (waiting or cleaned); more are answered 503 at once (default: 4 for each of --threads)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-connections -d 'Connections open at once, idle ones included; one more is closed at once' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-connections-per-client -d 'Connections open at once from one client (an IPv4 address or an IPv6 /64); one more is closed at once' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l idle-timeout -d 'Seconds, 1 to 3600, within which a connection\'s next request head must have come, after it opened or after its last answer; else it is closed (idle, or sending slowly)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-blocks -d 'Blocks listed at most in an answer with "blocks": true (the answer says when some were left out)' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -l max-answer-bytes -d 'A longer answer is never sent: its blocks are cut to fit, or it is refused (413), the page\'s cleaning stopped as soon as its text passes this' -r
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -s m -l model -d 'Language model file to use instead of the embedded English model (learn with the one you will clean with)' -r -F
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -s q -l quiet -d 'Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand help; and not __fish_seen_subcommand_from train perplexity learn serve help" -f -a "train" -d 'Train a word n-gram language model from plain text (or .gz) files'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand help; and not __fish_seen_subcommand_from train perplexity learn serve help" -f -a "perplexity" -d 'Print the perplexity of each SENTENCE (or of each line of standard input)'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand help; and not __fish_seen_subcommand_from train perplexity learn serve help" -f -a "learn" -d 'Learn the combined method\'s classifier from pages and their hand-cleaned text'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand help; and not __fish_seen_subcommand_from train perplexity learn serve help" -f -a "serve" -d 'Serve the web demo: a page to try the cleaning on, and a JSON API'
complete -c ppl-filter -n "__fish_ppl_filter_using_subcommand help; and not __fish_seen_subcommand_from train perplexity learn serve help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
