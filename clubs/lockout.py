"""Guessing stops: failed sign-ins locked out per account and per address.

django-axes records every failed sign-in (the sign-in page, the admin's, the API's
Basic credentials: all go through ``django.contrib.auth.authenticate``) as rows of
``axes.models.AccessAttempt`` in the database, one per account name, address and
browser.  This module is the policy axes asks (``AXES_HANDLER``):

- two rules, each with its own limit: an account is locked after
  ``SIGNIN_ACCOUNT_FAILURES`` failures from anywhere, an address after
  ``SIGNIN_ADDRESS_FAILURES`` failures on any accounts (a password reset request
  counts for the address, so that the reset form is no unlimited mail cannon);
- a cool-off that grows: a lockout lasts ``SIGNIN_LOCKOUT_MINUTES`` from the last
  failure, doubled for every further ``limit`` failures, at most
  ``SIGNIN_LOCKOUT_MAX_HOURS``.  Failures are remembered for ``AXES_COOLOFF_TIME``
  after the last one (axes deletes older rows), so once a lockout has passed the
  next failure locks again at once: after the first lockout a guesser gets one try
  per cool-off, and the cool-off keeps doubling;
- while locked, a sign-in is refused before the password is checked (no hash is
  computed) and the refusal is not counted, so a guesser who keeps knocking does not
  lengthen the lockout of the account he is attacking;
- a successful sign-in forgets the failures of that account only (axes' own reset
  would also forget the failures of the address: a guesser could clear his address
  by signing in to an account of his own);
- a lockout that begins is written to the audit log (``signin.lock``); lifting one,
  by a password reset or by a site admin (the admin's "Access attempts"), is written
  too (``signin.unlock``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from axes.signals import user_locked_out
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework import exceptions, status

from clubs.services import audit


def client_address(request: HttpRequest) -> str | None:
    """The address a request came from (``AXES_CLIENT_IP_CALLABLE``).

    Behind ``SIGNIN_PROXY_COUNT`` proxies that each append the address they were
    called from to ``X-Forwarded-For`` (nginx's ``$proxy_add_x_forwarded_for``), the
    client is that many entries from the right: whatever a client writes into the
    header itself stays on the left, where nobody reads it.  With no proxy (the
    default) it is ``REMOTE_ADDR``; behind a proxy left at 0 every visitor would
    share the proxy's address, and the address rule would lock them all at once."""
    proxies = settings.SIGNIN_PROXY_COUNT
    if proxies > 0:
        forwarded = [
            entry.strip()
            for entry in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if entry.strip()
        ]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    address = request.META.get("REMOTE_ADDR")
    return str(address) if address else None


def cool_off(failures: int, limit: int) -> timedelta:
    """How long a rule with ``failures`` (at least ``limit``) stays locked after its
    last failure: the first lockout's length, doubled for each further ``limit``."""
    first = timedelta(minutes=settings.SIGNIN_LOCKOUT_MINUTES)
    longest = timedelta(hours=settings.SIGNIN_LOCKOUT_MAX_HOURS)
    doublings = max(0, failures - limit) // limit
    # 2**doublings would overflow timedelta long before a guesser tires: stop at the cap.
    if doublings >= 32:
        return longest
    return min(first * 2**doublings, longest)


# The request's attribute remembering its rules' counts (SignInLockoutHandler.rule_states).
_RULE_STATES = "_zary_signin_rule_states"


@dataclass(frozen=True)
class RuleState:
    """One rule (the account's or the address's) as the remembered failures stand."""

    rule: str  # "account" or "address"
    failures: int
    last_failure: datetime | None
    limit: int

    def locked_until(self) -> datetime | None:
        if self.failures < self.limit or self.last_failure is None:
            return None
        return self.last_failure + cool_off(self.failures, self.limit)

    def is_locked(self, at: datetime) -> bool:
        until = self.locked_until()
        return until is not None and at < until


class SignInLockoutHandler(AxesDatabaseHandler):
    """axes' database handler (SQLite and PostgreSQL alike: the failures live in the
    database every worker shares) with this module's two rules and growing cool-off."""

    def rule_states(self, request: Any, credentials: dict[str, Any] | None) -> list[RuleState]:
        """Both rules' counts in one query, remembered on the request until a failure
        is recorded: a refused guess asks them twice (the backend's check, then the
        answer's Retry-After), and a guesser's requests should cost the least."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address
        key = (username, address, request.axes_attempt_time)
        remembered = getattr(request, _RULE_STATES, None)
        if remembered is not None and remembered[0] == key:
            return list(remembered[1])
        since = request.axes_attempt_time - settings.AXES_COOLOFF_TIME
        rules: list[tuple[str, models.Q, int]] = []
        # A request with no account name (a password reset) is counted for its address
        # only: rows without a name belong to no account.
        if username:
            rules.append(("account", models.Q(username=username), settings.SIGNIN_ACCOUNT_FAILURES))
        if address:
            rules.append(
                ("address", models.Q(ip_address=address), settings.SIGNIN_ADDRESS_FAILURES)
            )
        states: list[RuleState] = []
        if rules:
            aggregates: dict[str, Any] = {}
            for rule, match, _limit in rules:
                aggregates[f"{rule}_failures"] = Sum("failures_since_start", filter=match)
                aggregates[f"{rule}_last"] = Max("attempt_time", filter=match)
            either = models.Q()
            for _rule, match, _limit in rules:
                either |= match
            totals = AccessAttempt.objects.filter(either, attempt_time__gte=since).aggregate(
                **aggregates
            )
            states = [
                RuleState(rule, totals[f"{rule}_failures"] or 0, totals[f"{rule}_last"], limit)
                for rule, _match, limit in rules
            ]
        setattr(request, _RULE_STATES, (key, tuple(states)))
        return states

    def locked_rules(self, request: Any, credentials: dict[str, Any] | None) -> list[RuleState]:
        at = request.axes_attempt_time
        return [state for state in self.rule_states(request, credentials) if state.is_locked(at)]

    def is_locked(self, request: Any, credentials: dict[str, Any] | None = None) -> bool:
        return bool(self.locked_rules(request, credentials))

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        # axes locks when this reaches AXES_FAILURE_LIMIT (the account limit) right after
        # it records a failure: a rule that holds a lockout answers that limit, and
        # otherwise the account's count, kept below it (a count past the limit whose
        # cool-off is over locks nobody).
        limit = settings.AXES_FAILURE_LIMIT
        # axes asks right after it records a failure: the counts remembered before are old.
        setattr(request, _RULE_STATES, None)
        if self.is_locked(request, credentials):
            return int(limit)
        account = [s for s in self.rule_states(request, credentials) if s.rule == "account"]
        return min(account[0].failures, limit - 1) if account else 0

    def reset_user_attempts(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        username = get_client_username(request, credentials)
        if not username:
            return 0
        count, _deleted = AccessAttempt.objects.filter(username=username).delete()
        return count

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
    ) -> None:
        # The backend marks a refusal made during a lockout before axes records it.
        refused_while_locked = bool(getattr(request, "axes_locked_out", False))
        if (
            refused_while_locked
            and request is not None
            and not settings.AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT
        ):
            # axes records nothing for it (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT
            # is off) but would first delete expired rows: a guesser knocking on a lock
            # would buy a DELETE with every try.  Only its announcement is kept.
            request.axes_credentials = credentials
            user_locked_out.send(
                "axes",
                request=request,
                username=get_client_username(request, credentials),
                ip_address=request.axes_ip_address,
            )
            return
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is not None:
            # The failure just recorded changes the counts.
            setattr(request, _RULE_STATES, None)
        if request is not None and request.axes_locked_out and not refused_while_locked:
            record_lockout(request, credentials, self.locked_rules(request, credentials))


def record_lockout(
    request: Any, credentials: dict[str, Any] | None, rules: list[RuleState]
) -> None:
    """The audit entry of a lockout that begins: the account when one by that name
    exists and its rule locked, else the address's latest attempt row."""
    username = get_client_username(request, credentials)
    address = request.axes_ip_address
    target: models.Model | None = None
    if username and any(state.rule == "account" for state in rules):
        target = get_user_model().objects.filter(username=username).first()
    if target is None:
        target = AccessAttempt.objects.filter(ip_address=address).order_by("-attempt_time").first()
    if target is None:
        return
    audit(
        None,
        "signin.lock",
        target,
        federation=None,
        before=None,
        after={
            "username": username,
            "ip_address": address,
            "path": request.axes_path_info,
            "rules": {state.rule: state.failures for state in rules},
            "locked_until": max(
                (until for s in rules if (until := s.locked_until()) is not None),
                default=request.axes_attempt_time,
            ).isoformat(),
        },
    )


def retry_after(request: Any, credentials: dict[str, Any] | None = None) -> int:
    """Seconds until the lockouts this request meets are all over (at least 1)."""
    AxesProxyHandler.update_request(request)
    handler = AxesProxyHandler.get_implementation()
    at = request.axes_attempt_time
    if not isinstance(handler, SignInLockoutHandler):
        return 1
    ends = [
        until
        for state in handler.rule_states(request, credentials)
        if (until := state.locked_until()) is not None and until > at
    ]
    return max(1, math.ceil((max(ends) - at).total_seconds())) if ends else 1


def wait_text(seconds: int) -> str:
    """A wait in words, rounded up to whole minutes (or hours past two)."""
    minutes = math.ceil(seconds / 60)
    if minutes <= 120:
        return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
    hours = math.ceil(minutes / 60)
    return ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours}


def lockout_message(seconds: int) -> str:
    return _(
        "Too many failed sign-ins for this account or from this address. "
        "Try again in %(wait)s, or choose a new password: a password reset lifts "
        "the lock on your account."
    ) % {"wait": wait_text(seconds)}


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """The page a locked-out sign-in gets (``AXES_LOCKOUT_CALLABLE``): 429 with
    Retry-After, in the visitor's language."""
    seconds = retry_after(request, credentials)
    response = render(
        request,
        "registration/locked_out.html",
        {"message": lockout_message(seconds), "title": _("Signing in is paused")},
        status=status.HTTP_429_TOO_MANY_REQUESTS,
    )
    response["Retry-After"] = str(seconds)
    return response


class SignInLocked(exceptions.APIException):
    """The API's answer to credentials met during a lockout: 429, ``{"detail": ...}``
    and Retry-After (DRF's exception handler sends ``wait`` as that header)."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "signin_locked"

    def __init__(self, wait: int) -> None:
        super().__init__(lockout_message(wait))
        self.wait = wait


def address_is_locked(request: HttpRequest) -> bool:
    """Whether the request's address is locked (for pages that sign nobody in)."""
    return not AxesProxyHandler.is_allowed(request, {settings.AXES_USERNAME_FORM_FIELD: None})


def count_for_address(request: HttpRequest, sender: Any) -> None:
    """Count one attempt against the request's address alone (a password reset
    request, already answered): the request that reaches the limit keeps its answer
    and the next one is refused."""
    AxesProxyHandler.user_login_failed(
        sender, {settings.AXES_USERNAME_FORM_FIELD: None}, request=request
    )
    request.axes_locked_out = False


def lift(attempts: models.QuerySet[AccessAttempt], *, by: Any, reason: str) -> int:
    """Forget these failures (ending the lockouts they hold), each written to the
    audit log with who lifted it and why; the number of rows forgotten."""
    users = {
        user.get_username(): user
        for user in get_user_model().objects.filter(
            username__in={a.username for a in attempts if a.username}
        )
    }
    lifted = 0
    for attempt in list(attempts):
        target: models.Model = users.get(attempt.username or "", attempt)
        audit(
            by,
            "signin.unlock",
            target,
            federation=None,
            before={
                "username": attempt.username,
                "ip_address": attempt.ip_address,
                "failures": attempt.failures_since_start,
            },
            after={"reason": reason},
        )
        attempt.delete()
        lifted += 1
    return lifted


def lift_account(username: str, *, by: Any, reason: str) -> int:
    """Forget every remembered failure of this account (a password reset's unlock)."""
    return lift(AccessAttempt.objects.filter(username=username), by=by, reason=reason)
