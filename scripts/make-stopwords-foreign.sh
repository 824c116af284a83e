#!/bin/sh
# Derives src/stopwords_foreign.txt, the stopwords of languages other than English that the
# evidence stage counts (`foreign_stopword_share`, src/evidence/measure.rs), from jusText's
# stoplists (jusText 3.0.2 from PyPI, BSD 2-Clause licence; each list holds the most frequent
# words of one language's Wikipedia, most frequent first).
#
# Method: the first N words of every list but English and Simple English, lower-cased, without
# the words of the English list (src/stopwords_en.txt, counted as English already), each once,
# sorted. The licence's notice is copied into the list's header, as it asks.
#
# Usage (from the repository root): scripts/make-stopwords-foreign.sh [N]   (default 100)
# Needs python3 and pip (downloads the jusText wheel, about 0.9 MB, into a temporary directory).
set -eu
cd "$(dirname "$0")/.."
N="${1:-100}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps --only-binary :all: justext==3.0.2 -d "$tmp"
python3 - "$tmp" "$N" src/stopwords_en.txt src/stopwords_foreign.txt <<'PY'
import glob, os, sys, zipfile
tmp, n, english, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
wheel = zipfile.ZipFile(glob.glob(os.path.join(tmp, "justext-3.0.2-*.whl"))[0])
lists = sorted(f for f in wheel.namelist() if f.startswith("justext/stoplists/") and f.endswith(".txt"))
licence = wheel.read("justext-3.0.2.dist-info/LICENSE.rst").decode("utf-8").rstrip("\n")
skip = {"English", "Simple_English"}
english_words = {w.strip() for w in open(english, encoding="utf-8") if w.strip() and not w.startswith("#")}
words, languages = set(), []
for name in lists:
    language = os.path.basename(name)[: -len(".txt")]
    if language in skip:
        continue
    languages.append(language)
    top = [w.strip().lower() for w in wheel.read(name).decode("utf-8").splitlines() if w.strip()][:n]
    words.update(w for w in top if w not in english_words and not w.startswith("#"))
# The evidence stage skips the look-up of an ASCII word without a letter (src/evidence/measure.rs).
assert all(any(c.isalpha() for c in w) for w in words if w.isascii()), "an ASCII word without a letter"

with open(out, "w", encoding="utf-8") as f:
    f.write("# Stopwords of languages other than English: made by scripts/make-stopwords-foreign.sh.\n")
    f.write(f"# The first {n} words of each of jusText 3.0.2's stoplists for {len(languages)} languages\n")
    f.write("# (English and Simple English left out, and the words of src/stopwords_en.txt), lower-cased,\n")
    f.write(f"# sorted: {len(words)} words. jusText's stoplists are distributed under this licence:\n#\n")
    for line in licence.splitlines():
        f.write(("# " + line).rstrip() + "\n")
    for w in sorted(words):
        f.write(w + "\n")
print(f"{out}: {len(words)} words from {len(languages)} languages")
PY
