#!/bin/sh
# Derives src/stopwords_en.txt, the English stopword list of the jusText-style baseline
# (src/stopwords.rs; used by the evidence stage and src/eval/baseline.rs), from the project's English corpus ../shared/corpus/en/*.txt.gz
# (English Wikipedia, CC BY-SA 3.0).
#
# Method (the same kind of list as jusText's own, which holds the most frequent tokens of
# English Wikipedia): split every line on whitespace exactly as jusText counts words
# (Python str.split(), so punctuation stays attached: "however," is its own token), lower-case
# each token, keep tokens with at least one letter, rank by frequency (ties by the token), and
# keep the top N. N = 410 makes the list's token density on the corpus (share of all tokens that
# are in the list) match that of jusText 3.0.2's English stoplist, 0.5136 vs 0.5133, so
# jusText's thresholds stopwords_low 0.30 / stopwords_high 0.32 keep their meaning.
#
# Usage (from the repository root): scripts/make-stopwords.sh [N] [COMPARE_LIST]
#   N             how many words to keep (default 410)
#   COMPARE_LIST  optional other list (one word a line, e.g. jusText's stoplists/English.txt):
#                 its density on the same corpus is printed too.
# Needs python3; reads about 230 MB of text (about a minute).
set -eu
cd "$(dirname "$0")/.."
N="${1:-410}"
COMPARE="${2:-}"
CORPUS=../shared/corpus/en
OUT=src/stopwords_en.txt
[ -d "$CORPUS" ] || { echo "make-stopwords: $CORPUS not found" >&2; exit 1; }

python3 - "$CORPUS" "$N" "$OUT" "$COMPARE" <<'PY'
import collections, glob, gzip, os, re, sys

corpus, n, out, compare = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
counts = collections.Counter()
total = 0
for path in sorted(glob.glob(os.path.join(corpus, "*.txt.gz"))):
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            tokens = line.lower().split()
            total += len(tokens)
            counts.update(tokens)
has_letter = re.compile(r"[^\W\d_]")
ranked = sorted((w for w in counts if has_letter.search(w)), key=lambda w: (-counts[w], w))
words = ranked[:n]
density = sum(counts[w] for w in words) / total
with open(out, "w", encoding="utf-8") as fh:
    fh.write("# English stopwords for the jusText-style baseline: made by scripts/make-stopwords.sh.\n")
    fh.write("# The %d most frequent lower-cased whitespace tokens (with a letter) of shared/corpus/en\n" % n)
    fh.write("# (English Wikipedia, CC BY-SA 3.0), most frequent first; density on it %.4f.\n" % density)
    for w in words:
        fh.write(w + "\n")
print("tokens %d, list of %d words, density %.4f -> %s" % (total, len(words), density, out))
if compare:
    with open(compare, encoding="utf-8") as fh:
        other = {w.strip().lower() for w in fh if w.strip()}
    print("%s: %d words, density %.4f" % (compare, len(other), sum(counts[w] for w in other) / total))
PY
