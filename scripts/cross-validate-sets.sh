#!/usr/bin/env bash
# Cross-validates the combined method across several training sets at once, by site. Each set's
# pages (DIR/input/ID.html or ID.html.gz, gold DIR/gold/ID.txt) are dealt into FOLDS folds by
# site by scripts/folds.py, so that the pages of one site (one template) are never on both
# sides of a fold: the site is the host of the page's URL (DIR/pages.tsv, as WCXB has it, or
# CleanEval's <text id="URL">) or the publisher of a Fundus file name; a set with no site known
# (the article sets) deals its pages by name. For each fold, `ppl-filter learn` trains on the other
# folds of every set (one --set per set, in SETS order), the held-out pages are cleaned one by
# one through standard input with that classifier, and each set is scored on its own with
# `ppl-eval score` (its held-out pages of all folds pooled); a set with a pages.tsv is also
# scored with WCXB's measure per kind of page (scripts/score-wcxb.py).
#
# Usage: scripts/cross-validate-sets.sh [-- LEARN_FLAGS...]
#   e.g.  scripts/cross-validate-sets.sh -- --set-balance natural
#         scripts/cross-validate-sets.sh -- --set-weight 2 --set-weight 1 --set-weight 1
#   SETS="NAME=DIR ..."  the sets; default: every set of ../shared/data (tune=cleaneval/tune
#                        l3s-gn1=articles/l3s-gn1 dragnet=articles/dragnet wcxb=wcxb-dev
#                        fundus=fundus; the embedded classifier learns all five)
#   FOLDS=5  JOBS=$(nproc) (learns, then cleanings, run JOBS at a time; a learn searches its
#                        trees' splits on nproc / JOBS threads)
#   THRESHOLDS="-0.5 -1"  also scores each of these decision thresholds (log-odds), without
#                        learning again: the threshold plays no part in training, so the folds'
#                        classifiers are copied with it rewritten (same as learning with
#                        --decision-threshold X)
#   FILTER_FLAGS="..."   extra flags for cleaning     PER_FOLD=1 also prints one row per fold
#   BIN_DIR=DIR          takes ppl-filter and ppl-eval from DIR instead of building them (a copy
#                        keeps a long run safe from rebuilds)
#   KEEP=DIR             keeps classifiers, outputs and scores in DIR
#   REUSE=DIR            takes the folds' classifiers from an earlier KEEP=DIR (same SETS and
#                        FOLDS) instead of learning them (to try THRESHOLDS or FILTER_FLAGS)
#   PAGE_KINDS=DIR       each fold's classifier carries DIR/foldK.json as its page-kind model
#                        (`scripts/learn-page-kinds.sh --folds-out DIR`), so that the kind of a
#                        held-out page is told by a model that never saw its site (without it,
#                        the embedded model, which learned from every shared page, tells them)
# Prints, for each set: pages, Lev macro, Lev micro, word P / R / F micro, word F macro, and
# "empty": held-out pages whose gold has at least 100 words but whose output is empty; then the
# mean over sets of Lev macro and of F micro, WCXB's mean F1 per kind, and how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
d=../shared/data
read -r -a set_specs <<< "${SETS:-tune=$d/cleaneval/tune l3s-gn1=$d/articles/l3s-gn1 dragnet=$d/articles/dragnet wcxb=$d/wcxb-dev fundus=$d/fundus}"
[ "${1:-}" = "--" ] && shift
learn_flags=("$@")
folds=${FOLDS:-5}
jobs=${JOBS:-$(nproc)}
read -r -a thresholds <<< "${THRESHOLDS:-}"
if [ -n "${BIN_DIR:-}" ]; then
  bin=$(realpath "$BIN_DIR")
else
  cargo build --release --locked -q
  bin=$(realpath "${CARGO_TARGET_DIR:-target}/release")
fi
if [ -n "${KEEP:-}" ]; then work=$KEEP; rm -rf "$work"; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
work=$(realpath "$work")
start=$(date +%s.%N)

# The folds: fold$k/train/NAME/{input,gold} link the training pages, fold$k/NAME/gold the
# held-out gold; held.list has "k NAME page.html" for every held-out page.
names=(); dirs=()
: > "$work/held.list"
for spec in "${set_specs[@]}"; do
  name=${spec%%=*}; dir=$(realpath "${spec#*=}")
  names+=("$name"); dirs+=("$dir")
  # "fold<TAB>page file" for every page, dealt by site (see the top of this file).
  mapfile -t dealt < <(python3 scripts/folds.py "$dir" "$folds")
  for ((k = 0; k < folds; k++)); do
    mkdir -p "$work/fold$k/train/$name/input" "$work/fold$k/train/$name/gold" "$work/fold$k/$name/gold"
    train_in=(); train_gold=(); held_gold=()
    for line in "${dealt[@]}"; do
      fold=${line%%$'\t'*}; page=${line#*$'\t'}
      stem=${page%.gz}; stem=${stem%.html}; stem=${stem%.htm}
      [ -f "$dir/gold/$stem.txt" ] || continue
      if [ "$fold" -eq "$k" ]; then
        held_gold+=("$dir/gold/$stem.txt")
        printf '%s\0%s\0%s\0' "$k" "$name" "$dir/input/$page" >> "$work/held.list"
      else
        train_in+=("$dir/input/$page"); train_gold+=("$dir/gold/$stem.txt")
      fi
    done
    if [ ${#train_in[@]} -gt 0 ]; then
      ln -s -t "$work/fold$k/train/$name/input" "${train_in[@]}"
      ln -s -t "$work/fold$k/train/$name/gold" "${train_gold[@]}"
    fi
    [ ${#held_gold[@]} -eq 0 ] || ln -s -t "$work/fold$k/$name/gold" "${held_gold[@]}"
  done
done

# Learning: one `ppl-filter learn` per fold, JOBS at a time; each records its wall time.
learn_fold() {
  local k=$1 dir=$work/fold$1 args=() names learn_flags t0
  read -r -a names <<< "$names_list"
  read -r -a learn_flags <<< "$learn_list"
  for name in "${names[@]}"; do args+=(--set "$dir/train/$name/input" "$dir/train/$name/gold"); done
  t0=$(date +%s.%N)
  if ! "$bin/ppl-filter" learn -j "$learn_threads" "${args[@]}" -o "$dir/classifier" "${learn_flags[@]}" 2> "$dir/learn.log"; then
    cat "$dir/learn.log" >&2; return 255
  fi
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }' > "$dir/learn.seconds"
}
export -f learn_fold
# Arrays do not cross `bash -c`: set names and learn flags travel as words (no spaces in them).
# Each learn searches its trees' splits on its share of the cores (the classifier is the same).
learn_threads=$(( $(nproc) / jobs > 1 ? $(nproc) / jobs : 1 ))
export work bin learn_threads FILTER_FLAGS="${FILTER_FLAGS:-}" names_list="${names[*]}" learn_list="${learn_flags[*]}"
if [ -n "${REUSE:-}" ]; then
  for ((k = 0; k < folds; k++)); do
    cp "$REUSE/fold$k/classifier" "$REUSE/fold$k/learn.seconds" "$work/fold$k/"
  done
else
  seq 0 $((folds - 1)) | xargs -P "$jobs" -I{} bash -c 'learn_fold {}'
fi
# Each fold's page-kind model (PAGE_KINDS=DIR), carried in its classifier (`page_kinds`).
if [ -n "${PAGE_KINDS:-}" ]; then
  for ((k = 0; k < folds; k++)); do
    python3 - "$work/fold$k/classifier" "$PAGE_KINDS/fold$k.json" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
head, rest = data.split(b"\n", 1)
magic, version, length = head.split(b" ")
weights = json.loads(rest[: int(length)])
weights["page_kinds"] = json.load(open(sys.argv[2]))
text = json.dumps(weights, separators=(",", ":")).encode()
open(sys.argv[1], "wb").write(b"%s %s %d\n" % (magic, version, len(text)) + text + rest[int(length):])
PY
  done
fi
learned=$(date +%s.%N)

# Variants: "learned" (each fold's classifier as learned), then one per extra threshold.
variants=(learned)
for t in "${thresholds[@]}"; do
  variants+=("t$t")
  for ((k = 0; k < folds; k++)); do
    python3 - "$work/fold$k/classifier" "$work/fold$k/classifier.t$t" "$t" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
head, rest = data.split(b"\n", 1)
magic, version, length = head.split(b" ")
weights = json.loads(rest[: int(length)])
weights["threshold"] = float(sys.argv[3])
text = json.dumps(weights, separators=(",", ":")).encode()
open(sys.argv[2], "wb").write(b"%s %s %d\n" % (magic, version, len(text)) + text + rest[int(length):])
PY
  done
done

# Cleaning: every held-out page on its own, through standard input, JOBS at a time.
for variant in "${variants[@]}"; do
  suffix=; [ "$variant" = learned ] || suffix=.$variant
  while IFS= read -r -d '' k && IFS= read -r -d '' name && IFS= read -r -d '' page; do
    mkdir -p "$work/$variant/$name/out"
    stem=$(basename "$page"); stem=${stem%.gz}; stem=${stem%.html}; stem=${stem%.htm}
    printf '%s\0%s\0%s\0' "$work/fold$k/classifier$suffix" "$page" "$work/$variant/$name/out/$stem.txt"
  done < "$work/held.list"
done > "$work/clean.list"
# shellcheck disable=SC2016
xargs -0 -n3 -P "$jobs" sh -c '"$0" -j1 --classifier "$1" $FILTER_FLAGS < "$2" > "$3" 2>/dev/null || true' "$bin/ppl-filter" \
  < "$work/clean.list"
cleaned=$(date +%s.%N)

# Scoring: each set pooled over its folds (and fold by fold with PER_FOLD).
for variant in "${variants[@]}"; do
  for name in "${names[@]}"; do
    dir=$work/$variant/$name
    mkdir -p "$dir/gold"
    for ((k = 0; k < folds; k++)); do
      [ -n "$(ls -A "$work/fold$k/$name/gold")" ] || continue
      cp -P "$work/fold$k/$name/gold/"* "$dir/gold/"
      if [ -n "${PER_FOLD:-}" ]; then
        mkdir -p "$dir/fold$k/out"
        for gold in "$work/fold$k/$name/gold/"*; do ln -s "$dir/out/$(basename "$gold")" "$dir/fold$k/out/"; done
        "$bin/ppl-eval" score "$dir/fold$k/out" "$work/fold$k/$name/gold" --json "$dir/fold$k/score.json" \
          --tsv "$dir/fold$k/score.tsv" > /dev/null
      fi
    done
    "$bin/ppl-eval" score "$dir/out" "$dir/gold" --json "$dir/score.json" --tsv "$dir/score.tsv" > /dev/null
  done
done
python3 - "$work" "$folds" "${PER_FOLD:-}" "$start" "$learned" "$cleaned" "${#names[@]}" "${names[@]}" "${variants[@]}" <<'PY'
import csv, json, os, sys
work, folds, per_fold, start, learned, cleaned = sys.argv[1], int(sys.argv[2]), sys.argv[3], *map(float, sys.argv[4:7])
n = int(sys.argv[7])
names, variants = sys.argv[8 : 8 + n], sys.argv[8 + n :]
def row(label, d):
    s = json.load(open(f"{d}/score.json"))
    with open(f"{d}/score.tsv") as f:
        empty = sum(1 for r in csv.DictReader(f, delimiter="\t") if int(r["gold_words"]) >= 100 and int(r["cleaned_words"]) == 0)
    print(f"{label:<10} {s['pages']:>5} {s['lev_macro']:7.2f} {s['lev_micro']:7.2f} {s['text_p_micro']:7.2f} "
          f"{s['text_r_micro']:7.2f} {s['text_f_micro']:7.2f} {s['text_f_macro']:7.2f} {empty:>5}")
    return s
head = f"{'':<10} {'pages':>5} {'Lev_mac':>7} {'Lev_mic':>7} {'P_mic':>7} {'R_mic':>7} {'F_mic':>7} {'F_mac':>7} {'empty':>5}"
for variant in variants:
    if len(variants) > 1:
        print(f"#### threshold {'as learned' if variant == 'learned' else variant[1:]}")
    summary = []
    for name in names:
        if per_fold:
            print(f"== {name}")
            print(head)
            for k in range(folds):
                try:
                    row(f"fold {k}", f"{work}/{variant}/{name}/fold{k}")
                except FileNotFoundError:
                    pass
            summary.append(row("all", f"{work}/{variant}/{name}"))
        else:
            if not summary:
                print(f"{'set':<10}" + head[10:])
            summary.append(row(name, f"{work}/{variant}/{name}"))
    lev = sum(s["lev_macro"] for s in summary) / len(summary)
    f = sum(s["text_f_micro"] for s in summary) / len(summary)
    print(f"mean over {len(summary)} sets: Lev macro {lev:.2f}, F micro {f:.2f}, their mean {(lev + f) / 2:.2f}")
reused = f" of {os.environ['REUSE']} (reused)" if os.environ.get("REUSE") else ""
seconds = [float(open(f"{work}/fold{k}/learn.seconds").read()) for k in range(folds)]
print(f"time: learning {learned - start:.0f} s wall ({', '.join(f'{s:.0f}' for s in seconds)} s per fold{reused}), "
      f"cleaning {cleaned - learned:.0f} s, total {cleaned - start:.0f} s")
PY
for variant in "${variants[@]}"; do
  for i in "${!names[@]}"; do
    [ -f "${dirs[$i]}/pages.tsv" ] || continue
    echo "WCXB mean word F1 by kind, ${names[$i]}, threshold ${variant/#t/}:"
    python3 scripts/score-wcxb.py "$work/$variant/${names[$i]}/out" "${dirs[$i]}/gold" "${dirs[$i]}/pages.tsv"
  done
done
