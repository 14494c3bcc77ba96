"""The account page's API tokens: one's own, and the integration tokens of the roles
one may grant (clubs.tokens does the work; these pages only ask and show).

A token just made is shown once: the post that makes it passes its text through the
session to the next page, which takes it out again, so a reload shows it no more."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse, reverse_lazy
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from clubs import tokens
from clubs.models import ApiToken, Role, TokenKind, TokenScope

SESSION_KEY = "zary_new_api_token"
# Our sign-in page (settings.LOGIN_URL is the admin's), as clubs.views.accounts does.
signed_in = login_required(login_url=reverse_lazy("clubs:login"))
NEVER = "never"


def expiry_choices() -> list[tuple[str, Any]]:
    choices: list[tuple[str, Any]] = []
    for days in tokens.EXPIRY_DAYS:
        if days is None:
            choices.append((NEVER, gettext_lazy("never")))
        else:
            text = ngettext("in %(days)d day", "in %(days)d days", days) % {"days": days}
            choices.append((str(days), text))
    return choices


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("What uses it, to know it again: “results script”."),
    )
    scope = forms.ChoiceField(
        label=gettext_lazy("Access"), choices=TokenScope.choices, initial=TokenScope.READ
    )
    expiry = forms.ChoiceField(label=gettext_lazy("Expires"), choices=expiry_choices, initial="90")

    def expires_in_days(self) -> int | None:
        value = self.cleaned_data["expiry"]
        return None if value == NEVER else int(value)


def grant_value(role: str, scope: Any) -> str:
    return f"{role}:{ContentType.objects.get_for_model(type(scope)).pk}:{scope.pk}"


class IntegrationTokenForm(TokenForm):
    grant = forms.ChoiceField(label=gettext_lazy("Role"))
    field_order = ["grant", "name", "scope", "expiry"]

    def __init__(self, *args: Any, pairs: list[tuple[str, Any]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pairs = {grant_value(role, scope): (role, scope) for role, scope in pairs}
        labels = dict(Role.choices)
        self.fields["grant"].choices = [
            (value, f"{labels.get(role, role)}: {scope}")
            for value, (role, scope) in self.pairs.items()
        ]

    def role_and_scope(self) -> tuple[str, Any]:
        return self.pairs[self.cleaned_data["grant"]]


def account_context(request: HttpRequest) -> dict[str, Any]:
    """What the account page's token sections show (templates/clubs/_account_tokens.html)."""
    user = request.user
    pairs = tokens.grantable_scopes(user)
    personal = list(tokens.personal_tokens(user))
    integration = tokens.role_tokens(user)
    now = timezone.now()
    for token in [*personal, *integration]:
        token.expired = token.is_expired(now)  # type: ignore[attr-defined]
    return {
        "api_tokens": personal,
        "integration_tokens": integration,
        "token_form": TokenForm(auto_id="token_%s"),
        "integration_form": IntegrationTokenForm(pairs=pairs, auto_id="integration_%s")
        if pairs
        else None,
        # Taken out: shown on this page once, never again.
        "new_api_token": request.session.pop(SESSION_KEY, None),
    }


def _back(anchor: str) -> HttpResponse:
    return redirect(f"{reverse('clubs:account')}#{anchor}")


def _refuse(request: HttpRequest, form: forms.Form, anchor: str) -> HttpResponse:
    errors = [str(e) for field_errors in form.errors.values() for e in field_errors]
    messages.error(
        request, _("The token was not created: %(errors)s") % {"errors": " ".join(errors)}
    )
    return _back(anchor)


def _show_once(request: HttpRequest, made: tokens.NewToken) -> None:
    request.session[SESSION_KEY] = {"name": made.token.name, "plain": made.plain}


@signed_in
@require_POST
def create_personal(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _refuse(request, form, "api-tokens")
    try:
        made = tokens.create_personal_token(
            request.user,
            name=form.cleaned_data["name"],
            scope=form.cleaned_data["scope"],
            expires_in_days=form.expires_in_days(),
        )
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, " ".join(_messages(error)))
        return _back("api-tokens")
    _show_once(request, made)
    return _back("api-tokens")


@signed_in
@require_POST
def create_integration(request: HttpRequest) -> HttpResponse:
    form = IntegrationTokenForm(request.POST, pairs=tokens.grantable_scopes(request.user))
    if not form.is_valid():
        return _refuse(request, form, "integration-tokens")
    role, scope = form.role_and_scope()
    try:
        made = tokens.create_role_token(
            role,
            scope,
            by=request.user,
            name=form.cleaned_data["name"],
            scope=form.cleaned_data["scope"],
            expires_in_days=form.expires_in_days(),
        )
    except (ValidationError, PermissionDenied) as error:
        messages.error(request, " ".join(_messages(error)))
        return _back("integration-tokens")
    _show_once(request, made)
    return _back("integration-tokens")


@signed_in
@require_POST
def revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = ApiToken.objects.filter(pk=pk).first()
    # Someone else's token answers like one that does not exist: ids tell nothing.
    if token is None or not tokens.may_manage(request.user, token):
        messages.error(
            request, _("This token does not exist, or it is not yours to revoke. Reload the page.")
        )
        return _back("api-tokens")
    anchor = "integration-tokens" if token.kind == TokenKind.ROLE else "api-tokens"
    if token.revoked_at is not None:
        messages.info(
            request, _("The token “%(name)s” was already revoked.") % {"name": token.name}
        )
        return _back(anchor)
    try:
        tokens.revoke_token(token, by=request.user)
    except PermissionDenied as error:
        messages.error(request, " ".join(_messages(error)))
        return _back(anchor)
    messages.success(
        request,
        _("The token “%(name)s” is revoked: it is refused from now on.") % {"name": token.name},
    )
    return _back(anchor)


def _messages(error: ValidationError | PermissionDenied) -> list[str]:
    if isinstance(error, ValidationError):
        return list(error.messages)
    return [str(error)] if str(error) else [_("You are not allowed to do this.")]
