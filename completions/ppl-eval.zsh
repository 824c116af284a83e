#compdef ppl-eval

autoload -U is-at-least

_ppl-eval() {
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
'--generate=[Print the man page or a shell completion script and exit]:GENERATE:((man\:"The roff man page"
complete-bash\:"bash completions"
complete-zsh\:"zsh completions"
complete-fish\:"fish completions"
model\:"The embedded language model'\''s file (committed packed as \`model/en.pack\`)"))' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_ppl-eval_commands" \
"*::: :->ppl-eval" \
&& ret=0
    case $state in
    (ppl-eval)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:ppl-eval-command-$line[1]:"
        case $line[1] in
            (score)
_arguments "${_arguments_options[@]}" : \
'--tsv=[Also write one TSV row per page (with a header row) to FILE]:FILE:_files' \
'--json=[Also write the summary as a flat JSON object to FILE]:FILE:_files' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':cleaned_dir -- Directory of cleaned outputs, N.txt:_files' \
':gold_dir -- Directory of gold files, N.txt:_files' \
&& ret=0
;;
(baseline)
_arguments "${_arguments_options[@]}" : \
'-h[Print help]' \
'--help[Print help]' \
':input_dir -- Directory of pages, *.html:_files' \
':out_dir -- Where N.txt files are written (created if needed):_files' \
&& ret=0
;;
(compare)
_arguments "${_arguments_options[@]}" : \
'--work-dir=[Where each method'\''s outputs are kept (default\: a fresh directory under the system temp dir)]:DIR:_files' \
'-m+[Language model file to use instead of the embedded English model]:PATH:_files' \
'--model=[Language model file to use instead of the embedded English model]:PATH:_files' \
'--method=[How blocks and sentences are kept or dropped \[default\: combined\]]:METHOD:((perplexity\:"PyPlexity'\''s rule\: drop sentences above --threshold, and blocks above --max-link-density"
combined\:"A learned classifier over perplexity under the general and a boilerplate model, the block'\''s shape and markup, and its neighbours (\`ppl-filter learn\` makes one)"))' \
'-t+[Drop sentences whose perplexity is above PPL \[default\: 3000000 with --method perplexity; none with the combined method, whose classifier weighs perplexity itself and must not empty pages in other languages\]]:PPL:_default' \
'--threshold=[Drop sentences whose perplexity is above PPL \[default\: 3000000 with --method perplexity; none with the combined method, whose classifier weighs perplexity itself and must not empty pages in other languages\]]:PPL:_default' \
'--max-link-density=[Perplexity method\: drop blocks whose share of link text is above this (1 keeps all) \[default\: 0.4\]. The combined method weighs link density itself and refuses this flag]:SHARE:_default' \
'--bias=[Combined method\: add BIAS log-odds to every block'\''s score\: above 0 keeps more, below keeps less, from -20 to 20 (--favor-recall is 1, --favor-precision -1) \[default\: 0\]]:BIAS:_default' \
'--kind=[Combined method\: decide every page as this kind instead of the kind it declares (schema.org types, Open Graph type, URL). The kind sets what the main content is\: every post of a forum (comments kept), every section and card of documentation, collections, listings and service pages (leaning to recall); articles, products and \`other\` are decided as the flags say]:KIND:(article forum product collection listing documentation service other)' \
'--classifier=[Classifier file (from \`ppl-filter learn\`) instead of the embedded one (combined method)]:PATH:_files' \
'--comments[Combined method\: keep readers'\'' comments (dropped by default, as the Dragnet gold does)]' \
'--drop-tables[Combined method\: drop the tables of data (and their captions), for corpora of prose alone; kept by default, whole, with their header]' \
'(--favor-recall)--favor-precision[Combined method\: keep less, only what is clearly main content]' \
'--favor-recall[Combined method\: keep more, anything that may be main content]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':input_dir -- Directory of pages, N.html:_files' \
':gold_dir -- Directory of gold files, N.txt:_files' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_ppl-eval__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:ppl-eval-help-command-$line[1]:"
        case $line[1] in
            (score)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(baseline)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(compare)
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

(( $+functions[_ppl-eval_commands] )) ||
_ppl-eval_commands() {
    local commands; commands=(
'score:Score CLEANED_DIR/N.txt against every GOLD_DIR/N.txt (Lev, word P/R/F, markers)' \
'baseline:Clean INPUT_DIR/*.html with the jusText-style baseline into OUT_DIR/N.txt' \
'compare:Clean INPUT_DIR/*.html with no cleaning, the baseline and ppl-filter; score each against GOLD_DIR and print them side by side with their throughput' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'ppl-eval commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__baseline_commands] )) ||
_ppl-eval__subcmd__baseline_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-eval baseline commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__compare_commands] )) ||
_ppl-eval__subcmd__compare_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-eval compare commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__help_commands] )) ||
_ppl-eval__subcmd__help_commands() {
    local commands; commands=(
'score:Score CLEANED_DIR/N.txt against every GOLD_DIR/N.txt (Lev, word P/R/F, markers)' \
'baseline:Clean INPUT_DIR/*.html with the jusText-style baseline into OUT_DIR/N.txt' \
'compare:Clean INPUT_DIR/*.html with no cleaning, the baseline and ppl-filter; score each against GOLD_DIR and print them side by side with their throughput' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'ppl-eval help commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__help__subcmd__baseline_commands] )) ||
_ppl-eval__subcmd__help__subcmd__baseline_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-eval help baseline commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__help__subcmd__compare_commands] )) ||
_ppl-eval__subcmd__help__subcmd__compare_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-eval help compare commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__help__subcmd__help_commands] )) ||
_ppl-eval__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-eval help help commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__help__subcmd__score_commands] )) ||
_ppl-eval__subcmd__help__subcmd__score_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-eval help score commands' commands "$@"
}
(( $+functions[_ppl-eval__subcmd__score_commands] )) ||
_ppl-eval__subcmd__score_commands() {
    local commands; commands=()
    _describe -t commands 'ppl-eval score commands' commands "$@"
}

if [ "$funcstack[1]" = "_ppl-eval" ]; then
    _ppl-eval "$@"
else
    compdef _ppl-eval ppl-eval
fi
