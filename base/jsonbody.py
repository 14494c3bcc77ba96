"""A JSON body read with bounds: NaN and Infinity refused when strict, and a document
nested deeper than ``MAX_JSON_DEPTH`` refused with 400 instead of a RecursionError
escaping as a 500.  Both the API's parser (``base.parsers``) and the NUL check of
other requests (``base.nul``) read JSON this way.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import ngettext
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

# No request of this API nests deeper than a handful of levels.
MAX_JSON_DEPTH = 64


def too_deep_message() -> str:
    return ngettext(
        "The JSON body nests lists and objects more than %(limit)d level deep.",
        "The JSON body nests lists and objects more than %(limit)d levels deep.",
        MAX_JSON_DEPTH,
    ) % {"limit": MAX_JSON_DEPTH}


def nesting_depth(document: Any) -> int:
    """How deeply lists and objects nest in ``document`` (a scalar is 0), without recursion."""
    deepest = 0
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def loads_json(text: str | bytes, *, strict: bool = True) -> Any:
    """DRF's ``json.loads`` (NaN and Infinity refused when ``strict``) that refuses, with
    ParseError, a document nested deeper than MAX_JSON_DEPTH.

    The C decoder recurses once per level: past Python's recursion limit it raises
    RecursionError; below it the document is parsed, then measured.  Both are linear.
    """
    try:
        document = json.loads(text, **({} if strict else {"parse_constant": None}))
    except RecursionError:
        raise ParseError(too_deep_message()) from None
    except ValueError as error:  # worded as DRF's own parser words it
        raise ParseError(f"JSON parse error - {error}") from None
    if nesting_depth(document) > MAX_JSON_DEPTH:
        raise ParseError(too_deep_message())
    return document
