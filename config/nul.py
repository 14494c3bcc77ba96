"""No NUL character reaches the database from a request.

PostgreSQL text cannot hold U+0000: a lookup or a filter with one raises
DataError, which would answer 500.  Form and serializer fields already refuse
it (Django's ProhibitNullCharactersValidator); these guard what no field reads:
the query string (search, ordering), the path, and Basic credentials.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from drf_spectacular.authentication import BasicScheme
from rest_framework import authentication, exceptions

NUL = "\x00"


class RefuseNulCharacters:
    """Answer 400 to a request whose path or query string holds a NUL character."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if NUL in request.path or any(
            NUL in key or any(NUL in value for value in values)
            for key, values in request.GET.lists()
        ):
            return JsonResponse(
                {"detail": _("The address holds a NUL character, which no value may contain.")},
                status=400,
            )
        return self.get_response(request)


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

    target_class = "config.nul.BasicAuthentication"
