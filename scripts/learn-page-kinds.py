#!/usr/bin/env python3
"""Learns the page-kind model (model/page-kinds.json) from what each page shows of its kind.

The pages: the WCXB development pages (seven kinds, from pages.tsv) and the news pages of the
article sets and Fundus (articles). Their evidence is printed by the `page_evidence` example
(`cargo run --release --example page_evidence -- PAGE... > SET.tsv`); this script reads those
rows, learns a multinomial logistic regression (L2, standardised values, pages weighed by
--weight per set), and

  * cross-validates it by site, with the folds of scripts/cross-validate-sets.sh
    (scripts/folds.py: the pages of one site never on both sides), printing the confusion matrix of the kind each WCXB page is
    decided as: the kind it declares (the rules of src/evidence/kind.rs), else the model's,
    else `other` below --min-probability;
  * writes the model learned on every page (-o), and with --folds-out DIR one model per fold,
    learned without that fold's pages (DIR/foldK.json), for the cross-validation of the
    classifier that reads its kinds.

Usage: scripts/learn-page-kinds.py [-o model/page-kinds.json] [--folds-out DIR]
           SET=EVIDENCE.tsv[:WEIGHT]...     (SET: wcxb, or any other name: all articles)
Needs numpy. SET names a folder of ../shared/data for its sites: wcxb=wcxb-dev,
fundus=fundus, l3s-gn1=articles/l3s-gn1, dragnet=articles/dragnet.
"""
import argparse, csv, json, os, re, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from folds import folds_of  # noqa: E402  (scripts/folds.py, the folds of every script)

KINDS = ["article", "forum", "product", "collection", "listing", "documentation", "service"]
DIRS = {"wcxb": "wcxb-dev", "fundus": "fundus", "l3s-gn1": "articles/l3s-gn1", "dragnet": "articles/dragnet"}


def read(spec, data, folds):
    name, rest = spec.split("=", 1)
    path, _, weight = rest.partition(":")
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    evidence = [c for c in rows[0] if c not in ("page", "declared")]
    data_dir = f"{data}/{DIRS.get(name, name)}"
    kinds = {}
    if name == "wcxb":
        for line in open(f"{data_dir}/pages.tsv"):
            cols = line.rstrip("\n").split("\t")
            if cols[0] != "id":
                kinds[cols[0]] = cols[1]
    dealt = folds_of(data_dir, folds)
    fold = {r["page"]: dealt[os.path.basename(r["page"])] for r in rows}
    pages = []
    for r in rows:
        stem = re.sub(r"\.html?(\.gz)?$", "", os.path.basename(r["page"]))
        kind = kinds.get(stem, "article") if name == "wcxb" else "article"
        pages.append(dict(set=name, page=r["page"], declared=r["declared"], kind=kind, fold=fold[r["page"]],
                          weight=float(weight or 1), x=[float(r[c]) for c in evidence]))
    return evidence, pages


def fit(x, y, w, l2, iterations=2000):
    """Multinomial logistic regression on standardised x (Newton-free: L-BFGS-like steps are
    not needed at this size; plain gradient descent with a fixed step converges)."""
    mean = np.average(x, axis=0, weights=w)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=w))
    scale[scale < 1e-6] = 1.0
    z = (x - mean) / scale
    n, d = z.shape
    k = len(KINDS)
    W = np.zeros((k, d)); b = np.zeros(k)
    Y = np.eye(k)[y]
    wn = w / w.sum()
    lr = 0.5
    for _ in range(iterations):
        logits = z @ W.T + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits); p /= p.sum(axis=1, keepdims=True)
        g = (p - Y) * wn[:, None]
        W -= lr * (g.T @ z + l2 * W / n)
        b -= lr * g.sum(axis=0)
    return mean, scale, W, b


def probabilities(model, x):
    mean, scale, W, b = model
    logits = ((x - mean) / scale) @ W.T + b
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def to_json(model, evidence, a, provenance):
    mean, scale, W, b = model
    r = lambda v: [round(float(v), 6) for v in v]
    return {"evidence": evidence, "kinds": KINDS, "mean": r(mean), "scale": r(scale),
            "weights": [r(row) for row in W], "bias": r(b), "min_probability": a.min_probability,
            "declared_overruled_at": a.declared_overruled_at, "provenance": provenance}


def told_kind(declared, p, a):
    """The kind the decider tells (src/evidence/kind.rs, tell_kind): the declared one, unless
    it is an article or a home page's service and the model is sure enough of another; else
    the model's likeliest if likely enough."""
    likeliest = KINDS[p.argmax()]
    if declared in ("article", "service") and a.declared_overruled_at is not None and p.max() >= a.declared_overruled_at:
        return likeliest
    if declared != "other":
        return declared
    return likeliest if p.max() >= a.min_probability else "other"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="+")
    ap.add_argument("-o", "--output")
    ap.add_argument("--folds-out")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--min-probability", type=float, default=0.4)
    ap.add_argument("--declared-overruled-at", type=float, default=0.5,
                    help="a page declared an article or a service is told another kind this sure (above 1: never)")
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "../../shared/data"))
    a = ap.parse_args()
    pages, evidence = [], None
    for spec in a.sets:
        evidence, more = read(spec, a.data, a.folds)
        pages += more
    x = np.array([p["x"] for p in pages]); y = np.array([KINDS.index(p["kind"]) for p in pages])
    w = np.array([p["weight"] for p in pages]); fold = np.array([p["fold"] for p in pages])
    told = [None] * len(pages)
    for k in range(a.folds):
        train = fold != k
        model = fit(x[train], y[train], w[train], a.l2)
        held = np.where(~train)[0]
        prob = probabilities(model, x[held])
        for i, p in zip(held, prob):
            told[i] = told_kind(pages[i]["declared"], p, a)
        if a.folds_out:
            os.makedirs(a.folds_out, exist_ok=True)
            json.dump(to_json(model, evidence, a, f"fold {k} of {a.folds}"),
                      open(f"{a.folds_out}/fold{k}.json", "w"))
    cols = KINDS + ["other"]
    for name in sorted({p["set"] for p in pages}):
        idx = [i for i, p in enumerate(pages) if p["set"] == name]
        print(f"{name}: {len(idx)} pages, cross-validated by site (rows: the page's kind; columns: told as)")
        print(f"{'':<14}" + "".join(f"{c[:6]:>7}" for c in cols) + "  right")
        for kind in KINDS:
            rows = [i for i in idx if pages[i]["kind"] == kind]
            if not rows:
                continue
            counts = [sum(1 for i in rows if told[i] == c) for c in cols]
            print(f"{kind:<14}" + "".join(f"{c:>7}" for c in counts) + f"  {counts[KINDS.index(kind)] / len(rows):.2f}")
        right = sum(1 for i in idx if told[i] == pages[i]["kind"])
        print(f"right: {right} of {len(idx)} ({right / len(idx):.3f})\n")
    if a.output:
        model = fit(x, y, w, a.l2)
        sets = ", ".join(f"{s} {sum(1 for p in pages if p['set'] == s)}" for s in dict.fromkeys(p["set"] for p in pages))
        json.dump(to_json(model, evidence, a,
                          f"scripts/learn-page-kinds.py: multinomial logistic regression, l2 {a.l2}; pages: {sets}"),
                  open(a.output, "w"), indent=None)


if __name__ == "__main__":
    main()
