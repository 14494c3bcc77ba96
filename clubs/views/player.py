"""Pages for players: claiming a profile, editing one's own."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from clubs import services
from clubs.forms import ClaimForm, OwnProfileForm, add_service_errors
from clubs.models import Player
from clubs.views.accounts import signed_in


@signed_in
@require_http_methods(["GET", "POST"])
def claim(request: HttpRequest, pk: int) -> HttpResponse:
    """POST "This is me" from a player page (GET, after signing in, goes back there)."""
    player = get_object_or_404(Player, pk=pk)
    if request.method == "POST":
        form = ClaimForm(request.POST)
        if not form.is_valid():
            messages.error(request, " ".join(form.errors.get("message", [])))
        else:
            try:
                services.claim_profile(
                    player, by=request.user, message=form.cleaned_data["message"]
                )
            except ValidationError as error:
                messages.error(request, " ".join(error.messages))
            else:
                messages.success(
                    request, _("Your claim has been sent; the club or federation will check it.")
                )
    return redirect("clubs:player", pk=player.pk)


@signed_in
@require_http_methods(["GET", "POST"])
def own_profile(request: HttpRequest) -> HttpResponse:
    """A player edits their own names, birth year and country."""
    player = (
        Player.objects.filter(user=request.user, merged_into__isnull=True)
        .select_related("federation")
        .first()
    )
    if player is None:
        messages.error(
            request,
            _("Your account is not linked to a player profile. Find yours and claim it."),
        )
        return redirect("clubs:account")
    form = OwnProfileForm.for_player(player, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        changes = form.changes(player)
        try:
            if changes:
                services.update_player(player, by=request.user, **changes)
        except ValidationError as error:
            add_service_errors(form, error)
        else:
            messages.success(request, _("Your profile has been saved."))
            return redirect("clubs:account")
    return render(request, "clubs/own_profile.html", {"form": form, "player": player})
