#!/usr/bin/python3
"""Check JSON documents against a fabscope schema with a standard validator.

    check_schema.py SCHEMA [INSTANCE ...]     (INSTANCE "-" is stdin)

Uses Debian's python3-jsonschema (run it with /usr/bin/python3), the validator
class the schema's $schema names (Draft 2020-12 or 7), the format checker, and
cross-file $refs resolved among the *.schema.json files next to SCHEMA.

A schema is refused (exit 2) unless every object schema in it says
additionalProperties or unevaluatedProperties: fabscope's schemas are closed,
so a member fabscope writes and the schema does not describe is an error, and
a schema cannot fall behind the program. A schema applied in place (allOf,
anyOf, oneOf, if, then, else, not) inside one that says it is closed by it:
"if kind is X, evidence is ..." only adds to a closed finding. A format the
checker cannot check is refused too, so no format is silently ignored. With
no INSTANCE only the schema is checked.

Exit: 0 every instance valid, 1 some instance invalid (or not JSON; every
error printed as INSTANCE: JSON-PATH: MESSAGE), 2 unusable schema or usage.
"""

import datetime
import json
import pathlib
import re
import sys
import urllib.parse

import jsonschema
from jsonschema import validators

DRAFTS = {
    "https://json-schema.org/draft/2020-12/schema": jsonschema.Draft202012Validator,
    "http://json-schema.org/draft-07/schema#": jsonschema.Draft7Validator,
}

# RFC 3339 date-time: python3-jsonschema checks it only with rfc3339-validator,
# which Debian does not package; this is the same grammar.
RFC3339 = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def format_checker():
    checker = jsonschema.FormatChecker()

    @checker.checks("date-time", raises=ValueError)
    def is_date_time(value):
        if not isinstance(value, str):
            return True
        if not RFC3339.match(value):
            return False
        datetime.datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
        return True

    return checker


class Unusable(Exception):
    pass


def subschemas(schema):
    """Every schema directly inside `schema` (keywords that hold schemas)."""
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        yield from schema.get(key, {}).values()
    for key in ("items", "additionalProperties", "unevaluatedProperties",
                "additionalItems", "unevaluatedItems", "contains", "not", "if",
                "then", "else", "propertyNames"):
        if isinstance(schema.get(key), dict):
            yield schema[key]
    for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        yield from schema.get(key, [])
    if isinstance(schema.get("items"), list):
        yield from schema["items"]


def is_object_schema(schema):
    t = schema.get("type")
    return t == "object" or (isinstance(t, list) and "object" in t) or "properties" in schema


# Keywords whose schemas apply to the same instance as the schema holding them.
IN_PLACE = ("allOf", "anyOf", "oneOf", "if", "then", "else", "not")


def open_objects(schema, path="#", closed=False):
    """JSON pointers of object schemas that leave their members open. `closed`:
    `schema` applies in place inside one that says additionalProperties or
    unevaluatedProperties, which closes the members of the same instance."""
    if not isinstance(schema, dict):
        return []
    found = []
    says = "additionalProperties" in schema or "unevaluatedProperties" in schema
    if is_object_schema(schema) and not (says or closed):
        found.append(path)
    for key, value in schema.items():
        children = []
        if key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(
                value, dict):
            children = [(f"{key}/{k}", v) for k, v in value.items()]
        elif key in ("allOf", "anyOf", "oneOf", "prefixItems") or (
                key == "items" and isinstance(value, list)):
            children = [(f"{key}/{i}", v) for i, v in enumerate(value)]
        elif isinstance(value, dict) and key in (
                "items", "additionalProperties", "unevaluatedProperties", "additionalItems",
                "unevaluatedItems", "contains", "not", "if", "then", "else", "propertyNames"):
            children = [(key, value)]
        for sub, child in children:
            found += open_objects(child, f"{path}/{sub}", (says or closed) and key in IN_PLACE)
    return found


def formats_used(schema):
    if not isinstance(schema, dict):
        return set()
    found = {schema["format"]} if isinstance(schema.get("format"), str) else set()
    for child in subschemas(schema):
        found |= formats_used(child)
    return found


def refs(schema):
    if not isinstance(schema, dict):
        return []
    found = [schema["$ref"]] if isinstance(schema.get("$ref"), str) else []
    for child in subschemas(schema):
        found += refs(child)
    return found


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def make_validator(schema_path):
    try:
        schema = load_json(schema_path)
    except (OSError, ValueError) as e:
        raise Unusable(f"{schema_path}: {e}") from e
    cls = DRAFTS.get(schema.get("$schema") if isinstance(schema, dict) else None)
    if cls is None:
        raise Unusable(f"{schema_path}: $schema must name Draft 2020-12 or Draft 7")
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise Unusable(f"{schema_path}: not a valid schema: {e.json_path}: {e.message}") from e
    open_ = open_objects(schema)
    if open_:
        raise Unusable(f"{schema_path}: object schemas without additionalProperties or "
                       f"unevaluatedProperties: {', '.join(open_)}")
    checker = format_checker()
    unchecked = sorted(formats_used(schema) - set(checker.checkers))
    if unchecked:
        raise Unusable(f"{schema_path}: formats the checker cannot check: {unchecked}")
    # Every schema of the folder, under its $id and under its file name
    # relative to that $id, so "other.schema.json#/$defs/x" resolves.
    store = {}
    for other in sorted(pathlib.Path(schema_path).resolve().parent.glob("*.schema.json")):
        try:
            doc = load_json(other)
        except (OSError, ValueError) as e:
            raise Unusable(f"{other}: {e}") from e
        base = doc.get("$id", other.as_uri())
        store[base] = doc
        store[urllib.parse.urljoin(base, other.name)] = doc
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)

    def no_fetching(uri):
        folder = pathlib.Path(schema_path).parent
        raise jsonschema.RefResolutionError(f"{uri} is not a schema in {folder}")

    resolver.resolve_remote = no_fetching  # never the network
    for ref in refs(schema):
        try:
            resolver.resolve(ref)
        except jsonschema.RefResolutionError as e:
            raise Unusable(f"{schema_path}: unresolvable $ref {ref}: {e}") from e
    return cls(schema, resolver=resolver, format_checker=checker)


def error_lines(error, indent=""):
    yield f"{indent}{error.json_path}: {error.message}"
    # oneOf/anyOf: why each alternative failed.
    for sub in sorted(error.context or [], key=lambda e: list(e.absolute_path)):
        yield from error_lines(sub, indent + "  ")


def check(validator, name, text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        print(f"{name}: not JSON: {e}")
        return False
    ok = True
    try:
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    except jsonschema.RefResolutionError as e:
        raise Unusable(f"unresolvable $ref: {e}") from e
    for error in errors:
        ok = False
        for line in error_lines(error):
            print(f"{name}: {line}")
    return ok


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        validator = make_validator(argv[1])
        ok = True
        for name in argv[2:]:
            if name == "-":
                ok = check(validator, "<stdin>", sys.stdin.read()) and ok
                continue
            try:
                text = pathlib.Path(name).read_text(encoding="utf-8")
            except OSError as e:
                print(f"{name}: {e}")
                ok = False
                continue
            ok = check(validator, name, text) and ok
    except Unusable as e:
        print(f"unusable schema: {e}", file=sys.stderr)
        return 2
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
