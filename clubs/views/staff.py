"""Pages for club and federation admins: deciding profile claims."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs import permissions, services
from clubs.forms import DecideClaimForm
from clubs.models import Membership, ProfileClaim
from clubs.views.accounts import signed_in


@signed_in
def claims(request: HttpRequest) -> HttpResponse:
    if not permissions.decides_claims(request.user):
        raise PermissionDenied(_("Only club and federation admins decide profile claims."))
    pending = (
        permissions.claims_to_decide(request.user)
        .select_related("user", "player", "player__federation")
        .prefetch_related(
            Prefetch(
                "player__memberships",
                queryset=Membership.objects.current().select_related("club"),
                to_attr="current_memberships",
            )
        )
        .order_by("created_at", "id")
    )
    return render(request, "clubs/staff_claims.html", {"claims": pending})


@signed_in
@require_POST
def decide(request: HttpRequest, pk: int) -> HttpResponse:
    claim = ProfileClaim.objects.select_related("player", "user").filter(pk=pk).first()
    if claim is None:
        messages.error(request, _("This claim no longer exists."))
        return redirect("clubs:staff_claims")
    form = DecideClaimForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose whether to approve or reject the claim."))
        return redirect("clubs:staff_claims")
    approve = form.cleaned_data["decision"] == "approve"
    try:
        services.decide_claim(claim, by=request.user, approve=approve)
    except ValidationError as error:
        messages.error(
            request,
            _("The claim of %(player)s by %(user)s was not changed: %(reason)s")
            % {
                "player": claim.player,
                "user": claim.user.get_username(),
                "reason": " ".join(error.messages),
            },
        )
    else:
        if approve:
            text = _("Approved: %(user)s is now linked to %(player)s.")
        else:
            text = _("Rejected the claim of %(player)s by %(user)s.")
        messages.success(
            request, text % {"player": claim.player, "user": claim.user.get_username()}
        )
    return redirect("clubs:staff_claims")
