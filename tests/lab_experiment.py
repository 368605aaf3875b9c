# SPDX-License-Identifier: MIT
"""The experiment of a `thpctl lab NAME --json` document, for the live suites' checks
(tests/live/wl_*.sh: `sys.path.insert(0, "tests")` from the repository root, as lib.sh runs)."""
import json


def experiment(path, labels=None, expected_why=None):
    """(e, v, rows, med) of the document at PATH: its first experiment, the verdict, the rows
    ({label: cells}) and med(label, column), a cell's median. Asserts the experiment was not
    skipped; with EXPECTED_WHY, that its verdict is "expected" (the message starts with
    EXPECTED_WHY); with LABELS, that the row labels are exactly these."""
    e = json.load(open(path))["experiments"][0]
    v = e["verdict"]
    assert not v["skipped"], v["text"]
    if expected_why:
        assert v["expected"], f"{expected_why}: {v['text']}"
    rows = {r["label"]: r["cells"] for r in e["rows"]}
    if labels is not None:
        assert sorted(rows) == sorted(labels), sorted(rows)
    return e, v, rows, lambda m, c: rows[m][c]["median"]
