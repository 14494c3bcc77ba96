"""The API's Basic authentication, answering a sign-in lockout (clubs.lockout)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions

from base import nul
from clubs import lockout


class BasicAuthentication(nul.BasicAuthentication):
    """Basic credentials met during a lockout get 429 with Retry-After instead of a
    wrong-password answer: the client learns to wait, and the password was not
    checked (axes' backend refuses before the hash is computed)."""

    def authenticate_credentials(
        self, userid: str, password: str, request: Any = None
    ) -> tuple[Any, None]:
        try:
            return super().authenticate_credentials(userid, password, request)
        except exceptions.AuthenticationFailed:
            # Set on the request by axes: by its backend when it refused, by the
            # handler when this failure began the lockout.
            if request is not None and getattr(request, "axes_locked_out", False):
                credentials = {"username": userid}
                raise lockout.SignInLocked(lockout.retry_after(request, credentials)) from None
            raise


class LockoutBasicScheme(nul.NulSafeBasicScheme):
    """The OpenAPI schema describes it as the plain Basic scheme it is."""

    target_class = "clubs.authentication.BasicAuthentication"
