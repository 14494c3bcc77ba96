"""A second factor for officials (issue 20): TOTP with single-use recovery codes.

django-otp keeps the devices and checks the codes (its own throttling applies:
every wrong code doubles the wait before the device checks another).  This module
is the policy around it and the services that change it:

- who needs one (``required``): an *official*, whoever holds powers over others:
  staff or site admins and holders of any role (federation or club admin,
  organizer, arbiter; club admins too, they read and change players' private
  data), while ``SECOND_FACTOR_FOR_OFFICIALS`` is on.  Players may turn it on;
- the gate, at the request's edge (``SecondFactorMiddleware``): a session that has
  not given a code marks its user ``_zary_powers_withheld``, and the one policy
  (``clubs.permissions``) then gives that user no roles and no site-admin pass.
  The API's Basic credentials (a password alone) mark the user too
  (clubs.authentication); an API token is a second factor of its own.  The web
  admin sends a withheld official to the code or set-up page;
- signing in with a device is two steps (``begin_pending``/``pending_user``): the
  password leaves a pending sign-in in the session for ``PENDING_SECONDS``, and
  only a code signs in;
- enabling, disabling, using a recovery code and a staff reset are written to the
  audit log (``second_factor.*`` on the user).
"""

from __future__ import annotations

import functools
import time
from base64 import b32encode
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import django_otp
import segno
from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.functional import LazyObject, SimpleLazyObject
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from clubs import permissions
from clubs.services import audit

PENDING_KEY = "zary_second_factor_pending"
# How long a password given without its code stays good for.
PENDING_SECONDS = 5 * 60
# Wrong codes one pending sign-in may take before its password must be given again
# (each also counts as a failed sign-in of the account: clubs.lockout).
PENDING_FAILURES = 5
RECOVERY_CODES = 10
TOTP_NAME = "Authenticator app"
RECOVERY_NAME = "Recovery codes"


def enforced() -> bool:
    return bool(settings.SECOND_FACTOR_FOR_OFFICIALS)


def required(user: Any) -> bool:
    """Whether ``user``'s powers wait for a second factor."""
    return enforced() and permissions.is_official(user)


def has_device(user: Any) -> bool:
    """Whether ``user`` set up a second factor (a confirmed authenticator)."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).exists()


def is_verified(user: Any) -> bool:
    """Whether this request's session gave a code (django-otp's middleware)."""
    verified = getattr(user, "is_verified", None)
    return bool(verified and verified())


@dataclass(frozen=True)
class Status:
    enabled: bool
    verified: bool
    required: bool
    recovery_left: int


def status(user: Any) -> Status:
    return Status(
        enabled=has_device(user),
        verified=is_verified(user),
        required=required(user),
        recovery_left=StaticToken.objects.filter(device__user=user).count(),
    )


# --- Setting up, codes, turning off (services: each writes the audit log).


def setup_device(user: Any) -> TOTPDevice:
    """The authenticator being set up: the same key until it is confirmed, so that
    reloading the page does not change the QR code the phone has just read."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name=TOTP_NAME, confirmed=False)


def secret_text(device: TOTPDevice) -> str:
    """The key in base32 groups of four, for typing into an app by hand."""
    secret = b32encode(device.bin_key).decode("ascii").rstrip("=")
    return " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))


def qr_svg(device: TOTPDevice) -> str:
    """The otpauth:// address as an inline SVG QR code."""
    return str(segno.make(device.config_url, error="m").svg_inline(scale=5, border=2))


def _itself(user: Any) -> Any:
    """The user model instance behind ``request.user``'s lazy wrappers (Django's,
    django-otp's, ours): the audit log names its target by its class."""
    while isinstance(user, LazyObject):
        user.pk  # noqa: B018 - resolves the wrapper
        user = user._wrapped
    return user


def _clean(code: str) -> str:
    return "".join(code.split()).replace("-", "").lower()


def _new_recovery_codes(user: Any) -> list[str]:
    StaticDevice.objects.filter(user=user).delete()
    device = StaticDevice.objects.create(user=user, name=RECOVERY_NAME, confirmed=True)
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create(StaticToken(device=device, token=code) for code in codes)
    return codes


@transaction.atomic
def confirm_setup(user: Any, device: TOTPDevice, code: str) -> list[str] | None:
    """Confirm the authenticator with a code it shows; None if the code is wrong.
    Answers the new recovery codes (shown once: only they are kept, not shown again)."""
    device = TOTPDevice.objects.select_for_update().get(pk=device.pk, user=user)
    if device.confirmed or not device.verify_token(_clean(code)):
        return None
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    # One authenticator at a time: an older one set up elsewhere stops counting.
    TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
    codes = _new_recovery_codes(user)
    audit(
        user,
        "second_factor.enable",
        _itself(user),
        federation=None,
        before=None,
        after={"totp": True},
    )
    return codes


@transaction.atomic
def renew_recovery_codes(user: Any) -> list[str]:
    """New recovery codes; the old ones stop working."""
    codes = _new_recovery_codes(user)
    audit(
        user,
        "second_factor.recovery_codes",
        _itself(user),
        federation=None,
        before=None,
        after={"codes": len(codes)},
    )
    return codes


def _remove_devices(user: Any) -> int:
    removed = TOTPDevice.objects.filter(user=user).delete()[0]
    return int(removed + StaticDevice.objects.filter(user=user).delete()[0])


@transaction.atomic
def disable(user: Any) -> None:
    """The user turns their second factor off (the view has checked a code)."""
    _remove_devices(user)
    audit(
        user,
        "second_factor.disable",
        _itself(user),
        federation=None,
        before={"totp": True},
        after=None,
    )


@transaction.atomic
def reset(user: Any, *, by: Any) -> bool:
    """Staff remove ``user``'s second factor (a lost phone): they set it up again at
    their next sign-in.  False when there was nothing to remove."""
    permissions.require(by, "user.reset_second_factor", user)
    if not _remove_devices(user):
        return False
    audit(
        by, "second_factor.reset", _itself(user), federation=None, before={"totp": True}, after=None
    )
    return True


def throttled(user: Any) -> bool:
    """Whether django-otp refuses to check codes now (too many wrong ones lately)."""
    devices = list(django_otp.devices_for_user(user))
    return bool(devices) and not any(device.verify_is_allowed()[0] for device in devices)


def verify(user: Any, code: str) -> Device | None:
    """The device that accepts ``code`` (a TOTP code or an unused recovery code,
    which is used up), else None.  Each device is asked by its own id, as
    django-otp advises, so that its throttling holds."""
    code = _clean(code)
    if not code:
        return None
    for device in django_otp.devices_for_user(user):
        verified = django_otp.verify_token(user, device.persistent_id, code)
        if verified is None:
            continue
        if isinstance(verified, StaticDevice):
            left = StaticToken.objects.filter(device=verified).count()
            audit(
                user,
                "second_factor.recovery_code",
                _itself(user),
                federation=None,
                before=None,
                after={"codes_left": left},
            )
        return verified
    return None


def mark_verified(request: HttpRequest, device: Device) -> None:
    """This session gave a code: powers are back (from this request on).  A new
    session key, as at any sign-in: the session has gained powers."""
    request.session.cycle_key()
    django_otp.login(request, device)
    request.user._zary_powers_withheld = False  # type: ignore[union-attr]


# --- The pending sign-in: a password given, its code not yet.


def begin_pending(request: HttpRequest, user: Any, next_url: str) -> None:
    request.session[PENDING_KEY] = {
        "user": user.pk,
        "backend": getattr(user, "backend", settings.AUTHENTICATION_BACKENDS[-1]),
        "next": next_url or "",
        "at": time.time(),
        "failures": 0,
    }


def pending(request: HttpRequest) -> tuple[Any, dict[str, Any]] | None:
    """The user whose password was given in this session, and the pending record;
    None when there is none or it has expired (then it is dropped)."""
    data = request.session.get(PENDING_KEY)
    if not data:
        return None
    if time.time() - float(data.get("at", 0)) > PENDING_SECONDS:
        del request.session[PENDING_KEY]
        return None
    user = get_user_model()._default_manager.filter(pk=data["user"], is_active=True).first()
    if user is None:
        del request.session[PENDING_KEY]
        return None
    return user, data


def signin_locked(request: HttpRequest, credentials: dict[str, Any]) -> bool:
    """Whether the account or the address is locked out now (clubs.lockout)."""
    return not AxesProxyHandler.is_allowed(request, credentials)


def count_pending_failure(request: HttpRequest, data: dict[str, Any]) -> bool:
    """Count a wrong code; True when the pending sign-in has had its share and is dropped."""
    data["failures"] = int(data.get("failures", 0)) + 1
    if data["failures"] >= PENDING_FAILURES:
        drop_pending(request)
        return True
    request.session[PENDING_KEY] = data
    return False


def drop_pending(request: HttpRequest) -> None:
    request.session.pop(PENDING_KEY, None)


def finish_pending(request: HttpRequest, user: Any, data: dict[str, Any], device: Device) -> None:
    """Sign in the pending user with the device that accepted their code."""
    drop_pending(request)
    login(request, user, backend=data["backend"])
    django_otp.login(request, device)


# --- The gate at the request's edge.


def _mark(user: Any) -> Any:
    """``user`` (the OTP middleware's lazy one, resolved) marked withheld when this
    session gave no code and the setting is on."""
    if user.is_authenticated and enforced() and not is_verified(user):
        user._zary_powers_withheld = True
    return _itself(user)


def code_page(user: Any, next_url: str) -> str:
    """Where a withheld official goes: the code page, or the set-up page."""
    name = "clubs:second_factor_verify" if has_device(user) else "clubs:second_factor_setup"
    return f"{reverse(name)}?{urlencode({'next': next_url})}"


class SecondFactorMiddleware:
    """After django-otp's ``OTPMiddleware``: marks the user lazily (no query for a
    request that never looks at the user), and keeps a withheld official out of the
    web admin, sending them to give a code first."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None:
            request.user = SimpleLazyObject(functools.partial(_mark, user))
        if enforced() and request.path.startswith(_admin_prefix()):
            refused = self._admin_gate(request)
            if refused is not None:
                return refused
        return self.get_response(request)

    @staticmethod
    def _admin_gate(request: HttpRequest) -> HttpResponse | None:
        if request.path == reverse("admin:login"):
            # The admin's own sign-in takes a password alone: ours asks the code.
            target = request.GET.get("next") or reverse("admin:index")
            return HttpResponseRedirect(f"{reverse('clubs:login')}?{urlencode({'next': target})}")
        if request.path == reverse("admin:logout"):
            return None
        user = request.user
        if (
            user.is_authenticated
            and permissions.powers_withheld(user)
            and permissions.is_official(user)
        ):
            return HttpResponseRedirect(code_page(user, request.get_full_path()))
        return None


@functools.cache
def _admin_prefix() -> str:
    return str(reverse("admin:index"))
