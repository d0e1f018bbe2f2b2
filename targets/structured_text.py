"""
Reading the YAML and JSON files users write (hardware descriptions, sweep files)
with the meaning the standards give them, and refusing what they forbid.

- A file whose name ends in `.json` is read as JSON (Python's `json`), and so is
  any other file that is a JSON document: YAML 1.2 is a superset of JSON, so a
  YAML file may be plain JSON, tab-indented or with exponents (`1e2`), and it
  means what JSON says it means. `NaN` and `Infinity`, which Python's `json`
  accepts but JSON does not, are refused.
- Anything else is read as YAML 1.2 (its core schema): `1e2` is the float 100
  (PyYAML's YAML 1.1 resolver reads it as the string "1e2"), `yes`/`on` are
  strings (only `true`/`false` are booleans), `0o17` is octal and `017` is 17.
  PyYAML reads the syntax; the resolvers and constructors below give it the 1.2
  core schema's types, so no second YAML library is needed.
- A key given twice in one mapping (YAML 1.2 section 3.2.1.1 and RFC 8259 both
  call for unique keys; PyYAML and `json` silently keep the last) is refused with
  both locations, in JSON as in YAML.

Errors are `StructuredTextError`, whose message starts with `file:line:col`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node


class StructuredTextError(ValueError):
    """A file (or text) that is not valid YAML or JSON; the message says where."""


_CORE_SCHEMA: tuple[tuple[str, str, str], ...] = (
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
)
"""(tag, pattern, first characters) of the YAML 1.2 core schema's implicit types
(https://yaml.org/spec/1.2.2/#1032-tag-resolution)."""


class _DuplicateKey(ConstructorError):
    """A key given twice in one mapping (the message is complete)."""


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 core schema and unique keys."""

    yaml_implicit_resolvers: dict[Any, Any] = {}

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            seen: dict[Hashable, Node] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, Hashable) and key in seen:
                    first = seen[key].start_mark
                    raise _DuplicateKey(
                        None,
                        None,
                        f"key '{key}' is given twice in one mapping (first at line "
                        f"{first.line + 1}, column {first.column + 1}); keys must be unique "
                        "(YAML 1.2, JSON), and one of the two would be silently dropped",
                        key_node.start_mark,
                    )
                if isinstance(key, Hashable):
                    seen[key] = key_node
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return, arg-type]

    def construct_core_int(self, node: Node) -> int:
        text = str(self.construct_scalar(node))  # type: ignore[arg-type]
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text, 10)

    def construct_core_float(self, node: Node) -> float:
        text = str(self.construct_scalar(node)).lower()  # type: ignore[arg-type]
        if text.lstrip("+-") == ".inf":
            return -math.inf if text.startswith("-") else math.inf
        if text == ".nan":
            return math.nan
        return float(text)


for _tag, _pattern, _first in _CORE_SCHEMA:
    # The null pattern matches the empty value too, which PyYAML files under "".
    _starts = [*_first, ""] if _tag.endswith(":null") else list(_first)
    Yaml12Loader.add_implicit_resolver(_tag, re.compile(_pattern), _starts)
Yaml12Loader.add_constructor("tag:yaml.org,2002:int", Yaml12Loader.construct_core_int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:float", Yaml12Loader.construct_core_float)


class _DuplicateJsonKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateJsonKey(key)
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json(text: str, source: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant)
    except _DuplicateJsonKey as duplicate:
        # JSON is YAML 1.2, and outside strings a tab is only white space, so the
        # YAML reader finds both places (a tab and a space take one column each).
        try:
            yaml.load(text.replace("\t", " "), Loader=Yaml12Loader)  # noqa: S506 - a safe loader
        except yaml.YAMLError as err:
            raise _located(err, source, "not valid JSON") from None
        raise StructuredTextError(
            f"{source}: key '{duplicate.key}' is given twice in one object; JSON "
            "objects need unique keys, and one of the two would be dropped"
        ) from None
    except json.JSONDecodeError as err:
        raise StructuredTextError(
            f"{source}:{err.lineno}:{err.colno}: not valid JSON: {err.msg}"
        ) from None
    except ValueError as err:  # NaN, Infinity
        raise StructuredTextError(f"{source}: not valid JSON: {err}") from None


def _located(err: yaml.YAMLError, source: str, what: str) -> StructuredTextError:
    mark = getattr(err, "problem_mark", None)
    where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
    problem = getattr(err, "problem", None) or str(err)
    if isinstance(err, _DuplicateKey):
        return StructuredTextError(f"{where}: {problem}")
    if isinstance(err, ConstructorError) and "tag" in problem:  # `!Component`, `!!python/...`
        shown = problem.replace("could not determine a constructor for the tag", "unknown YAML tag")
        return StructuredTextError(
            f"{where}: {shown}; only plain YAML 1.2 (no application tags) or JSON is read"
        )
    return StructuredTextError(f"{where}: {what}: {problem}")


def is_json(text: str) -> bool:
    """Whether `text` is a JSON document (of any value), keys aside."""
    try:
        json.loads(text, parse_constant=_no_constant)
    except ValueError:
        return False
    return True


def load_text(text: str, source: str, json_only: bool = False) -> Any:
    """The data in `text`, read from `source` (a file name, for messages): JSON if
    `json_only` or if it is a JSON document, YAML 1.2 otherwise."""
    if json_only or is_json(text):
        return _json(text, source)
    try:
        return yaml.load(text, Loader=Yaml12Loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as err:
        raise _located(err, source, "not valid YAML or JSON") from None


def load_path(path: str | Path) -> Any:
    """The data in the file `path` (`.json`: JSON; otherwise YAML 1.2, which
    includes JSON). OSError and UnicodeDecodeError propagate to the caller."""
    text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark is no content
    return load_text(text, str(path), json_only=Path(path).suffix.lower() == ".json")


def load_scalar(text: str) -> Any:
    """One YAML 1.2 value (as `--set key=VALUE` gives it); a text that does not
    parse as YAML is returned as it is."""
    try:
        return yaml.load(text, Loader=Yaml12Loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        return text


__all__ = [
    "StructuredTextError",
    "Yaml12Loader",
    "is_json",
    "load_path",
    "load_scalar",
    "load_text",
]
