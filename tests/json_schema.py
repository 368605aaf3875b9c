#!/usr/bin/env python3
"""Validate thpctl's --json documents against docs/json/ (tests/json_schema.sh runs it).

  json_schema.py SCHEMA_DIR DOC_DIR [--some-runs | --runs-only]

DOC_DIR holds N.json (stdout of one run: a document, or JSON lines) and N.args (its
arguments). Each document's first key must be "schema": "thpctl.NAME/1"; it is validated
against SCHEMA_DIR/NAME.json, whose command part must be the command run. Prints one
"ok - ..." / "not ok - ..." line per document, then one per schema file: used by some run
(with --some-runs, when the root-only runs were not made, an unused one is a skip; with
--runs-only, for a suite that validates what it ran, none).
"""
import json
import os
import re
import sys

import jsonschema

ID = re.compile(r"^thpctl\.([a-z][a-z0-9-]*)((?:\.[a-z][a-z0-9-]*)?)/([0-9]+)$")
SCHEMA_VERSION = "1"


def docs_of(text):
    """The documents in TEXT: one (indented) document, or one per line (JSON lines)."""
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def command_of(args):
    """The command word of a run's arguments (after --sysroot DIR)."""
    words = args.split()
    i = 0
    while i < len(words) and words[i].startswith("--"):
        i += 2 if words[i] == "--sysroot" else 1
    return words[i] if i < len(words) else "?"


def load_schemas(sdir):
    out = {}
    for f in sorted(os.listdir(sdir)):
        if not f.endswith(".json"):
            continue
        with open(os.path.join(sdir, f), encoding="utf-8") as fh:
            s = json.load(fh)
        cls = jsonschema.validators.validator_for(s)
        cls.check_schema(s)
        out[f[:-5]] = cls(s)
    return out


def check(name, doc, cmd, schemas, used):
    """Problems of one document, as a list of strings (empty: valid)."""
    if not isinstance(doc, dict) or not doc:
        return ["not a JSON object"]
    first = next(iter(doc))
    if first != "schema":
        return ['first key is "%s", not "schema"' % first]
    m = ID.match(str(doc["schema"]))
    if not m:
        return ['"schema": "%s" is not thpctl.CMD[.VARIANT]/N' % doc["schema"]]
    if m.group(1) != cmd:
        return ['"schema": "%s" from command %s' % (doc["schema"], cmd)]
    if m.group(3) != SCHEMA_VERSION:
        return ["schema version %s, expected %s" % (m.group(3), SCHEMA_VERSION)]
    key = m.group(1) + m.group(2)
    if key not in schemas:
        return ["no schema file for %s (docs/json/%s.json)" % (doc["schema"], key)]
    used.add(key)
    errs = sorted(schemas[key].iter_errors(doc), key=lambda e: list(e.absolute_path))
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(root)", e.message[:300])
            for e in errs[:5]]


def main():
    sdir, ddir = sys.argv[1], sys.argv[2]
    some_runs = len(sys.argv) > 3 and sys.argv[3] == "--some-runs"
    runs_only = len(sys.argv) > 3 and sys.argv[3] == "--runs-only"
    try:
        schemas = load_schemas(sdir)
    except (ValueError, jsonschema.exceptions.SchemaError) as e:
        print("not ok - schemas load: %s" % str(e).splitlines()[0])
        return 1
    used, bad = set(), 0
    runs = sorted((f[:-5] for f in os.listdir(ddir) if f.endswith(".args")), key=int)
    for n in runs:
        with open(os.path.join(ddir, n + ".args"), encoding="utf-8") as fh:
            args = fh.read().strip()
        with open(os.path.join(ddir, n + ".json"), encoding="utf-8") as fh:
            text = fh.read()
        try:
            docs = docs_of(text)
        except json.JSONDecodeError as e:
            print("not ok - %s: not JSON: %s" % (args, e))
            bad += 1
            continue
        probs = []
        for i, d in enumerate(docs):
            probs += ["doc %d: %s" % (i + 1, p) if len(docs) > 1 else p
                      for p in check(args, d, command_of(args), schemas, used)]
        if probs:
            bad += 1
            print("not ok - %s: %s" % (args, " | ".join(probs)))
        else:
            ids = sorted({d["schema"] for d in docs})
            print("ok - %s (%s, %d document%s)" % (args, ",".join(ids), len(docs),
                                                   "" if len(docs) == 1 else "s"))
    for key in sorted(schemas) if not runs_only else []:
        if key in used:
            print("ok - schema %s.json validated a run" % key)
        elif some_runs:
            print("skip - schema %s.json: not every run was made here" % key)
        else:
            bad += 1
            print("not ok - schema %s.json: no run here printed thpctl.%s/1" % (key, key))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
