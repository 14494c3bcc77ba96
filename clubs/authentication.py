"""The API's credentials: tokens (clubs.tokens), the session of the site's own pages,
and (only when ``API_BASIC_AUTH`` is on, for a legacy client) Basic, answering a
sign-in lockout (clubs.lockout).

``TokenAuthentication`` comes first in ``DEFAULT_AUTHENTICATION_CLASSES``: DRF takes
the first class's challenge for its 401s, so missing or wrong credentials answer
401 with ``WWW-Authenticate: Bearer realm="api"`` (not the 403 it gives when the
session comes first)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import SAFE_METHODS

from base import nul
from clubs import lockout, tokens
from clubs.models import ApiToken, TokenScope

TOKEN_KEYWORDS = (b"bearer", b"token")
CHALLENGE = 'Bearer realm="api"'
# The Django request remembers its token's check: the idempotency middleware asks the
# same authenticators before the view does, and one lookup serves both.
CHECKED = "_zary_api_token"


def _scheme(request: Any) -> tuple[bytes, list[bytes]]:
    parts = get_authorization_header(request).split()
    return (parts[0].lower(), parts[1:]) if parts else (b"", [])


def check_token(request: Any, plain: str) -> ApiToken:
    """The live token ``plain`` names (looked up once per request), else 401."""
    django_request = getattr(request, "_request", request)
    checked = getattr(django_request, CHECKED, None)
    if checked is None or checked[0] != plain:
        try:
            result: ApiToken | tokens.TokenRefused = tokens.authenticate_token(plain)
        except tokens.TokenRefused as refused:
            result = refused
        checked = (plain, result)
        setattr(django_request, CHECKED, checked)
    result = checked[1]
    if isinstance(result, tokens.TokenRefused):
        raise exceptions.AuthenticationFailed(result.message)
    return result


class TokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer <token>`` (or ``Token <token>``): the token's user, with
    ``request.auth`` the token.  A read token sending a write gets 403."""

    def authenticate(self, request: Any) -> tuple[Any, ApiToken] | None:
        keyword, rest = _scheme(request)
        if keyword not in TOKEN_KEYWORDS:
            return None
        if len(rest) != 1:
            raise exceptions.AuthenticationFailed(
                _("Send one API token: “Authorization: Bearer zary_…”.")
            )
        try:
            plain = rest[0].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed(
                _("This is not a Zary API token (zary_…); check that it is whole.")
            ) from None
        token = check_token(request, plain)
        if token.scope == TokenScope.READ and request.method not in SAFE_METHODS:
            raise exceptions.PermissionDenied(
                _(
                    "This API token may only read. Create a token with read and write "
                    "access on your account page to change data."
                )
            )
        user = token.user
        # A token is a strong credential: the second-factor check lets it through.
        user._zary_second_factor = "token"
        return user, token

    def authenticate_header(self, request: Any) -> str:
        return CHALLENGE


def password_refused_message() -> str:
    return _(
        "Password authentication is off for the API. Create an API token on your "
        "account page and send it as “Authorization: Bearer zary_…”."
    )


class BasicAuthentication(nul.BasicAuthentication):
    """Basic credentials, read only when ``settings.API_BASIC_AUTH`` is on (asked per
    request, so that the setting applies without a new list of classes).  Off, a
    request that sends them gets 401 at once: no password hash is computed, and no
    failure is counted against the account.

    On, credentials met during a lockout get 429 with Retry-After instead of a
    wrong-password answer: the client learns to wait, and the password was not
    checked (axes' backend refuses before the hash is computed)."""

    def authenticate(self, request: Any) -> tuple[Any, None] | None:
        if not settings.API_BASIC_AUTH:
            if _scheme(request)[0] == b"basic":
                raise exceptions.AuthenticationFailed(password_refused_message())
            return None
        return super().authenticate(request)  # type: ignore[no-any-return]

    def authenticate_header(self, request: Any) -> str:
        return CHALLENGE

    def authenticate_credentials(
        self, userid: str, password: str, request: Any = None
    ) -> tuple[Any, None]:
        try:
            user, auth = super().authenticate_credentials(userid, password, request)
            if settings.SECOND_FACTOR_FOR_OFFICIALS:
                # A password alone: an official's powers wait for a second factor
                # (clubs.second_factor; a token is one, Basic is not).
                user._zary_powers_withheld = True
            return user, auth
        except exceptions.AuthenticationFailed:
            # Set on the request by axes: by its backend when it refused, by the
            # handler when this failure began the lockout.
            if request is not None and getattr(request, "axes_locked_out", False):
                credentials = {"username": userid}
                raise lockout.SignInLocked(lockout.retry_after(request, credentials)) from None
            raise


class LockoutBasicScheme(nul.NulSafeBasicScheme):
    """The OpenAPI schema describes it as the plain Basic scheme it is, and only while
    ``API_BASIC_AUTH`` is on (off, no operation accepts it)."""

    target_class = "clubs.authentication.BasicAuthentication"

    @property  # type: ignore[override]
    def name(self) -> list[str]:
        return ["basicAuth"] if settings.API_BASIC_AUTH else []

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[Any]]]:
        return [{"basicAuth": []}] if settings.API_BASIC_AUTH else []

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, Any]]:
        return [{"type": "http", "scheme": "basic"}] if settings.API_BASIC_AUTH else []


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """``bearerAuth`` in the schema: an HTTP bearer token."""

    target_class = "clubs.authentication.TokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "zary_<prefix>_<secret>",
            "description": (
                "A personal or integration token, created on the account page "
                "(/accounts/), sent as `Authorization: Bearer <token>`. A read token "
                "may only use GET, HEAD and OPTIONS (a write answers 403); a missing, "
                "unknown, revoked or expired token answers 401."
            ),
        }
