#!/usr/bin/env bash
# bench/pair.sh — time two whole-process commands pair by pair, alternately.
#
#   bench/pair.sh [-n RUNS] [-w WARMUP] [--stdin FILE] [--timeout SECONDS] [--ok-status N] \
#                 --vs 'COMMAND B' -- COMMAND A...
#
# Runs A and B one after the other RUNS times (default 11), the order swapped every pair (A B,
# B A, A B, …) so that neither always runs first, after WARMUP untimed pairs (default 1). It
# prints, for each command, the minimum, median and maximum wall seconds, and the ratio A/B of
# each pair's two times: their median (the figure to quote), their minimum and maximum, and the
# median's inverse B/A. A ratio taken within a pair stays meaningful while the machine's speed
# drifts (a shared host's load moves both runs of a pair alike); two medians taken in turn do not.
#
# COMMAND A is the words after `--`; COMMAND B is one string, read by bash (so it may hold
# quotes, pipes and redirections). Both run under `bash -c`, so both pay the same start-up.
# Their standard output is discarded; standard input is FILE with --stdin, else /dev/null; the
# standard error of the last run of each goes to a temporary file, shown when a run fails.
# A run whose exit status is above N (--ok-status, default 0), or that outlasts --timeout
# SECONDS (coreutils `timeout`; none by default), ends the script with status 2.
#
# Each pair is one line on stderr; the summary goes to stdout. Times come from bash's clock
# ($EPOCHREALTIME, microseconds; `date +%s%N` with a bash older than 5); the arithmetic is bash's
# integer arithmetic on microseconds, so nothing beyond bash and coreutils is needed.
#
# Example (a check of the script itself: A/B should come out near 0.5):
#   bench/pair.sh -n 5 --vs 'sleep 0.2' -- sleep 0.1
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { printf 'bench/pair.sh: %s\n' "$*" >&2; exit 2; }

runs=11 warmup=1 stdin=/dev/null timeout_s= ok_status=0 cmd_b=
while (($#)); do
    case $1 in
        -n) (($# >= 2)) || die "-n needs a number"; runs=$2; shift 2 ;;
        -n*) runs=${1#-n}; shift ;;
        -w|--warmup) (($# >= 2)) || die "$1 needs a number"; warmup=$2; shift 2 ;;
        --stdin) (($# >= 2)) || die "--stdin needs a file"; stdin=$2; shift 2 ;;
        --timeout) (($# >= 2)) || die "--timeout needs seconds"; timeout_s=$2; shift 2 ;;
        --ok-status) (($# >= 2)) || die "--ok-status needs a number"; ok_status=$2; shift 2 ;;
        --vs) (($# >= 2)) || die "--vs needs a command"; cmd_b=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        --) shift; break ;;
        *) die "unknown argument '$1' (COMMAND A goes after --; --help says more)" ;;
    esac
done
(($# > 0)) || die "no COMMAND A after --"
[[ -n $cmd_b ]] || die "no COMMAND B (--vs 'COMMAND B')"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n must be a positive whole number, not '$runs'"
[[ $warmup =~ ^[0-9]+$ ]] || die "-w must be a whole number, not '$warmup'"
[[ $ok_status =~ ^[0-9]+$ ]] || die "--ok-status must be a whole number, not '$ok_status'"
[[ -r $stdin ]] || die "cannot read --stdin file '$stdin'"
cmd_a=("$@")

now=0
now_us() {  # sets now: microseconds since 1970 (no subshell, so no fork inside the timing)
    if [[ -n ${EPOCHREALTIME:-} ]]; then
        local t=${EPOCHREALTIME//[!0-9]/}   # the decimal point is the locale's: keep the digits
        now=$((10#$t))
    else
        local t
        t=$(date +%s%N)
        now=$((10#$t / 1000))
    fi
}
secs() {  # secs MICROSECONDS → seconds with 3 decimals
    local us=$1
    printf '%d.%03d' $((us / 1000000)) $(((us % 1000000 + 500) / 1000))
}
ratio() {  # ratio MILLIONTHS → the number with 3 decimals
    local m=$1
    printf '%d.%03d' $((m / 1000000)) $(((m % 1000000 + 500) / 1000))
}
median() {  # median INTEGERS... (sorted numerically by coreutils sort)
    local sorted n
    mapfile -t sorted < <(printf '%s\n' "$@" | sort -n)
    n=${#sorted[@]}
    if ((n % 2)); then echo "${sorted[n / 2]}"; else echo $(((sorted[n / 2 - 1] + sorted[n / 2]) / 2)); fi
}
min_of() { printf '%s\n' "$@" | sort -n | head -n 1; }
max_of() { printf '%s\n' "$@" | sort -n | tail -n 1; }

errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT
limit=()
[[ -n $timeout_s ]] && limit=(timeout "$timeout_s")

elapsed=0
run() {  # run A|B — one timed run; sets elapsed (microseconds)
    local which=$1 start status=0
    now_us; start=$now
    if [[ $which == A ]]; then
        "${limit[@]}" bash -c 'exec "$@"' pair-a "${cmd_a[@]}" < "$stdin" > /dev/null 2> "$errlog" || status=$?
    else
        "${limit[@]}" bash -c "$cmd_b" < "$stdin" > /dev/null 2> "$errlog" || status=$?
    fi
    now_us
    if ((status > ok_status)); then
        tail -n 5 "$errlog" >&2
        if [[ -n $timeout_s ]] && ((status == 124)); then
            die "command $which took more than $timeout_s s"
        fi
        die "command $which exited with status $status"
    fi
    elapsed=$((now - start))
}

for ((i = 1; i <= warmup; i++)); do
    run A; run B
    printf 'warm-up %d/%d done\n' "$i" "$warmup" >&2
done

times_a=() times_b=() ratios=()
for ((i = 1; i <= runs; i++)); do
    if ((i % 2)); then
        run A; a=$elapsed; run B; b=$elapsed
    else
        run B; b=$elapsed; run A; a=$elapsed
    fi
    ((b > 0)) || b=1
    r=$((a * 1000000 / b))
    times_a+=("$a") times_b+=("$b") ratios+=("$r")
    printf 'pair %d/%d: A %s s, B %s s, A/B %s\n' "$i" "$runs" "$(secs "$a")" "$(secs "$b")" "$(ratio "$r")" >&2
done

med_r=$(median "${ratios[@]}")
((med_r > 0)) || med_r=1
shown_a=$(printf '%q ' "${cmd_a[@]}")
printf 'A: %s\n' "${shown_a% }"
printf 'B: %s\n' "$cmd_b"
printf '%d pairs (after %d warm-up pairs), wall seconds:\n' "$runs" "$warmup"
printf '   min      median   max\n'
printf 'A  %-8s %-8s %s\n' "$(secs "$(min_of "${times_a[@]}")")" "$(secs "$(median "${times_a[@]}")")" "$(secs "$(max_of "${times_a[@]}")")"
printf 'B  %-8s %-8s %s\n' "$(secs "$(min_of "${times_b[@]}")")" "$(secs "$(median "${times_b[@]}")")" "$(secs "$(max_of "${times_b[@]}")")"
printf 'A/B, median of the per-pair ratios: %s (min %s, max %s); B/A %s\n' \
    "$(ratio "$med_r")" "$(ratio "$(min_of "${ratios[@]}")")" "$(ratio "$(max_of "${ratios[@]}")")" \
    "$(ratio $((1000000000000 / med_r)))"
