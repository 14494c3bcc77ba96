"""No NUL character reaches the database from a request.

PostgreSQL text cannot hold U+0000: a lookup, a filter or a save with one
raises DataError, which would answer 500.  Django's and DRF's CharFields refuse
it, but slug, related, choice and dict-key fields do not, nor does a form's
ModelChoiceField lookup; so every request is checked here once, whatever field
would read it, and refused with 400 naming the field:

- ``RefuseNulCharacters`` (middleware): the path and the query string of every
  request, and the body of a page's request: a JSON body (keys and values, at
  any depth), an urlencoded form and the fields of a multipart POST (not its
  files);
- the API's parsers (base.parsers) check the body they parse with the same
  functions, so that the refusal is an API error like any other: a ParseError
  that each view words in its documented shape (recording a turn answers
  ``{code, reason, turn}``).

The API and a page's script that posted JSON get ``{"detail": ...}``; a page
gets a plain 400.  Basic credentials are refused like a wrong password.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils import translation
from django.utils.translation import gettext as _
from drf_spectacular.authentication import BasicScheme
from rest_framework import authentication, exceptions

from base.jsonbody import loads_json

NUL = "\x00"
# How JSON writes a NUL; a body without it (nor a raw NUL) needs no parsing here.
ESCAPED_NUL = re.compile(r"\\u0000", re.IGNORECASE)


class NulFound(Exception):
    """Where a NUL character is: ``name`` is the field (a dotted path in JSON), empty
    for the whole body; ``in_name`` when it is in the name itself, not the value."""

    def __init__(self, name: str, *, in_name: bool = False) -> None:
        super().__init__(name)
        self.name = name
        self.in_name = in_name

    def message(self) -> str:
        shown = self.name.replace(NUL, "\\u0000")  # the name itself may hold it
        if self.in_name:
            return _("The name “%(name)s” holds a NUL character, which no name may contain.") % {
                "name": shown
            }
        if not shown:
            return _("The request body holds a NUL character, which no value may contain.")
        return _("The value of “%(name)s” holds a NUL character, which no value may contain.") % {
            "name": shown
        }


def check_pairs(pairs: Iterable[tuple[str, list[Any]]]) -> None:
    """Raise NulFound for the first field name or text value (of a QueryDict's lists) holding NUL."""
    for name, values in pairs:
        if NUL in name:
            raise NulFound(name, in_name=True)
        if any(isinstance(value, str) and NUL in value for value in values):
            raise NulFound(name)


def check_document(document: Any) -> None:
    """Raise NulFound for a key or string of a parsed JSON document holding NUL
    (walked without recursion: the document may nest 64 levels)."""
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if NUL in value:
                raise NulFound(path)
        elif isinstance(value, dict):
            for key, child in value.items():
                child_path = f"{path}.{key}" if path else str(key)
                if NUL in key:
                    raise NulFound(child_path, in_name=True)
                stack.append((child, child_path))
        elif isinstance(value, list):
            stack.extend((child, f"{path}[{index}]") for index, child in enumerate(value))


def is_json(content_type: str) -> bool:
    return content_type == "application/json" or (
        content_type.startswith("application/") and content_type.endswith("+json")
    )


def may_hold_nul(json_text: str) -> bool:
    """Whether a JSON text may hold a NUL: a cheap look at the text before it is walked
    (a match may still be an escaped backslash followed by ``u0000``)."""
    return NUL in json_text or ESCAPED_NUL.search(json_text) is not None


def check_page_body(request: HttpRequest) -> None:
    """Raise NulFound for a NUL in the fields of a page's request body.  A body that
    does not parse is left to the view, which refuses it as it always did."""
    content_type = request.content_type or ""
    if is_json(content_type):  # a page's script posting JSON (the board)
        try:
            text = request.body.decode(request.content_params.get("charset") or "utf-8")
        except (LookupError, UnicodeDecodeError):
            return
        if not may_hold_nul(text):
            return
        try:
            document = loads_json(text)
        except exceptions.ParseError:
            return
        check_document(document)
    elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        # Django parses the form of a POST (kept for the view); of a multipart
        # body it reads the fields, and leaves the files to the upload handlers.
        check_pairs(request.POST.lists())


def address_message() -> str:
    return _("The address holds a NUL character, which no value may contain.")


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


class RefuseNulCharacters:
    """Answer 400 to a request that holds a NUL character in its path or its query
    string, or (a page's request) in the fields of its body, saying which field."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if NUL in request.path or any(
            NUL in key or any(NUL in value for value in values)
            for key, values in request.GET.lists()
        ):
            return self.refuse(request, address_message)
        if not is_api(request):  # the API's parsers check the bodies they read
            try:
                check_page_body(request)
            except NulFound as found:
                return self.refuse(request, found.message)
        return self.get_response(request)

    def refuse(self, request: HttpRequest, message: Callable[[], str]) -> HttpResponse:
        # This middleware runs before LocaleMiddleware: it words the answer in the
        # language the request asks for itself.
        with translation.override(translation.get_language_from_request(request)):
            text = message()
            if is_api(request) or is_json(request.content_type or ""):
                return JsonResponse({"detail": text}, status=400)
            return HttpResponseBadRequest(text, content_type="text/plain; charset=utf-8")


class BasicAuthentication(authentication.BasicAuthentication):
    """DRF's Basic authentication, refusing credentials that hold a NUL character
    (401, like any wrong password) before they are looked up."""

    def authenticate_credentials(
        self, userid: str, password: str, request: Any = None
    ) -> tuple[Any, None]:
        if NUL in userid or NUL in password:
            raise exceptions.AuthenticationFailed()
        return super().authenticate_credentials(userid, password, request)  # type: ignore[no-any-return]


class NulSafeBasicScheme(BasicScheme):
    """The OpenAPI schema describes it as the plain Basic scheme it is."""

    target_class = "base.nul.BasicAuthentication"
