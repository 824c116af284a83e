# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ppl_eval_global_optspecs
    string join \n generate= h/help V/version
end

function __fish_ppl_eval_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ppl_eval_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ppl_eval_using_subcommand
    set -l cmd (__fish_ppl_eval_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ppl-eval -n "__fish_ppl_eval_needs_command" -l generate -d 'Print the man page or a shell completion script and exit' -r -f -a "man\t'The roff man page'
complete-bash\t'bash completions'
complete-zsh\t'zsh completions'
complete-fish\t'fish completions'
model\t'The embedded language model\'s file (committed packed as `model/en.pack`)'"
complete -c ppl-eval -n "__fish_ppl_eval_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ppl-eval -n "__fish_ppl_eval_needs_command" -s V -l version -d 'Print version'
complete -c ppl-eval -n "__fish_ppl_eval_needs_command" -f -a "score" -d 'Score CLEANED_DIR/N.txt against every GOLD_DIR/N.txt (Lev, word P/R/F, markers)'
complete -c ppl-eval -n "__fish_ppl_eval_needs_command" -f -a "baseline" -d 'Clean INPUT_DIR/*.html with the jusText-style baseline into OUT_DIR/N.txt'
complete -c ppl-eval -n "__fish_ppl_eval_needs_command" -f -a "compare" -d 'Clean INPUT_DIR/*.html with no cleaning, the baseline and ppl-filter; score each against GOLD_DIR and print them side by side with their throughput'
complete -c ppl-eval -n "__fish_ppl_eval_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand score" -l tsv -d 'Also write one TSV row per page (with a header row) to FILE' -r -F
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand score" -l json -d 'Also write the summary as a flat JSON object to FILE' -r -F
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand score" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand baseline" -s h -l help -d 'Print help'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l work-dir -d 'Where each method\'s outputs are kept (default: a fresh directory under the system temp dir)' -r -F
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -s m -l model -d 'Language model file to use instead of the embedded English model' -r -F
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l method -d 'How blocks and sentences are kept or dropped [default: combined]' -r -f -a "perplexity\t'PyPlexity\'s rule: drop sentences above --threshold, and blocks above --max-link-density'
combined\t'A learned classifier over perplexity under the general and a boilerplate model, the block\'s shape and markup, and its neighbours (`ppl-filter learn` makes one)'"
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -s t -l threshold -d 'Drop sentences whose perplexity is above PPL [default: 3000000 with --method perplexity; none with the combined method, whose classifier weighs perplexity itself and must not empty pages in other languages]' -r
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l max-link-density -d 'Perplexity method: drop blocks whose share of link text is above this (1 keeps all) [default: 0.4]. The combined method weighs link density itself and refuses this flag' -r
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l bias -d 'Combined method: add BIAS log-odds to every block\'s score: above 0 keeps more, below keeps less, from -20 to 20 (--favor-recall is 1, --favor-precision -1) [default: 0]' -r
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l kind -d 'Combined method: decide every page as this kind instead of the kind it declares (schema.org types, Open Graph type, URL). The kind sets what the main content is: every post of a forum (comments kept), every section and card of documentation, collections, listings and service pages (leaning to recall); articles, products and `other` are decided as the flags say' -r -f -a "article\t''
forum\t''
product\t''
collection\t''
listing\t''
documentation\t''
service\t''
other\t''"
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l classifier -d 'Classifier file (from `ppl-filter learn`) instead of the embedded one (combined method)' -r -F
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l comments -d 'Combined method: keep readers\' comments (dropped by default, as the Dragnet gold does)'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l drop-tables -d 'Combined method: drop the tables of data (and their captions), for corpora of prose alone; kept by default, whole, with their header'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l favor-precision -d 'Combined method: keep less, only what is clearly main content'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -l favor-recall -d 'Combined method: keep more, anything that may be main content'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand compare" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand help; and not __fish_seen_subcommand_from score baseline compare help" -f -a "score" -d 'Score CLEANED_DIR/N.txt against every GOLD_DIR/N.txt (Lev, word P/R/F, markers)'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand help; and not __fish_seen_subcommand_from score baseline compare help" -f -a "baseline" -d 'Clean INPUT_DIR/*.html with the jusText-style baseline into OUT_DIR/N.txt'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand help; and not __fish_seen_subcommand_from score baseline compare help" -f -a "compare" -d 'Clean INPUT_DIR/*.html with no cleaning, the baseline and ppl-filter; score each against GOLD_DIR and print them side by side with their throughput'
complete -c ppl-eval -n "__fish_ppl_eval_using_subcommand help; and not __fish_seen_subcommand_from score baseline compare help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
