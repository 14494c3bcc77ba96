"""Public pages: anyone may read them, for public federations only."""

from __future__ import annotations

import datetime

from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import reverse

from clubs import permissions, player_page, queries
from clubs.forms import ClaimForm
from clubs.models import ClaimStatus, Club, Federation, Player, ProfileClaim


def federation_list(request: HttpRequest) -> HttpResponse:
    federations = queries.public_federations().order_by("name")
    return render(request, "clubs/federation_list.html", {"federations": federations})


def federation_detail(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        federation = queries.federation_home(slug)
    except Federation.DoesNotExist as missing:
        raise Http404("No such public federation.") from missing
    return render(
        request,
        "clubs/federation_detail.html",
        {
            "federation": federation,
            "clubs": federation.active_clubs,  # type: ignore[attr-defined]
            "disciplines": federation.disciplines.all(),
        },
    )


def club_detail(request: HttpRequest, slug: str, club_slug: str) -> HttpResponse:
    try:
        club = queries.public_club(slug, club_slug)
    except Club.DoesNotExist as missing:
        raise Http404("No such club.") from missing
    members = list(queries.club_members(club))
    return render(
        request,
        "clubs/club_detail.html",
        {"club": club, "federation": club.federation, "members": members},
    )


def player_detail(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        player = queries.player_profile(pk)
    except Player.DoesNotExist as missing:
        raise Http404("No such player.") from missing
    if player.merged_into_id is not None:
        return HttpResponsePermanentRedirect(reverse("clubs:player", args=[player.merged_into_id]))
    federation = player.federation
    if federation is not None and not federation.is_public:
        raise Http404("No such player.")
    today = datetime.date.today()
    memberships = [m for m in player.memberships.all() if m.club.federation.is_public]
    for membership in memberships:
        membership.is_current = membership.start <= today and (  # type: ignore[attr-defined]
            membership.end is None or membership.end >= today
        )
    user = request.user
    context = {
        "player": player,
        "federation": federation,
        "memberships": memberships,
        "show_birth_year": federation is not None and federation.show_birth_year,
        "show_number": federation is not None and federation.show_membership_numbers,
        "is_own": user.is_authenticated and player.user_id == user.pk,
        "claim_pending": False,
        "can_claim": False,
        # The player's events and matches, from the apps that hold them.
        "sections": player_page.rendered(request, player),
    }
    if user.is_authenticated and not context["is_own"]:
        context["claim_pending"] = ProfileClaim.objects.filter(
            user=user, player=player, status=ClaimStatus.PENDING
        ).exists()
        context["can_claim"] = not context["claim_pending"] and permissions.can(
            user, "player.claim", player
        )
        if context["can_claim"]:
            context["claim_form"] = ClaimForm()
    return render(request, "clubs/player_detail.html", context)
