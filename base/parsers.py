"""Request bodies the API refuses cleanly: too deeply nested (400), too large (413),
or holding a NUL character in a field (400, base.nul).

DRF's JSON parser lets the ``RecursionError`` of a deeply nested document
escape as a 500; ``JSONParser`` here refuses a document nested deeper than
``MAX_JSON_DEPTH`` with 400.  A body over DATA_UPLOAD_MAX_MEMORY_SIZE is
refused by Django before it is read (``RequestDataTooBig``), which DRF would
let through as a bare HTML "400 Bad Request"; ``exception_handler`` answers it
as the API answers every error, with JSON: 413 and the limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from rest_framework import parsers, status
from rest_framework.exceptions import APIException, NotFound, ParseError
from rest_framework.response import Response
from rest_framework.utils import json

# No request of this API nests deeper than a handful of levels.
MAX_JSON_DEPTH = 64


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = _("The request body is too large.")
    default_code = "request_too_large"


def too_large_message(limit: int) -> str:
    return ngettext(
        "The request body is larger than %(limit)d byte, the most this server accepts.",
        "The request body is larger than %(limit)d bytes, the most this server accepts.",
        limit,
    ) % {"limit": limit}


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


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, bounded in nesting depth (the body's size is bounded by Django)."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = parsers.get_encoding(parser_context or {})
        try:
            text = stream.read().decode(encoding)
        except UnicodeDecodeError as error:
            raise ParseError(f"JSON parse error - {error}") from None
        document = loads_json(text, strict=self.strict)
        from base import nul  # it imports this module

        if nul.may_hold_nul(text):
            refuse_nul(nul.check_document, document)
        return document


def refuse_nul(check: Any, data: Any) -> None:
    """Run a check of base.nul; a NUL found is a ParseError saying where (400)."""
    from base import nul

    try:
        check(data)
    except nul.NulFound as found:
        raise ParseError(found.message()) from None


class FormParser(parsers.FormParser):
    """DRF's form parser, refusing a field that holds a NUL character (400)."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        from base import nul

        form = super().parse(stream, media_type, parser_context)
        refuse_nul(nul.check_pairs, form.lists())
        return form


class MultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser, refusing a field that holds a NUL character (400);
    the files are not read."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        from base import nul

        parsed = super().parse(stream, media_type, parser_context)
        refuse_nul(nul.check_pairs, parsed.data.lists())
        return parsed


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with a body over DATA_UPLOAD_MAX_MEMORY_SIZE answered 413 in JSON."""
    from rest_framework import views  # it reads the parser settings, which name this module

    if isinstance(exc, RequestDataTooBig):
        exc = RequestTooLarge(too_large_message(settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
    if isinstance(exc, Http404):
        # get_object_or_404 words its 404 in untranslated English ("No Match matches
        # the given query."); DRF's own "Not found." follows Accept-Language.
        exc = NotFound()
    return views.exception_handler(exc, context)
