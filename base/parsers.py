"""Request bodies the API refuses cleanly: too deeply nested (400), too large (413),
or holding a NUL character in a field (400, base.nul).

DRF's JSON parser lets the ``RecursionError`` of a deeply nested document
escape as a 500; ``JSONParser`` here refuses a document nested deeper than
``MAX_JSON_DEPTH`` with 400 (``base.jsonbody``).  A body over DATA_UPLOAD_MAX_MEMORY_SIZE is
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
from rest_framework.exceptions import APIException, NotFound, ParseError, Throttled
from rest_framework.response import Response

from base import nul, throttles
from base.jsonbody import loads_json


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
        if nul.may_hold_nul(text):
            refuse_nul(nul.check_document, document)
        return document


def refuse_nul(check: Any, data: Any) -> None:
    """Run a check of base.nul; a NUL found is a ParseError saying where (400)."""
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
        parsed = super().parse(stream, media_type, parser_context)
        refuse_nul(nul.check_pairs, parsed.data.lists())
        return parsed


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with a body over DATA_UPLOAD_MAX_MEMORY_SIZE answered 413 in JSON
    and a 429's wait told in the client's language."""
    from rest_framework import views  # it reads the parser settings, which name this module

    if isinstance(exc, RequestDataTooBig):
        exc = RequestTooLarge(too_large_message(settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
    if isinstance(exc, Http404):
        # get_object_or_404 words its 404 in untranslated English ("No Match matches
        # the given query."); DRF's own "Not found." follows Accept-Language.
        exc = NotFound()
    if isinstance(exc, Throttled):
        # DRF words the wait in English whatever the language (base.throttles).
        exc = throttles.translated(exc)
    return views.exception_handler(exc, context)
