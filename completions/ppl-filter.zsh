#compdef ppl-filter

autoload -U is-at-least

_ppl-filter() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'-m+[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'--model=[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'--files-from=[Also clean the files listed in FILE, one path per line (\`-\`\: standard input)]:FILE:_files' \
'*-u+[Fetch the page at URL and clean it (repeatable; http and https, any address). Fetched one at a time, politely\: see --fetch-delay, --no-robots, --max-filesize]:URL:_default' \
'*--fetch=[Fetch the page at URL and clean it (repeatable; http and https, any address). Fetched one at a time, politely\: see --fetch-delay, --no-robots, --max-filesize]:URL:_default' \
'-i+[Fetch and clean the URLs listed in FILE, one a line (\`-\`\: standard input; empty lines and lines starting with \`#\` are skipped), read as they are fetched; a URL listed twice is fetched once]:FILE:_files' \
'--fetch-list=[Fetch and clean the URLs listed in FILE, one a line (\`-\`\: standard input; empty lines and lines starting with \`#\` are skipped), read as they are fetched; a URL listed twice is fetched once]:FILE:_files' \
'--fetch-delay=[Seconds between two requests to one host (longer when its robots.txt asks)]:SECONDS:_default' \
'--fetch-timeout=[Seconds a URL'\''s page may take to fetch (connecting, redirects, reading and decoding); a page whose end has not come by then is cleaned as far as it came, with a warning]:SECONDS:_default' \
'--max-filesize=[Skip files larger than BYTES (by their size; compressed size for .gz), and cut a fetched page at BYTES once decoded, with a warning \[default\: no limit for files, 20000000 for a fetched page\]]:BYTES:_default' \
'*-g+[In directories, clean only files matching GLOB (gitignore syntax; \`!GLOB\` excludes; repeatable). Files named on the command line are always cleaned]:GLOB:_default' \
'*--glob=[In directories, clean only files matching GLOB (gitignore syntax; \`!GLOB\` excludes; repeatable). Files named on the command line are always cleaned]:GLOB:_default' \
'--method=[How blocks and sentences are kept or dropped \[default\: combined\]]:METHOD:((perplexity\:"PyPlexity'\''s rule\: drop sentences above --threshold, and blocks above --max-link-density"
combined\:"A learned classifier over perplexity under the general and a boilerplate model, the block'\''s shape and markup, and its neighbours (\`ppl-filter learn\` makes one)"))' \
'-t+[Drop sentences whose perplexity is above PPL \[default\: 3000000 with --method perplexity; none with the combined method, whose classifier weighs perplexity itself and must not empty pages in other languages\]]:PPL:_default' \
'--threshold=[Drop sentences whose perplexity is above PPL \[default\: 3000000 with --method perplexity; none with the combined method, whose classifier weighs perplexity itself and must not empty pages in other languages\]]:PPL:_default' \
'--max-link-density=[Perplexity method\: drop blocks whose share of link text is above this (1 keeps all) \[default\: 0.4\]. The combined method weighs link density itself and refuses this flag]:SHARE:_default' \
'--bias=[Combined method\: add BIAS log-odds to every block'\''s score\: above 0 keeps more, below keeps less, from -20 to 20 (--favor-recall is 1, --favor-precision -1) \[default\: 0\]]:BIAS:_default' \
'--kind=[Combined method\: decide every page as this kind instead of the kind it declares (schema.org types, Open Graph type, URL). The kind sets what the main content is\: every post of a forum (comments kept), every section and card of documentation, collections, listings and service pages (leaning to recall); articles, products and \`other\` are decided as the flags say]:KIND:(article forum product collection listing documentation service other)' \
'--classifier=[Classifier file (from \`ppl-filter learn\`) instead of the embedded one (combined method)]:PATH:_files' \
'-f+[Output layout]:FORMAT:((text\:"The kept text, one block per line (\`plain\` is another name for it)"
markdown\:"Markdown\: headings by level, lists, GitHub tables, fenced code, inline code, \$formulas\$"
html\:"The main content as clean, minimal HTML (headings, paragraphs, lists, tables, pre/code, blockquotes, formulas), to render or parse again"
xml\:"The main content as XML in trafilatura'\''s element names (doc, main, head, p, list, item, table, row, cell, code, quote, hi), TeX formulas as TEI'\''s formula"
cleaneval\:"One block per line, prefixed with <p>, <h> or <l> as in CleanEval gold"
mark\:"Every sentence, the dropped ones wrapped as <ppl score="…">…</ppl> (\`--mark\`)"
scores\:"\`perplexity<TAB>sentence\` for every sentence (\`--scores\`)"
json\:"One JSON object per document and line\: source, url, title, lang, kind of page, text, counts (for every input kind; \`jsonl\` is another name for it)"))' \
'--format=[Output layout]:FORMAT:((text\:"The kept text, one block per line (\`plain\` is another name for it)"
markdown\:"Markdown\: headings by level, lists, GitHub tables, fenced code, inline code, \$formulas\$"
html\:"The main content as clean, minimal HTML (headings, paragraphs, lists, tables, pre/code, blockquotes, formulas), to render or parse again"
xml\:"The main content as XML in trafilatura'\''s element names (doc, main, head, p, list, item, table, row, cell, code, quote, hi), TeX formulas as TEI'\''s formula"
cleaneval\:"One block per line, prefixed with <p>, <h> or <l> as in CleanEval gold"
mark\:"Every sentence, the dropped ones wrapped as <ppl score="…">…</ppl> (\`--mark\`)"
scores\:"\`perplexity<TAB>sentence\` for every sentence (\`--scores\`)"
json\:"One JSON object per document and line\: source, url, title, lang, kind of page, text, counts (for every input kind; \`jsonl\` is another name for it)"))' \
'--input=[What the inputs hold \[default\: told from each input'\''s first bytes (WARC, JSON lines, else pages\: HTML, or plain text when their first 4 KiB hold no tag), or from its name (*.warc\[.gz\], *.jsonl\[.gz\]) when they do not tell\]]:INPUT:((html\:"HTML pages"
text\:"Plain text\: one block per blank-line-separated paragraph"
warc\:"WARC\: every HTML response record is cleaned"
jsonl\:"JSON lines\: the --field of every line is cleaned and written back"))' \
'--url=[--format json\: the URL of the page(s) read, ahead of a page'\''s own canonical link (a WARC response'\''s target URI still wins)]:URL:_default' \
'--field=[JSONL\: the field to clean (HTML; plain text when the field is named \`text\`)]:NAME:_default' \
'--output-field=[JSONL\: write the cleaned text to this field (added, or replaced if the line has it) and keep the --field as it was \[default\: the --field itself\]]:NAME:_default' \
'--encoding=[Decode every input with this encoding (a WHATWG label such as utf-8, windows-1252, shift_jis) instead of detecting it (<meta charset> or a WARC response'\''s HTTP charset, then a guess); a byte-order mark still wins]:LABEL:_default' \
'-j+[Scoring threads, 1 to 256 (default\: the number of cores, at most 256)]:N:_default' \
'--threads=[Scoring threads, 1 to 256 (default\: the number of cores, at most 256)]:N:_default' \
'--max-block-bytes=[The longest block, at least 256\: a longer one is cut into several (after a sentence near the limit, else between words); no text is dropped]:BYTES:_default' \
'--max-record-bytes=[WARC and JSONL\: the largest record or line read. A larger WARC record is skipped, a larger JSONL line passed through unchanged (dropped with --skip-bad-lines)\: each is reported (exit status 1)]:BYTES:_default' \
'--max-document-bytes=[The combined method decides a document whole when it holds at most this many bytes (its text plus 512 a block); a longer one is decided in pieces of this size]:BYTES:_default' \
'--max-parser-memory=[Memory the HTML parser may use for one tag; a larger tag ends its document]:BYTES:_default' \
'--target-language=[Keep only the documents whose cleaned text is in LANG\: an ISO 639-1 or 639-3 code or an English name (de, deu, German), as whatlang guesses it from the text'\''s first 256 KiB (reliably, or with a confidence of 0.5 or more). The others, and those whose language is not told with that confidence (too short, mixed), are left out whole, counted by --stats]:LANG:_default' \
'-o+[Write each input'\''s text to its own file under DIR, mirroring the input tree (\`a/b.html.gz\` → \`DIR/a/b.txt\`; \`.md\` for Markdown, \`.jsonl\` for JSON), instead of to standard output; DIR is created if missing. Inputs whose outputs would share a name (\`x.html\` and \`x.htm\`, one file given twice) are refused before anything is written (exit 2)]:DIR:_files' \
'--output-dir=[Write each input'\''s text to its own file under DIR, mirroring the input tree (\`a/b.html.gz\` → \`DIR/a/b.txt\`; \`.md\` for Markdown, \`.jsonl\` for JSON), instead of to standard output; DIR is created if missing. Inputs whose outputs would share a name (\`x.html\` and \`x.htm\`, one file given twice) are refused before anything is written (exit 2)]:DIR:_files' \
'--generate=[Write the man page, a shell completion script or the embedded language model'\''s file to standard output and exit]:WHAT:((man\:"The roff man page"
complete-bash\:"bash completions"
complete-zsh\:"zsh completions"
complete-fish\:"fish completions"
model\:"The embedded language model'\''s file (committed packed as \`model/en.pack\`)"))' \
'-q[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'--quiet[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'--no-robots[Fetch what a site'\''s robots.txt disallows too (it is obeyed by default, for \`User-agent\: ppl-filter\`, else \`*\`)]' \
'--hidden[In directories, also clean hidden files and walk hidden directories]' \
'-L[In directories, follow symbolic links to directories]' \
'--follow[In directories, follow symbolic links to directories]' \
'--comments[Combined method\: keep readers'\'' comments (dropped by default, as the Dragnet gold does)]' \
'--drop-tables[Combined method\: drop the tables of data (and their captions), for corpora of prose alone; kept by default, whole, with their header]' \
'(--favor-recall)--favor-precision[Combined method\: keep less, only what is clearly main content]' \
'--favor-recall[Combined method\: keep more, anything that may be main content]' \
'(--scores)--mark[Keep every sentence; wrap dropped ones as <ppl score="…">…</ppl> (as --format mark, and with the other formats too)]' \
'--scores[Print \`perplexity<TAB>sentence\` for every sentence instead of the text (as --format scores)]' \
'--all-responses[WARC\: also clean responses whose status is not 2xx and payloads that are not HTML (as plain text); by default they are skipped and counted]' \
'-z[WARC output on standard output\: gzip it, one gzip member per record (as \`.warc.gz\` files are written under --output-dir)]' \
'--compress[WARC output on standard output\: gzip it, one gzip member per record (as \`.warc.gz\` files are written under --output-dir)]' \
'--add-scores[JSONL\: add sentences_kept, sentences_dropped and mean_perplexity (of the kept sentences)]' \
'--skip-bad-lines[JSONL\: drop lines that are not valid JSON objects with the field, instead of passing them through unchanged (either way each is reported with its line number)]' \
'--title[Also write the page <title> as a heading block]' \
'--one-document[Read a stream of pages (standard input, a pipe) as one document. By default it is cut into its pages, each cleaned as a file holding it would be\: a new page begins at a <!DOCTYPE once the page has opened an element, at <html> or <?xml once it has closed </html>, and after a NUL or form-feed byte outside the page'\''s <html> (markup inside scripts, comments and attribute values does not count). With --output-dir, which writes a file per input, a stream is always one document]' \
'-0[Separate documents with a NUL byte instead of an empty line]' \
'--null[Separate documents with a NUL byte instead of an empty line]' \
'--stats[At the end, one line of counts on stderr\: documents, bytes read, sentences kept, what was skipped and why, seconds]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
'::files -- Input files or directories (walked recursively); `-` or none reads standard input:_files' \
":: :_ppl-filter_commands" \
"*::: :->ppl-filter" \
&& ret=0
    case $state in
    (ppl-filter)
        words=($line[2] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:ppl-filter-command-$line[2]:"
        case $line[2] in
            (train)
_arguments "${_arguments_options[@]}" : \
'-o+[Where to write the model]:MODEL:_files' \
'--output=[Where to write the model]:MODEL:_files' \
'--order=[n-gram order\: 2 (bigram) or 3 (trigram)]:ORDER:_default' \
'--min-count=[Drop n-grams (of order 2 and up) seen fewer times than this]:N:_default' \
'--min-unigram-count=[Leave words seen fewer times than this out of the vocabulary (scored as unknown)]:N:_default' \
'--max-ngrams-in-memory=[Most distinct n-grams per order held while counting; rarer ones are pruned beyond it, which bounds memory on corpora larger than RAM]:N:_default' \
'--credit=[Credit or licence line of the training text, stored in the model header]:TEXT:_default' \
'-m+[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'--model=[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'-q[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'--quiet[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'-h[Print help]' \
'--help[Print help]' \
'*::corpus -- Text files (one paragraph or sentence per line), plain or .gz:_files' \
&& ret=0
;;
(perplexity)
_arguments "${_arguments_options[@]}" : \
'-m+[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'--model=[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'-q[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'--quiet[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'-h[Print help]' \
'--help[Print help]' \
'*::sentences -- Sentences to score; none reads one per line from standard input:_default' \
&& ret=0
;;
(learn)
_arguments "${_arguments_options[@]}" : \
'*--set=[Another training set\: its pages and their cleaned text (repeatable)]:INPUT_DIR:_files:INPUT_DIR:_files' \
'*--sets=[A file listing training sets, one \`INPUT_DIR GOLD_DIR \[WEIGHT\]\` per line (white-space separated, \`#\` starts a comment, relative paths are from the file'\''s directory)]:FILE:_files' \
'*--set-weight=[Weight of a set given on the command line\: the first --set-weight is the positional INPUT_DIR GOLD_DIR'\''s (or the first --set'\''s when there is none), the next the next --set'\''s, and so on; unweighted sets weigh 1. Multiplies the set'\''s example weights after --set-balance]:W:_default' \
'--set-balance=[How the training sets weigh against each other before their weights apply]:SET_BALANCE:((equal\:"Every set'\''s examples add up to the same total weight, whatever its size (then each is multiplied by its set weight)"
natural\:"Examples keep their own weight (words)\: a set counts as much as it has words"))' \
'--gold-format=[How the gold files are written \[default\: told per file\: CleanEval when a file starts with a URL line or has <p>/<h>/<l> markers, else plain\]]:GOLD_FORMAT:((cleaneval\:"CleanEval\: a \`URL\: …\` first line, then blocks that start with \`<p>\`, \`<h>\` or \`<l>\`. Words are taken as \`ppl-eval\` takes them (lines starting with \`URL\` dropped, markers split out and ignored)"
plain\:"Plain text, one block per line, no markers and no URL line\: every line is text (even one that starts with "URL"). Words are the white-space-separated tokens"))' \
'-o+[Where to write the classifier (load it with --classifier)]:CLASSIFIER:_files' \
'--output=[Where to write the classifier (load it with --classifier)]:CLASSIFIER:_files' \
'--learner=[The classifier fitted]:LEARNER:((logistic\:"L2-regularised logistic regression"
trees\:"Gradient-boosted shallow trees"))' \
'--trees=[Boosted trees\: how many]:N:_default' \
'--depth=[Boosted trees\: their depth (1 to 10)]:N:_default' \
'-j+[Boosted trees\: threads searching their splits, 1 to 256 (default\: the number of cores, at most 256). The classifier is the same for any number]:N:_default' \
'--threads=[Boosted trees\: threads searching their splits, 1 to 256 (default\: the number of cores, at most 256). The classifier is the same for any number]:N:_default' \
'--learning-rate=[Boosted trees\: the learning rate (shrinkage)]:X:_default' \
'--l2=[Logistic regression\: the L2 penalty]:X:_default' \
'--decision-threshold=[Log-odds a block needs above 0 to be kept (positive\: stricter)]:X:_default' \
'--smoothing=[Weight of the smoothing between neighbouring blocks (0\: none)]:X:_default' \
'--min-count=[Boilerplate model\: drop bigrams seen fewer times than this (a smaller classifier file)]:N:_default' \
'--min-unigram-count=[Boilerplate model\: leave words seen fewer times than this out of its vocabulary]:N:_default' \
'-m+[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'--model=[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'-q[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'--quiet[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'::input_dir -- Directory of HTML pages (N.html)\: the first training set:_files' \
'::gold_dir -- Directory of their cleaned text (N.txt):_files' \
&& ret=0
;;
(serve)
_arguments "${_arguments_options[@]}" : \
'--bind=[The host name or address to listen on, with or without a port (\`localhost\:9000\`, \`0.0.0.0\`, \`\[\:\:1\]\:8080\`); port 0 is any free port]:HOST[:PORT]:_default' \
'--port=[The port to listen on (instead of the one --bind names) \[default\: 8080\]]:PORT:_default' \
'--threads=[Requests cleaned at once, each on a thread of its own, 1 to 256 (default\: the number of cores)]:N:_default' \
'--max-body-bytes=[A larger request body is refused (413)]:BYTES:_default' \
'--max-body-memory=[The request bodies being read hold at most this many bytes in all, and an eighth of it for one client (never less than --max-body-bytes); a body that would hold more is answered 503]:BYTES:_default' \
'--max-fetch-bytes=[A larger page fetched from a URL is refused]:BYTES:_default' \
'--fetch-timeout=[Seconds a URL'\''s page may take to fetch (connecting, redirects and reading), 1 to 3600]:SECS:_default' \
'--body-timeout=[Seconds a request'\''s body may take to come, 1 to 3600; one not complete by then is answered 408 and its connection closed. A request is taken in (--max-pending) only once its body has come]:SECS:_default' \
'--max-pending=[Requests taken in at once, their bodies come (waiting or cleaned); more are answered 503 at once (default\: 4 for each of --threads)]:N:_default' \
'--max-connections=[Connections open at once, idle ones included; one more is closed at once]:N:_default' \
'--max-connections-per-client=[Connections open at once from one client (an IPv4 address or an IPv6 /64); one more is closed at once]:N:_default' \
'--idle-timeout=[Seconds, 1 to 3600, within which a connection'\''s next request head must have come, after it opened or after its last answer; else it is closed (idle, or sending slowly)]:SECS:_default' \
'--max-blocks=[Blocks listed at most in an answer with "blocks"\: true (the answer says when some were left out)]:N:_default' \
'--max-answer-bytes=[A longer answer is never sent\: its blocks are cut to fit, or it is refused (413), the page'\''s cleaning stopped as soon as its text passes this]:BYTES:_default' \
'-m+[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'--model=[Language model file to use instead of the embedded English model (learn with the one you will clean with)]:PATH:_files' \
'-q[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'--quiet[Hide the progress bar and the end-of-run remarks on stderr (WARC responses skipped, nothing kept); every problem with an input (notes, warnings, errors) is still reported, one line each]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_ppl-filter__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:ppl-filter-help-command-$line[1]:"
        case $line[1] in
            (train)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(perplexity)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(learn)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(serve)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_ppl-filter_commands] )) ||
_ppl-filter_commands() {
    local commands; commands=(
'train:Train a word n-gram language model from plain text (or .gz) files' \
'perplexity:Print the perplexity of each SENTENCE (or of each line of standard input)' \
'learn:Learn the combined method'\''s classifier from pages and their hand-cleaned text' \
'serve:Serve the web demo\: a page to try the cleaning on, and a JSON API' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'ppl-filter commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__help_commands] )) ||
_ppl-filter__subcmd__help_commands() {
    local commands; commands=(
'train:Train a word n-gram language model from plain text (or .gz) files' \
'perplexity:Print the perplexity of each SENTENCE (or of each line of standard input)' \
'learn:Learn the combined method'\''s classifier from pages and their hand-cleaned text' \
'serve:Serve the web demo\: a page to try the cleaning on, and a JSON API' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'ppl-filter help commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__help__subcmd__help_commands] )) ||
_ppl-filter__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter help help commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__help__subcmd__learn_commands] )) ||
_ppl-filter__subcmd__help__subcmd__learn_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter help learn commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__help__subcmd__perplexity_commands] )) ||
_ppl-filter__subcmd__help__subcmd__perplexity_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter help perplexity commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__help__subcmd__serve_commands] )) ||
_ppl-filter__subcmd__help__subcmd__serve_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter help serve commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__help__subcmd__train_commands] )) ||
_ppl-filter__subcmd__help__subcmd__train_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter help train commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__learn_commands] )) ||
_ppl-filter__subcmd__learn_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter learn commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__perplexity_commands] )) ||
_ppl-filter__subcmd__perplexity_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter perplexity commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__serve_commands] )) ||
_ppl-filter__subcmd__serve_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter serve commands' commands "$@"
}
(( $+functions[_ppl-filter__subcmd__train_commands] )) ||
_ppl-filter__subcmd__train_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-filter train commands' commands "$@"
}

if [ "$funcstack[1]" = "_ppl-filter" ]; then
    _ppl-filter "$@"
else
    compdef _ppl-filter ppl-filter
fi
