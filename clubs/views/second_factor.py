"""The second factor's pages: the code asked at sign-in, setting up an
authenticator, new recovery codes, turning it off (clubs.second_factor)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from clubs import landing, lockout, second_factor
from clubs.views.accounts import _safe_next, signed_in


class CodeForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Code"),
        max_length=40,
        widget=forms.TextInput(
            attrs={"autocomplete": "one-time-code", "inputmode": "text", "autofocus": True}
        ),
    )


def _wrong_code_message(user: Any) -> str:
    if second_factor.throttled(user):
        return _("Too many wrong codes: wait a minute, then try again.")
    return _(
        "That code is not right. Type the code your authenticator app shows now, "
        "or an unused recovery code."
    )


def verify(request: HttpRequest) -> HttpResponse:
    """The code page: a pending sign-in (password given) or a signed-in session that
    has not given its code yet (for example one from before the set-up)."""
    found = second_factor.pending(request)
    if found is None and not request.user.is_authenticated:
        messages.info(request, _("Your sign-in has expired: give your password again."))
        return redirect("clubs:login")
    if found is None and not second_factor.has_device(request.user):
        return redirect("clubs:second_factor_setup")
    if found is None and second_factor.is_verified(request.user):
        return redirect(_safe_next(request) or landing.landing_page(request.user))
    user, data = found if found is not None else (request.user, None)
    credentials = {"username": user.get_username()}
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if data is not None and second_factor.signin_locked(request, credentials):
            # Locked out meanwhile (wrong codes count as failed sign-ins).
            second_factor.drop_pending(request)
            return lockout.lockout_response(request, credentials=credentials)
        device = second_factor.verify(user, form.cleaned_data["code"])
        if device is not None:
            if data is not None:
                second_factor.finish_pending(request, user, data, device)
                target = data["next"] or landing.landing_page(request.user)
            else:
                second_factor.mark_verified(request, device)
                target = _safe_next(request) or landing.landing_page(request.user)
            return redirect(target)
        form.add_error("code", _wrong_code_message(user))
        if data is not None:
            # A wrong code after the right password counts as a failed sign-in of
            # the account (clubs.lockout): guessing codes meets the same lockout.
            spent = second_factor.count_pending_failure(request, data)
            user_login_failed.send(sender=type(form), credentials=credentials, request=request)
            if getattr(request, "axes_locked_out", False):
                second_factor.drop_pending(request)
                return lockout.lockout_response(request, credentials=credentials)
            if spent:
                messages.error(request, _("Too many wrong codes: give your password again."))
                return redirect("clubs:login")
    return render(
        request,
        "registration/second_factor_verify.html",
        {"form": form, "next": _safe_next(request), "pending": data is not None},
    )


@signed_in
def setup(request: HttpRequest) -> HttpResponse:
    """Set up an authenticator: QR code and key, then a code it shows."""
    user = request.user
    if second_factor.has_device(user):
        messages.info(request, _("Two-step sign-in is already on for your account."))
        return redirect("clubs:account")
    device = second_factor.setup_device(user)
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        codes = second_factor.confirm_setup(user, device, form.cleaned_data["code"])
        if codes is not None:
            device.refresh_from_db()
            second_factor.mark_verified(request, device)
            return render(
                request,
                "registration/second_factor_codes.html",
                {
                    "codes": codes,
                    "enabled": True,
                    "next": _safe_next(request) or landing.landing_page(user),
                },
            )
        form.add_error("code", _wrong_code_message(user))
    return render(
        request,
        "registration/second_factor_setup.html",
        {
            "form": form,
            "qr_svg": second_factor.qr_svg(device),
            "secret": second_factor.secret_text(device),
            "next": _safe_next(request),
            "required": second_factor.required(user),
        },
    )


@signed_in
@require_POST
def recovery_codes(request: HttpRequest) -> HttpResponse:
    """New recovery codes, only from a session that gave a code (the old ones stop)."""
    user = request.user
    if not second_factor.has_device(user):
        return redirect("clubs:second_factor_setup")
    if not second_factor.is_verified(user):
        messages.info(request, _("Give a code first: new recovery codes need a verified sign-in."))
        return redirect("clubs:second_factor_verify")
    codes = second_factor.renew_recovery_codes(user)
    return render(
        request,
        "registration/second_factor_codes.html",
        {"codes": codes, "enabled": False, "next": None},
    )


@signed_in
def disable(request: HttpRequest) -> HttpResponse:
    """Turn two-step sign-in off, with a current code."""
    user = request.user
    if not second_factor.has_device(user):
        return redirect("clubs:account")
    form = CodeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if second_factor.verify(user, form.cleaned_data["code"]) is not None:
            second_factor.disable(user)
            messages.success(request, _("Two-step sign-in is off."))
            return redirect("clubs:account")
        form.add_error("code", _wrong_code_message(user))
    return render(
        request,
        "registration/second_factor_disable.html",
        {"form": form, "official": second_factor.required(user)},
    )
