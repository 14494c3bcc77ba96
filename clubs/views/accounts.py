"""Accounts: sign up, sign in and out, password reset and change, "my account"."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from clubs import landing, lockout, permissions, second_factor, services
from clubs.forms import SignUpForm, add_service_errors
from clubs.models import Player
from clubs.views import tokens

# settings.LOGIN_URL is the admin's sign-in (staff only); these pages use ours.
SIGN_IN_URL = reverse_lazy("clubs:login")


def signed_in(view):  # type: ignore[no-untyped-def]
    """login_required, sending anonymous visitors to our sign-in page."""
    return login_required(view, login_url=SIGN_IN_URL)


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


def sign_up(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("clubs:account")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.create_account(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
            )
        except ValidationError as error:
            if "password" in getattr(error, "error_dict", {}):
                error.error_dict["password1"] = error.error_dict.pop("password")
            add_service_errors(form, error)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(
                request,
                _("Welcome, %(name)s! Your account is ready.") % {"name": user.get_username()},
            )
            return redirect(_safe_next(request) or reverse("clubs:account"))
    return render(request, "registration/sign_up.html", {"form": form, "next": _safe_next(request)})


class SignInView(auth_views.LoginView):
    """Signs in and goes to a safe ``next`` page, else to the user's own desk: the
    organizer console for those who run tournaments (``clubs.landing``), the
    account page for everyone else."""

    template_name = "registration/sign_in.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self) -> str:
        return landing.landing_page(self.request.user)

    def form_valid(self, form: Any) -> HttpResponse:
        """With a second factor set up, the password alone signs nobody in: it is
        kept pending and the code page asks the rest (clubs.second_factor).  An
        official without one is signed in without their powers and sent to set it up."""
        user = form.get_user()
        if second_factor.has_device(user):
            second_factor.begin_pending(self.request, user, self.get_redirect_url())
            return redirect("clubs:second_factor_verify")
        response = super().form_valid(form)
        if second_factor.required(user):
            messages.warning(
                self.request,
                _(
                    "Your account holds an official's powers: they work only once you "
                    "set up two-step sign-in. Until then you act as a player."
                ),
            )
            return redirect(second_factor.code_page(user, self.get_success_url()))
        return response


class SignOutView(auth_views.LogoutView):
    next_page = reverse_lazy("home")


class PasswordResetView(auth_views.PasswordResetView):
    """Each request for a reset link counts against the sender's address
    (clubs.lockout): a locked address gets the lockout page, not another mail."""

    template_name = "registration/password_reset_request.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"
    success_url = reverse_lazy("clubs:password_reset_done")
    title = gettext_lazy("Forgotten password")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if lockout.address_is_locked(request):
            return lockout.lockout_response(request)
        response = super().post(request, *args, **kwargs)
        lockout.count_for_address(request, sender=type(self))
        return response


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "registration/password_reset_requested.html"
    title = gettext_lazy("Check your e-mail")


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """A new password chosen through a reset link lifts the account's sign-in
    lockout: whoever holds the mailbox is its owner."""

    template_name = "registration/password_reset_new.html"
    success_url = reverse_lazy("clubs:password_reset_complete")
    title = gettext_lazy("Choose a new password")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        lockout.lift_account(form.user.get_username(), by=form.user, reason="password reset")
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "registration/password_reset_finished.html"
    title = gettext_lazy("Your password has been set")


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "registration/password_change.html"
    success_url = reverse_lazy("clubs:password_change_done")
    title = gettext_lazy("Change your password")


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "registration/password_change_finished.html"
    title = gettext_lazy("Your password has been changed")


@signed_in
def account(request: HttpRequest) -> HttpResponse:
    user = request.user
    player = (
        Player.objects.filter(user=user, merged_into__isnull=True)
        .select_related("federation")
        .first()
    )
    claims = user.profile_claims.select_related("player").order_by("-created_at")  # type: ignore[union-attr]
    return render(
        request,
        "clubs/account.html",
        {
            "player": player,
            "player_is_public": player is not None
            and (player.federation is None or player.federation.is_public),
            "claims": claims,
            "decides_claims": permissions.decides_claims(user),
            "second_factor": second_factor.status(user),
            # The API token sections (templates/clubs/_account_tokens.html).
            **tokens.account_context(request),
        },
    )
