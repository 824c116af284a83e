#!/usr/bin/env bash
# bench/run.sh — the benchmark of ppl-filter (see bench/README.md for what each figure means).
#
# In one run, on the same inputs, it measures:
#   1. throughput: the "ceiling" (lol_html alone, bench/ceiling) and ppl-filter end to end with
#      1 thread and with all cores, over the CleanEval pages concatenated into one stream on
#      stdin and over the same pages as many files; MB/s of HTML and ratio to the ceiling,
#      median of RUNS runs, the commands interleaved within each run; with PEERS=1, the fastest
#      peers on the same stream in the same runs (resiliparse through Python, dom_smoothie in
#      Rust, page by page), installed under bench/peers/ and never dependencies of ppl-filter;
#   2. scaling with input size: the same on smaller streams (SCALE_MB);
#   3. memory: peak RSS on generated streams of MEMORY_MB sizes (pages plus one pathological
#      page, a huge text node without sentence punctuation), piped, never written to disk;
#   4. the model: time from process start to the first scored sentence, and its size;
#   5. `ppl-eval score` over the 386 CleanEval pairs (bench/score.sh);
#   6. cores: -j 1 to 16 over many files and one stream, MB/s and each thread's share of the
#      CPU time (bench/cores.sh), which says how far a run would scale on more cores.
# The tables go to stdout and to bench/results.md (with date and machine); progress to stderr.
#
# Environment (defaults in brackets):
#   SIZE_MB [300]        size of the stdin stream of the main run (MB = 10^6 bytes)
#   FILES_MB [100]       total size of the many-files input
#   RUNS [5]             runs of the main and scaling measurements (medians are reported)
#   SCALE_MB [100]       extra stream sizes for the scaling table, space-separated ("" skips)
#   MEMORY [1]           0 skips the memory part
#   MEMORY_MB [100 500 1000]  generated stream sizes for the memory part
#   PATHO_PERCENT [20]   share of each generated stream taken by the pathological page
#                        (20% of 1000 MB = the 200 MB text node of the issue)
#   MODEL_RUNS [20]      runs of the model-load measurement
#   SCORE [1]            0 skips bench/score.sh
#   CORES [1]            0 skips bench/cores.sh
#   THREADS [nproc]      the "all cores" thread count
#   PEERS [1]            0 skips the peers (bench/peers/: a virtualenv and a standalone crate)
#   DATA [../shared/data/cleaneval]   CleanEval, with {tune,dev}/input/*.html
#   RESULTS [bench/results.md]        where the report is written ("" writes none)
#   PPL_FILTER, PPL_EVAL, LOL_CEILING  prebuilt binaries (skip the cargo builds)
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE_MB=${SIZE_MB:-300}
FILES_MB=${FILES_MB:-100}
RUNS=${RUNS:-5}
SCALE_MB=${SCALE_MB-100}
MEMORY=${MEMORY:-1}
MEMORY_MB=${MEMORY_MB:-100 500 1000}
PATHO_PERCENT=${PATHO_PERCENT:-20}
MODEL_RUNS=${MODEL_RUNS:-20}
SCORE=${SCORE:-1}
CORES=${CORES:-1}
THREADS=${THREADS:-$(nproc)}
PEERS=${PEERS:-1}
DATA=${DATA:-../shared/data/cleaneval}
RESULTS=${RESULTS-bench/results.md}

# Targets of the issue, printed next to the figures.
TARGET_RATIO=0.25     # end to end on one thread ≥ 0.25 × ceiling
TARGET_SCALING=1.8    # -jTHREADS ≥ 1.8 × -j1 on the stream
TARGET_PEER=1.3       # ppl-filter -j1 ≥ 1.3 × resiliparse (main content, Python) on the stream
TARGET_RSS_MB=64      # peak RSS on the 1 GB stream
TARGET_MODEL_MS=10    # model ready
TARGET_SCORE_S=2      # ppl-eval score over the 386 pairs

progress() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf 'bench/run.sh: %s\n' "$*" >&2; exit 2; }

[[ -d "$DATA/tune/input" && -d "$DATA/dev/input" ]] || die "CleanEval not found in $DATA (set DATA)"
if [[ ! -x /usr/bin/time ]]; then
    progress "installing GNU time"
    { apt-get update -qq && apt-get install -y -qq time; } >&2 || die "GNU time (/usr/bin/time) is needed"
fi

# ---------------------------------------------------------------------------------------------
# Build (release, locked). Honours CARGO_TARGET_DIR; the ceiling goes to the same target dir.
# ---------------------------------------------------------------------------------------------
target_dir=$(cargo metadata --format-version 1 --no-deps --locked 2>/dev/null \
    | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
target_dir=${target_dir:-${CARGO_TARGET_DIR:-target}}
if [[ -z "${PPL_FILTER:-}" || -z "${PPL_EVAL:-}" ]]; then
    progress "building ppl-filter (cargo build --release --locked)"
    cargo build --release --locked --quiet
fi
if [[ -z "${LOL_CEILING:-}" ]]; then
    progress "building the ceiling (bench/ceiling)"
    cargo build --release --locked --quiet --manifest-path bench/ceiling/Cargo.toml --target-dir "$target_dir"
fi
ppl=${PPL_FILTER:-$target_dir/release/ppl-filter}
ppl_eval=${PPL_EVAL:-$target_dir/release/ppl-eval}
ceiling=${LOL_CEILING:-$target_dir/release/lol-ceiling}
for b in "$ppl" "$ppl_eval" "$ceiling"; do [[ -x "$b" ]] || die "missing binary $b"; done

# ---------------------------------------------------------------------------------------------
# Peers (PEERS=1), each in a git-ignored scratch place under bench/peers/, none a dependency of
# ppl-filter. A peer that cannot be installed or built gets "not measured: WHY" in its row
# (peer_why) and the benchmark goes on without it.
#   resiliparse: virtualenv bench/peers/.venv with bench/peers/requirements.txt (pinned), run
#                by bench/peers/throughput.py;
#   dom_smoothie: standalone crate bench/peers/dom-smoothie (its Cargo.lock), built into the
#                same target dir as the ceiling.
# ---------------------------------------------------------------------------------------------
declare -A peer_name peer_why peer_cmd
peer_name[resiliparse]="resiliparse main_content (Python)"
peer_name[smoothie]="dom_smoothie (Rust)"
peer_keys=()
last_line() { { grep -v '^[[:space:]]*$' || true; } | tail -n 1 | tr '|' '/' | cut -c1-160; }   # a failure's last message
if [[ "$PEERS" != 0 ]]; then
    peer_keys=(resiliparse smoothie)
    venv=bench/peers/.venv
    pinned=$(sed -n 's/^Resiliparse==//p' bench/peers/requirements.txt)
    resiliparse_version() { "$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("Resiliparse"))' 2>/dev/null; }
    if [[ "$(resiliparse_version)" != "$pinned" ]]; then
        progress "installing resiliparse $pinned into $venv (pip)"
        if [[ ! -x "$venv/bin/python" ]] && ! log=$(python3 -m venv "$venv" 2>&1); then
            peer_why[resiliparse]="python3 -m venv failed: $(last_line <<< "$log")"
        elif ! log=$("$venv/bin/python" -m pip install --quiet --disable-pip-version-check --retries 1 \
                --timeout 20 -r bench/peers/requirements.txt 2>&1); then
            peer_why[resiliparse]="pip install failed: $(last_line <<< "$log")"
        fi
    fi
    if [[ -z "${peer_why[resiliparse]:-}" ]]; then
        if v=$(resiliparse_version); then
            peer_name[resiliparse]="resiliparse $v main_content (Python)"
            peer_cmd[resiliparse]="$venv/bin/python bench/peers/throughput.py"
        else
            peer_why[resiliparse]="resiliparse not importable in $venv"
        fi
    fi
    progress "building dom_smoothie (bench/peers/dom-smoothie)"
    if log=$(cargo build --release --locked --quiet --manifest-path bench/peers/dom-smoothie/Cargo.toml \
            --target-dir "$target_dir" 2>&1); then
        v=$(grep -A1 '^name = "dom_smoothie"$' bench/peers/dom-smoothie/Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
        peer_name[smoothie]="dom_smoothie ${v:-?} (Rust)"
        peer_cmd[smoothie]="$target_dir/release/peer-dom-smoothie"
    else
        peer_why[smoothie]="cargo build failed: $(last_line <<< "$log")"
    fi
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)   # recorded: other work on the machine skews everything
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report="$tmp/report.md"
: > "$report"
out() { printf '%s\n' "$*" >> "$report"; }          # a line of the report

# Small helpers: arithmetic on decimals, medians, MB.
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mb() { calc "$1 / 1000000" 1; }
filesize() { stat -c %s "$1"; }

# measure KEY INPUT CMD... — runs CMD with stdin from INPUT and stdout to /dev/null, appends
# "wall-seconds peak-RSS-KiB cpu-seconds" to $tmp/m/KEY. Wall time from bash's microsecond
# clock; peak RSS and CPU time (user + system, all threads) from GNU time (getrusage of the
# child). CPU time is what a single-threaded case would take on an idle machine: it barely
# moves when other work shares the cores, so it is reported next to the wall clock. Exit status 1 (some inputs had warnings, such as
# invalid bytes replaced by U+FFFD) is normal on CleanEval; 2 and above is a failure.
mkdir -p "$tmp/m"
measure() {
    local key=$1 input=$2 status=0
    shift 2
    timed "$input" "$@" || status=$?
    if (( status > 1 )); then
        tail -n 5 "$tmp/stderr.log" >&2
        die "$key: '$*' exited with status $status"
    fi
    record "$key" "$run_start" "$run_end"
}
timed() {  # timed INPUT CMD... — one timed run of CMD (stdin from INPUT, stdout to /dev/null, its
    # stderr in $tmp/run.log and appended to $tmp/stderr.log); sets run_start and run_end and
    # returns CMD's exit status.
    local input=$1 status=0
    shift
    run_start=$EPOCHREALTIME
    /usr/bin/time -f '%M %U %S' -o "$tmp/rss" "$@" < "$input" > /dev/null 2> "$tmp/run.log" || status=$?
    run_end=$EPOCHREALTIME
    cat "$tmp/run.log" >> "$tmp/stderr.log"
    return "$status"
}
record() {  # record KEY START END — appends the wall time and GNU time's figures to $tmp/m/KEY
    tail -n 1 "$tmp/rss" | awk -v w="$(calc "$3 - $2" 6)" '{ printf "%s %s %.2f\n", w, $1, $2 + $3 }' >> "$tmp/m/$1"
}
med_s() { cut -d' ' -f1 "$tmp/m/$1" | median; }                        # median seconds
med_rss_mb() { cut -d' ' -f2 "$tmp/m/$1" | median | awk '{ printf "%.1f", $1 / 1024 }'; }
med_cpu() { cut -d' ' -f3 "$tmp/m/$1" | median; }                      # median CPU seconds
runs_of() { cut -d' ' -f1 "$tmp/m/$1" | awk '{ printf "%.2f ", $1 }'; }

# ---------------------------------------------------------------------------------------------
# Inputs: one.html = the 386 pages concatenated; stream.html = one.html repeated to SIZE_MB;
# f/ = the pages copied to about FILES_MB in all, with distinct names.
# ---------------------------------------------------------------------------------------------
pages=("$DATA"/tune/input/*.html "$DATA"/dev/input/*.html)
cat "${pages[@]}" > "$tmp/one.html"
one_bytes=$(filesize "$tmp/one.html")
repeat() {  # repeat MB FILE — one.html repeated to about MB (whole copies, at least one)
    local n
    n=$(awk -v t="$1" -v b="$one_bytes" 'BEGIN { n = int(t * 1e6 / b + 0.5); print (n < 1) ? 1 : n }')
    for _ in $(seq "$n"); do cat "$tmp/one.html"; done > "$2"
}
progress "making inputs: ${#pages[@]} pages, $(mb "$one_bytes") MB; stream of ~$SIZE_MB MB, files of ~$FILES_MB MB"
repeat "$SIZE_MB" "$tmp/stream.html"
stream_bytes=$(filesize "$tmp/stream.html")
mkdir "$tmp/f"
copies=$(awk -v t="$FILES_MB" -v b="$one_bytes" 'BEGIN { n = int(t * 1e6 / b + 0.5); print (n < 1) ? 1 : n }')
for c in $(seq -w "$copies"); do
    for set in tune dev; do
        for p in "$DATA/$set"/input/*.html; do
            cp "$p" "$tmp/f/$c-$set-${p##*/}"
        done
    done
done
files=("$tmp"/f/*.html)
# The peers read the same stream but cut it into its pages: lengths.txt has the byte length of
# each page, in stream order, repeated as the stream repeats one.html.
for p in "${pages[@]}"; do filesize "$p"; done > "$tmp/one.lengths"
for _ in $(seq "$((stream_bytes / one_bytes))"); do cat "$tmp/one.lengths"; done > "$tmp/lengths.txt"
files_bytes=$(cat "${files[@]}" | wc -c)
files_count=${#files[@]}

# The many files go on the command line when they fit (one process, like a user would run it);
# otherwise through xargs, which may split them over several processes (noted in the report).
arg_bytes=$(printf '%s\0' "${files[@]}" | wc -c)
arg_max=$(getconf ARG_MAX)
files_by_xargs=0
if (( arg_bytes + 8 * files_count < arg_max / 2 )); then
    files_note="all $files_count files as arguments of one process"
else
    files_by_xargs=1
    printf '%s\0' "${files[@]}" > "$tmp/files.list"
    procs=$(xargs -0 -a "$tmp/files.list" sh -c 'echo x' sh | wc -l)
    files_note="$files_count files through xargs -0, in $procs ppl-filter processes one after another"
fi
measure_files() {  # measure_files KEY THREADS — ppl-filter over the many files
    if (( files_by_xargs )); then
        measure "$1" /dev/null xargs -0 -a "$tmp/files.list" "$ppl" -j"$2"
    else
        measure "$1" /dev/null "$ppl" -j"$2" "${files[@]}"
    fi
}

# ---------------------------------------------------------------------------------------------
# 1. Throughput, main run: each run times every case once, in the same order, so drift in the
#    machine's load hits all cases alike. Medians over RUNS runs.
# ---------------------------------------------------------------------------------------------
run_stream_cases() {  # run_stream_cases TAG FILE — ceiling, -j1, -jN on one stream, one run
    measure "$1-ceiling" "$2" "$ceiling"
    measure "$1-j1" "$2" "$ppl" -j1
    measure "$1-jN" "$2" "$ppl" -j"$THREADS"
}
measure_peer() {  # measure_peer KEY INPUT — a peer over the stream's pages, like measure, but a
    # failure (any status but 0) marks the peer "not measured" and drops its runs, never dies.
    local key=$1 input=$2 status=0
    [[ -n "${peer_cmd[$key]:-}" && -z "${peer_why[$key]:-}" ]] || return 0
    # shellcheck disable=SC2086  # peer_cmd is a command line of words without spaces
    timed "$input" ${peer_cmd[$key]} --lengths "$tmp/lengths.txt" || status=$?
    if (( status != 0 )); then
        peer_why[$key]="exited with status $status: $(last_line < "$tmp/run.log")"
        progress "${peer_name[$key]}: ${peer_why[$key]}"
        rm -f "$tmp/m/main-peer-$key"
        return 0
    fi
    record "main-peer-$key" "$run_start" "$run_end"
}
for r in $(seq "$RUNS"); do
    progress "main run $r/$RUNS: stream $(mb "$stream_bytes") MB, files $(mb "$files_bytes") MB"
    run_stream_cases main "$tmp/stream.html"
    for k in "${peer_keys[@]}"; do measure_peer "$k" "$tmp/stream.html"; done
    measure main-perplexity-j1 "$tmp/stream.html" "$ppl" -j1 --method perplexity
    measure main-elements "$tmp/stream.html" "$ceiling" --elements
    measure_files files-j1 1
    measure_files files-jN "$THREADS"
done

ceiling_mbs=$(calc "$stream_bytes / 1e6 / $(med_s main-ceiling)" 1)
ceiling_cpu_mbs=$(calc "$stream_bytes / 1e6 / $(med_cpu main-ceiling)" 1)
row() {  # row CASE KEY BYTES TARGET-NOTE — one line of the throughput table
    local s mbs cpu cpu_mbs
    s=$(med_s "$2")
    mbs=$(calc "$3 / 1e6 / $s" 1)
    cpu=$(med_cpu "$2")
    cpu_mbs=$(calc "$3 / 1e6 / $cpu" 1)
    out "| $1 | $(mb "$3") | $(calc "$s" 2) | $mbs | $(calc "$mbs / $ceiling_mbs" 2) | $(calc "$cpu" 2) | $cpu_mbs | $(calc "$cpu_mbs / $ceiling_cpu_mbs" 2) | $(med_rss_mb "$2") | $4 | $(runs_of "$2")|"
}
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0) ? "ok" : "MISS" }'; }
j1_ratio=$(calc "$stream_bytes / 1e6 / $(med_s main-j1) / $ceiling_mbs" 2)
j1_cpu_ratio=$(calc "$stream_bytes / 1e6 / $(med_cpu main-j1) / $ceiling_cpu_mbs" 2)
scaling=$(calc "$(med_s main-j1) / $(med_s main-jN)" 2)    # -jN over -j1, wall MB/s
peer_measured() { [[ -z "${peer_why[$1]:-}" && -s "$tmp/m/main-peer-$1" ]]; }
peer_row() {  # peer_row KEY TARGET-NOTE — a peer's row, or "not measured: WHY"
    if peer_measured "$1"; then
        row "${peer_name[$1]}, stdin pages" "main-peer-$1" "$stream_bytes" "$2"
    else
        out "| ${peer_name[$1]}, stdin pages | not measured: ${peer_why[$1]:-no run} | | | | | | | | $2 | |"
    fi
}
peer_ratio() {  # peer_ratio KEY TARGET — the line under the table: ppl-filter -j1 over the peer
    local name=${peer_name[$1]%% *} wall cpu
    if ! peer_measured "$1"; then
        out "- ppl-filter -j1 / $name: not measured (${peer_why[$1]:-no run})${2:+ (target ≥ $2)}"
        return
    fi
    wall=$(calc "$(med_s "main-peer-$1") / $(med_s main-j1)" 2)
    cpu=$(calc "$(med_cpu "main-peer-$1") / $(med_cpu main-j1)" 2)
    out "- ppl-filter -j1 / $name: ${wall}×${2:+ (target ≥ $2): $(verdict "$wall" "$2")}; in CPU time ${cpu}×"
}

out "## Throughput"
out ""
out "Median of $RUNS runs; MB = 10^6 bytes of HTML in. Wall: elapsed time; ratio = MB/s over the"
out "ceiling's MB/s on the same stream in the same runs. CPU: user + system seconds of all threads"
out "(for one thread, what the run takes on an idle core; little affected by other load), and the"
out "same ratio in CPU terms. Many files: $files_note."
out ""
out "| case | input MB | wall s | MB/s | ratio to ceiling | CPU s | MB/CPU-s | CPU ratio | peak RSS MB | target | wall of each run (s) |"
out "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
row "ceiling: lol_html text only, stdin" main-ceiling "$stream_bytes" "(the ceiling)"
row "lol_html with element and end-tag handlers that do nothing, stdin" main-elements "$stream_bytes" "(what any element-aware lol_html stage pays)"
row "ppl-filter -j1, stdin" main-j1 "$stream_bytes" "≥ $TARGET_RATIO × ceiling: wall $(verdict "$j1_ratio" "$TARGET_RATIO"), CPU $(verdict "$j1_cpu_ratio" "$TARGET_RATIO")"
row "ppl-filter -j$THREADS, stdin" main-jN "$stream_bytes" "≥ $TARGET_SCALING × -j1: $(verdict "$scaling" "$TARGET_SCALING")"
if (( ${#peer_keys[@]} )); then
    peer_row resiliparse "(peer; ppl-filter -j1 ≥ $TARGET_PEER × this)"
    peer_row smoothie "(peer)"
fi
row "ppl-filter -j1 --method perplexity, stdin" main-perplexity-j1 "$stream_bytes" "(the default is --method combined)"
row "ppl-filter -j1, $files_count files" files-j1 "$files_bytes" ""
row "ppl-filter -j$THREADS, $files_count files" files-jN "$files_bytes" ""
out ""
if (( ${#peer_keys[@]} )); then
    peer_ratio resiliparse "$TARGET_PEER"
    peer_ratio smoothie ""
fi
out "- -j$THREADS / -j1: ${scaling}× (target ≥ $TARGET_SCALING): $(verdict "$scaling" "$TARGET_SCALING")"
out ""

# ---------------------------------------------------------------------------------------------
# 2. Scaling with input size: the stream cases on smaller streams (same pages, fewer copies).
# ---------------------------------------------------------------------------------------------
out "## Scaling with input size (stdin stream)"
out ""
out "| stream MB | runs | ceiling MB/s | -j1 MB/s | -j$THREADS MB/s | -j1 / ceiling | -j$THREADS / ceiling | -j1 / ceiling, CPU |"
out "|---:|---:|---:|---:|---:|---:|---:|---:|"
scale_row() {  # scale_row TAG BYTES RUNS
    local c j1 jn cpu_ratio
    c=$(calc "$2 / 1e6 / $(med_s "$1-ceiling")" 1)
    j1=$(calc "$2 / 1e6 / $(med_s "$1-j1")" 1)
    jn=$(calc "$2 / 1e6 / $(med_s "$1-jN")" 1)
    cpu_ratio=$(calc "$(med_cpu "$1-ceiling") / $(med_cpu "$1-j1")" 2)
    out "| $(mb "$2") | $3 | $c | $j1 | $jn | $(calc "$j1 / $c" 2) | $(calc "$jn / $c" 2) | $cpu_ratio |"
}
for size in $SCALE_MB; do
    repeat "$size" "$tmp/scale.html"
    bytes=$(filesize "$tmp/scale.html")
    for r in $(seq "$RUNS"); do
        progress "scaling run $r/$RUNS: stream $(mb "$bytes") MB"
        run_stream_cases "scale$size" "$tmp/scale.html"
    done
    scale_row "scale$size" "$bytes" "$RUNS"
    rm -f "$tmp/scale.html"
done
scale_row main "$stream_bytes" "$RUNS"
out ""
rm -f "$tmp/stream.html"

# ---------------------------------------------------------------------------------------------
# 3. Memory: peak RSS on generated streams, made on the fly by a small generator and piped in
#    (nothing of that size touches the disk). Each stream: the CleanEval pages repeated, with one
#    pathological page in the middle — <html><body><p> + PATHO_PERCENT % of the stream of words
#    separated by spaces, no . ! ? + </p></body></html>. One run per size and thread count;
#    throughput here includes the generator sharing the cores.
# ---------------------------------------------------------------------------------------------
if [[ "$MEMORY" != 0 ]]; then
    mem() {  # mem KEY MB CMD... — generator | CMD; appends "seconds rss-KiB" to $tmp/m/KEY
        local key=$1 size=$2 start end status
        shift 2
        start=$EPOCHREALTIME
        set +e
        python3 bench/gen_stream.py pages "$((size * 1000000))" "$PATHO_PERCENT" "$tmp/one.html" \
            | /usr/bin/time -f '%M %U %S' -o "$tmp/rss" "$@" > /dev/null 2>> "$tmp/stderr.log"
        status=("${PIPESTATUS[@]}")
        set -e
        end=$EPOCHREALTIME
        if (( status[0] != 0 || status[1] > 1 )); then
            tail -n 5 "$tmp/stderr.log" >&2
            die "$key: generator | '$*' exited with ${status[*]}"
        fi
        record "$key" "$start" "$end"
    }
    for size in $MEMORY_MB; do
        progress "memory: generated stream of $size MB (pathological page: $((size * PATHO_PERCENT / 100)) MB)"
        mem "mem$size-ceiling" "$size" "$ceiling"
        mem "mem$size-j1" "$size" "$ppl" -j1
        mem "mem$size-jN" "$size" "$ppl" -j"$THREADS"
    done
    # The generator alone, on the largest size: what it costs the piped runs.
    # shellcheck disable=SC2086  # MEMORY_MB is split into its sizes on purpose
    largest=$(printf '%s\n' $MEMORY_MB | sort -n | tail -n 1)
    start=$EPOCHREALTIME
    python3 bench/gen_stream.py pages "$((largest * 1000000))" "$PATHO_PERCENT" "$tmp/one.html" > /dev/null
    gen_s=$(calc "$EPOCHREALTIME - $start" 2)

    out "## Memory (peak RSS, generated streams on a pipe)"
    out ""
    out "Pages repeated, plus one pathological page of $PATHO_PERCENT % of the stream (a single text node of"
    out "words, no sentence punctuation). One run each. Target: ppl-filter peak RSS ≤ $TARGET_RSS_MB MB on the"
    out "largest stream, not growing with its size. The generator alone takes $gen_s s for $largest MB."
    out ""
    out "| stream MB | pathological MB | case | peak RSS MB | wall s | MB/s | CPU s | target |"
    out "|---:|---:|---|---:|---:|---:|---:|---|"
    for size in $MEMORY_MB; do
        for c in ceiling j1 jN; do
            case $c in
                ceiling) name="ceiling" ;;
                j1) name="ppl-filter -j1" ;;
                jN) name="ppl-filter -j$THREADS" ;;
            esac
            key="mem$size-$c"
            rss=$(med_rss_mb "$key")
            s=$(med_s "$key")
            target=""
            if [[ $c != ceiling && $size == "$largest" ]]; then
                target="≤ $TARGET_RSS_MB MB: $(awk -v a="$rss" -v b="$TARGET_RSS_MB" 'BEGIN { print (a + 0 <= b + 0) ? "ok" : "MISS" }')"
            fi
            out "| $size | $((size * PATHO_PERCENT / 100)) | $name | $rss | $(calc "$s" 2) | $(calc "$size / $s" 1) | $(calc "$(med_cpu "$key")" 2) | $target |"
        done
    done
    out ""
fi

# ---------------------------------------------------------------------------------------------
# 4. The model: wall time from process start to the first scored sentence, as the median of
#    `ppl-filter perplexity SENTENCE` minus the median of `ppl-filter --version` (which starts
#    the same binary but loads no model), and the model's size on disk and in memory (peak RSS
#    of the same two commands).
# ---------------------------------------------------------------------------------------------
progress "model: $MODEL_RUNS runs of --version and perplexity"
sentence="The committee approved the new budget."
for _ in $(seq "$MODEL_RUNS"); do
    measure version /dev/null "$ppl" --version
    measure perplexity /dev/null "$ppl" perplexity "$sentence"
done
v_ms=$(calc "$(med_s version) * 1000" 2)
p_ms=$(calc "$(med_s perplexity) * 1000" 2)
load_ms=$(calc "$p_ms - $v_ms" 2)
model_disk=$(calc "$("$ppl" --generate model | wc -c) / 1e6" 1)
rss_v=$(med_rss_mb version)
rss_p=$(med_rss_mb perplexity)
out "## Model"
out ""
out "| figure | value | target |"
out "|---|---:|---|"
out "| \`ppl-filter --version\`, median of $MODEL_RUNS | $v_ms ms | |"
out "| \`ppl-filter perplexity \"$sentence\"\`, median of $MODEL_RUNS | $p_ms ms | |"
out "| model ready (load + first score = difference) | $load_ms ms | ≤ $TARGET_MODEL_MS ms: $(awk -v a="$load_ms" -v b="$TARGET_MODEL_MS" 'BEGIN { print (a + 0 <= b + 0) ? "ok" : "MISS" }') |"
out "| model file (\`ppl-filter --generate model\`; packed in the repository) | $model_disk MB | |"
out "| peak RSS: --version / perplexity / difference | $rss_v / $rss_p / $(calc "$rss_p - $rss_v" 1) MB | |"
out "| ppl-filter binary size | $(calc "$(filesize "$ppl") / 1e6" 1) MB | |"
out ""

# ---------------------------------------------------------------------------------------------
# 5. `ppl-eval score` over the 386 CleanEval pairs: bench/score.sh, with the binary built above.
# ---------------------------------------------------------------------------------------------
if [[ "$SCORE" != 0 ]]; then
    progress "ppl-eval score (bench/score.sh, $RUNS runs)"
    score_line=$(DATA="$DATA" PPL_EVAL="$ppl_eval" RUNS="$RUNS" bash bench/score.sh 2>> "$tmp/stderr.log" \
        | grep '^median wall time' || true)
    score_s=$(sed -n 's/.*: \([0-9.]*\) s$/\1/p' <<< "$score_line")
    out "## ppl-eval score"
    out ""
    out "| figure | value | target |"
    out "|---|---:|---|"
    if [[ -n "$score_s" ]]; then
        out "| bench/score.sh: ${score_line%%:*} | $score_s s | ≤ $TARGET_SCORE_S s: $(awk -v a="$score_s" -v b="$TARGET_SCORE_S" 'BEGIN { print (a + 0 <= b + 0) ? "ok" : "MISS" }') |"
    else
        out "| bench/score.sh | failed (see its output) | |"
    fi
    out ""
fi

# ---------------------------------------------------------------------------------------------
# 6. Cores: bench/cores.sh, with the binary built above.
# ---------------------------------------------------------------------------------------------
if [[ "$CORES" != 0 ]]; then
    progress "cores (bench/cores.sh)"
    out "## Cores"
    out ""
    out "Each thread's share of the process's CPU time (bench/threads.py): the busiest thread's share"
    out "caps how many cores a run could use (at 15 %, six or more); the busiest serial thread (reader,"
    out "writer, main) is what Amdahl's law caps a run by. bench/README.md says why the workers' shares"
    out "move from run to run when there are more workers than cores."
    out ""
    if cores_table=$(DATA="$DATA" PPL_FILTER="$ppl" RUNS="$RUNS" bash bench/cores.sh 2>> "$tmp/stderr.log"); then
        out "$cores_table"
    else
        out "bench/cores.sh failed (see its output)"
    fi
    out ""
fi

# ---------------------------------------------------------------------------------------------
# Report: stdout, and bench/results.md with the date and the machine.
# ---------------------------------------------------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
{
    echo "# ppl-filter benchmark results"
    echo ""
    echo "Made by \`bench/run.sh\` (see bench/README.md)."
    echo ""
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- machine: $(nproc) cores (nproc), ${cpu:-unknown CPU}, $(awk '/MemTotal/ { printf "%.1f GB RAM", $2 / 1048576 }' /proc/meminfo)"
    echo "- rustc: $(rustc --version 2>/dev/null || echo unknown)"
    echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src bin Cargo.toml Cargo.lock 2>/dev/null || echo ' (with uncommitted changes)')"
    echo "- load average (1, 5, 15 min) before the measurements: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- settings: SIZE_MB=$SIZE_MB FILES_MB=$FILES_MB RUNS=$RUNS SCALE_MB=\"$SCALE_MB\" MEMORY=$MEMORY MEMORY_MB=\"$MEMORY_MB\" PATHO_PERCENT=$PATHO_PERCENT THREADS=$THREADS PEERS=$PEERS"
    echo "- input: ${#pages[@]} CleanEval pages ($(mb "$one_bytes") MB), stream of $(mb "$stream_bytes") MB, $files_count files of $(mb "$files_bytes") MB in all"
    echo ""
    cat "$report"
} > "$tmp/results.md"
cat "$tmp/results.md"
if [[ -n "$RESULTS" ]]; then
    cp "$tmp/results.md" "$RESULTS"
    progress "written $RESULTS"
fi
