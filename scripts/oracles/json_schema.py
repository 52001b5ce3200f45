#!/usr/bin/env python3
"""Validates `decode --json` documents against schemas/decode.schema.json with the `jsonschema` package
(the Python reference implementation of JSON Schema, draft 2020-12): an implementation independent of the
Rust code that writes the documents (crates/frames/tests/json_schema.rs).

Input: JSON lines, one document each. Output: one JSON line per input {"i": n, "errors": ["<message> at
<path>", ...]} (empty when the document is valid). Exit status 2 when the schema itself is not a valid
draft 2020-12 schema.
"""
import json
import pathlib
import sys

import jsonschema

SCHEMA = pathlib.Path(__file__).resolve().parents[2] / "schemas" / "decode.schema.json"


def main(path):
    schema = json.loads(SCHEMA.read_text())
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        print(f"{SCHEMA}: not a valid draft 2020-12 schema: {e.message}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    with open(path) as f:
        for i, line in enumerate(f):
            doc = json.loads(line)
            errors = [f"{e.message} at /{'/'.join(str(p) for p in e.absolute_path)}" for e in validator.iter_errors(doc)]
            print(json.dumps({"i": i, "errors": errors}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
