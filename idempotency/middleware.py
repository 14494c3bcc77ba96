"""Idempotency-Key: a retried API write gets the first answer instead of acting twice.

Phones at a venue drop connections: a client that did not hear the answer to a
write sends it again with the same ``Idempotency-Key`` header.  Within
IDEMPOTENCY_KEY_TTL_HOURS the same key with the same request (method, address,
content type and body) gets the stored answer with ``Idempotent-Replayed: true``
and the view does not run; the same key with another request is a 422; a key
whose first request is still running is a 409.

Who is asking is known only once DRF has authenticated the request inside the
view (HTTP Basic happens there), so a key is scoped by a digest of the
credentials the request carries (Authorization header and session key) and,
once answered, by the user the view authenticated: only that user, presenting
the same credentials, gets the stored answer.  A request without credentials is
anonymous, which the API refuses for writes anyway: its key is not kept.  Only
answers below 500 to an authenticated user are kept; after a 5xx, a 429 (too
many requests, base.throttles) or an unauthenticated request the key is
forgotten, so the retry acts.

ATOMIC_REQUESTS is off: each write here commits on its own, the key's row
before the view runs (a concurrent twin then finds it and gets 409), the answer
after.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import DatabaseError, IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.http.request import RawPostDataException
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings

from base.parsers import too_large_message
from idempotency import services
from idempotency.models import IdempotencyKey, KeyState

logger = logging.getLogger(__name__)

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
API_PREFIX = "/api/"
MAX_KEY_LENGTH = 255
# Visible ASCII only: no spaces, which proxies may trim or fold, and nothing a
# header cannot carry verbatim (UUIDs, ULIDs, base64 all fit).
KEY_PATTERN = rf"^[!-~]{{1,{MAX_KEY_LENGTH}}}$"
_KEY = re.compile(KEY_PATTERN)
# A request still in progress after this long died with its worker (gunicorn
# kills a silent worker after 30 s): its key is free again rather than blocked
# for a whole day.
ABANDONED_AFTER = datetime.timedelta(minutes=5)


def key_is_valid(key: str) -> bool:
    return _KEY.fullmatch(key) is not None


def credentials_fingerprint(request: HttpRequest) -> str | None:
    """A digest of the credentials the request carries, or None when it carries none."""
    authorization = request.META.get("HTTP_AUTHORIZATION", "")
    session = getattr(request, "session", None)
    session_key = (session.session_key if session is not None else None) or ""
    if not authorization and not session_key:
        return None
    text = f"{authorization}\n{session_key}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def request_digest(request: HttpRequest, body: bytes) -> str:
    """What makes two requests the same one: method, address with query, content type, body."""
    digest = hashlib.sha256()
    for part in (request.method or "", request.get_full_path(), request.content_type or ""):
        encoded = part.encode("utf-8", "surrogatepass")
        # Length-prefixed, so no two different requests run together into the same bytes.
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
    digest.update(body)
    return digest.hexdigest()


def body_for_digest(request: HttpRequest) -> bytes | None:
    """The request's body, or what stands for it when a middleware before this one
    parsed the form already (its stream is spent): the fields and the files' digests.
    None when neither can be had."""
    try:
        return request.body
    except RawPostDataException:
        if not hasattr(request, "_post"):
            return None
    files = [
        [name, upload.name, upload.size, _file_digest(upload)]
        for name, uploads in request.FILES.lists()
        for upload in uploads
    ]
    form = json.dumps([list(request.POST.lists()), files], ensure_ascii=True)
    return form.encode("ascii")


def _file_digest(upload: Any) -> str:
    digest = hashlib.sha256()
    for chunk in upload.chunks():  # chunks() starts at the beginning; the view reads it again
        digest.update(chunk)
    return digest.hexdigest()


def _error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"code": code, "detail": message}, status=status)


def _invalid_key() -> JsonResponse:
    return _error(
        400,
        "idempotency_key_invalid",
        _(
            "The Idempotency-Key header must hold 1 to %(limit)d visible ASCII characters "
            "(letters, digits and punctuation, no spaces)."
        )
        % {"limit": MAX_KEY_LENGTH},
    )


def _reused_key() -> JsonResponse:
    return _error(
        422,
        "idempotency_key_reused",
        _(
            "This Idempotency-Key was already used for a different request (another "
            "address or body); send a new key with a new request."
        ),
    )


def _key_in_progress() -> JsonResponse:
    return _error(
        409,
        "idempotency_key_in_progress",
        _(
            "A request with this Idempotency-Key is still being handled; "
            "retry once it has been answered."
        ),
    )


def _authenticated_user_id(request: HttpRequest) -> int | None:
    """Who the API's own authenticators say sends ``request`` (None: nobody, or refused)."""
    authenticators = [cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES]
    try:
        user = Request(request, authenticators=authenticators).user
    except exceptions.APIException:  # wrong password, missing CSRF token...
        return None
    return user.pk if user.is_authenticated else None


def _live_record(fingerprint: str, key: str) -> IdempotencyKey | None:
    """The record of this key, unless it expired or its request died (then it is deleted)."""
    record = IdempotencyKey.objects.filter(fingerprint=fingerprint, key=key).first()
    if record is None:
        return None
    now = timezone.now()
    expired = record.created_at < services.oldest_live(now)
    abandoned = record.state == KeyState.IN_PROGRESS and record.created_at < now - ABANDONED_AFTER
    if expired or abandoned:
        IdempotencyKey.objects.filter(pk=record.pk).delete()
        return None
    return record


def _replay(record: IdempotencyKey) -> HttpResponse:
    response = HttpResponse(
        bytes(record.body),
        status=record.status_code,
        content_type=record.content_type or None,
    )
    response[REPLAYED_HEADER] = "true"
    return response


class IdempotencyKeyMiddleware:
    """Answer a repeated API write with an Idempotency-Key from the stored first answer."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        key = request.headers.get(HEADER)
        if (
            key is None
            or request.method not in UNSAFE_METHODS
            or not request.path_info.startswith(API_PREFIX)
        ):
            return self.get_response(request)
        if not key_is_valid(key):
            return _invalid_key()
        fingerprint = credentials_fingerprint(request)
        if fingerprint is None:
            return self.get_response(request)
        try:
            body = body_for_digest(request)
        except RequestDataTooBig:
            # The API refuses such a body anyway; refusing it here keeps the promise
            # that a keyed write is never acted on without being remembered.
            return _error(
                413, "request_too_large", too_large_message(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
            )
        if body is None:  # nothing to tell this request from another: no key to keep
            logger.warning("Idempotency-Key ignored: the body of %s was read before", request.path)
            return self.get_response(request)
        digest = request_digest(request, body)

        earlier = _live_record(fingerprint, key)
        if earlier is not None:
            if earlier.request_digest != digest:
                return _reused_key()
            if earlier.state == KeyState.IN_PROGRESS:
                return _key_in_progress()
            if earlier.user_id is not None and _authenticated_user_id(request) == earlier.user_id:
                return _replay(earlier)
            # The credentials no longer authenticate as the user who was answered
            # (password changed, logged out): the view refuses, nothing is stored.
            return self.get_response(request)

        try:
            with transaction.atomic():
                record = IdempotencyKey.objects.create(
                    fingerprint=fingerprint, key=key, request_digest=digest
                )
        except IntegrityError:  # a twin of this request took the key a moment ago
            return _key_in_progress()
        try:
            response = self.get_response(request)
        except BaseException:
            IdempotencyKey.objects.filter(pk=record.pk).delete()
            raise
        self._remember(request, record, response)
        return response

    def _remember(
        self, request: HttpRequest, record: IdempotencyKey, response: HttpResponseBase
    ) -> None:
        """Keep the answer for a retry, or forget the key if a retry must act."""
        # DRF's Request sets the authenticated user on the Django request it wraps.
        user = getattr(request, "user", None)
        authenticated = user is not None and user.is_authenticated
        try:
            if (
                authenticated
                and response.status_code < 500
                # A refusal for too many requests: the retry after Retry-After must act.
                and response.status_code != 429
                and isinstance(response, HttpResponse)  # not streamed: its bytes are known
            ):
                IdempotencyKey.objects.filter(pk=record.pk).update(
                    state=KeyState.DONE,
                    user_id=user.pk,
                    status_code=response.status_code,
                    content_type=response.get("Content-Type", ""),
                    body=response.content,
                )
            else:
                IdempotencyKey.objects.filter(pk=record.pk).delete()
        except DatabaseError:
            # The write itself is done: its answer must reach the client.  The key
            # stays "in progress" (409) until ABANDONED_AFTER, so a retry cannot act twice.
            logger.exception("the answer to Idempotency-Key %r could not be stored", record.key)
