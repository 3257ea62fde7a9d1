"""A minimal JSON-schema instance generator and validator for the subset our prompts use.

Supports object / string / array / integer / number / boolean / null, enum, const, anyOf / oneOf,
min/maxLength, min/maxItems, minimum / maximum, required, additionalProperties: false.
(No new test dependency for this: ``jsonschema`` is not installed.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Schema = Mapping[str, Any]


def _type_of(schema: Schema) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]: take the first non-null
        kind = next((k for k in kind if k != "null"), "null")
    return kind


def instance(schema: Schema, seed: str = "x") -> Any:
    """A deterministic valid instance of ``schema``; ``seed`` flavours the strings."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return instance(schema[key][0], seed)
    kind = _type_of(schema)
    if kind == "object" or (kind is None and "properties" in schema):
        props: Mapping[str, Schema] = schema.get("properties", {})
        return {name: instance(sub, f"{seed}-{name}") for name, sub in props.items()}
    if kind == "array":
        low = int(schema.get("minItems", 1))
        high = int(schema.get("maxItems", max(low, 2)))
        count = max(low, min(2, high))
        items = schema.get("items", {"type": "string"})
        return [instance(items, f"{seed}{i}") for i in range(count)]
    if kind == "string":
        low, high = int(schema.get("minLength", 0)), int(schema.get("maxLength", 1000))
        text = f"sample {seed}"[:high]
        return text + "x" * max(0, low - len(text))
    if kind in ("integer", "number"):
        bound = schema.get("minimum", schema.get("maximum", 1))
        return int(bound) if kind == "integer" else float(bound)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "sample"  # {} accepts anything


def errors(value: Any, schema: Schema, path: str = "$") -> list[str]:
    """Everything wrong with ``value`` under ``schema`` (empty list: valid)."""
    if "const" in schema:
        return [] if value == schema["const"] else [f"{path}: expected {schema['const']!r}"]
    if "enum" in schema:
        return [] if value in schema["enum"] else [f"{path}: {value!r} not in {schema['enum']!r}"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [errors(value, sub, path) for sub in schema[key]]
            return [] if any(not e for e in options) else [f"{path}: matches no option of {key}"]
    kinds = schema.get("type")
    if kinds is None:
        kinds = ["object"] if "properties" in schema else []
    elif not isinstance(kinds, list):
        kinds = [kinds]
    if kinds and not any(_is(value, k) for k in kinds):
        return [f"{path}: {value!r} is not of type {kinds}"]
    found: list[str] = []
    if isinstance(value, dict):
        props: Mapping[str, Schema] = schema.get("properties", {})
        found += [f"{path}: missing {name!r}" for name in schema.get("required", []) if name not in value]
        if schema.get("additionalProperties") is False:
            found += [f"{path}: unexpected {name!r}" for name in value if name not in props]
        for name, sub in props.items():
            if name in value:
                found += errors(value[name], sub, f"{path}.{name}")
    elif isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            found.append(f"{path}: {len(value)} items out of bounds")
        for i, item in enumerate(value):
            found += errors(item, schema.get("items", {}), f"{path}[{i}]")
    elif isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", len(value)):
            found.append(f"{path}: length {len(value)} out of bounds")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{path}: {value} < minimum")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{path}: {value} > maximum")
    return found


def _is(value: Any, kind: str) -> bool:
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "null": value is None,
    }.get(kind, True)
