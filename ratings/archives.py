"""Whether an imported archive's matches count for a rating pool, and for which.

The games app imports whole archives of match files (games.services.archives),
each match dated by its file's event date, else by its import
(games.services.matfiles.event_moment), and keeps the archive on the match.  Such
a match counts for no pool (``services.rated_matches``) until a federation's admin
chooses the pool for its archive here: old matches of unknown standing do not
move anyone's rating by default.  The choice is made once the import is over and
is final; the pool is then recomputed from the archive's earliest rated match, so
the archive's matches enter it in the order they were played.  A match of the
archive whose result becomes official later (a club's archive, confirmed by its
players) is rated as any late result is.

A pool rates one discipline of one federation: the pools offered for an archive
are those of its federation and discipline (the rules its matches were played by).

The archive's page shows this through ``games.archive_extras`` (registered in
``RatingsConfig.ready``): the pool chosen, or the choice to whoever may make it.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from base.tasks import owe
from clubs import permissions
from clubs.models import FederationDiscipline
from clubs.services import audit
from games.models import ArchiveImport, ArchiveState
from ratings import services, tasks
from ratings.models import RatedArchive, RatingPool

# The import is over: no file of the archive will be imported any more.
OVER = (ArchiveState.DONE, ArchiveState.FAILED)


def pools_for(archive: ArchiveImport) -> list[FederationDiscipline]:
    """The rated disciplines whose pool may count the archive's matches."""
    return list(
        FederationDiscipline.objects.filter(
            federation_id=archive.federation_id, discipline_id=archive.discipline_id
        ).select_related("federation", "discipline")
    )


def may_rate(user: Any, rated_discipline: FederationDiscipline) -> bool:
    """Whether ``user`` may count archives for the pool of ``rated_discipline``,
    asked before the pool exists (it is created when first needed): the rule
    reads the pool's rated discipline only."""
    unsaved = RatingPool(rated_discipline=rated_discipline)
    return permissions.can(user, "rating_pool.rate_archive", unsaved)


def rate_archive(archive: ArchiveImport, pool: RatingPool, *, by: Any) -> RatedArchive:
    """Count the archive's matches for ``pool`` (by a federation's admin who may
    manage it), and owe the pool's recomputation from the archive's earliest rated
    match.  Choosing the same pool again changes nothing; another one is refused,
    as is a pool of another federation or discipline, or an import not over yet."""
    with transaction.atomic():
        permissions.require(by, "rating_pool.rate_archive", pool)
        # Archive rows are locked before any other row, as games' archive services do.
        locked = ArchiveImport.objects.select_for_update().get(pk=archive.pk)
        rated = pool.rated_discipline
        if (rated.federation_id, rated.discipline_id) != (
            locked.federation_id,
            locked.discipline_id,
        ):
            raise ValidationError(
                _(
                    "The pool %(pool)s rates another federation's or discipline's "
                    "matches, not this archive's."
                )
                % {"pool": pool},
                code="archive_pool",
            )
        chosen = RatedArchive.objects.filter(archive=locked).select_related("pool").first()
        if chosen is not None:
            if chosen.pool_id == pool.pk:
                return chosen
            raise ValidationError(
                _("The archive's matches count for %(pool)s already.") % {"pool": chosen.pool},
                code="archive_rated",
            )
        if locked.state not in OVER:
            raise ValidationError(
                _("The matches count for a rating pool once the archive's import is over."),
                code="archive_state",
            )
        chosen = RatedArchive.objects.create(
            archive=locked,
            pool=pool,
            chosen_by=by if by is not None and by.is_authenticated else None,
        )
        first = (
            services.rated_matches(pool)
            .filter(archive=locked)
            .order_by("finished_at", "id")
            .values_list("finished_at", "id")
            .first()
        )
        audit(
            by,
            "rating_pool.rate_archive",
            chosen,
            federation=rated.federation,
            before=None,
            after={"archive": locked.pk, "pool": pool.pk},
        )
        computed = RatingPool.objects.filter(pk=pool.pk).values_list("computed_at", flat=True)
        if computed.first() is None:
            # A pool never computed (created for this choice): its other rated
            # matches, if any, are not in its history either.
            owe(tasks.recompute_pool, pool.pk)
        elif first is not None:
            owe(tasks.recompute_pool_from, pool.pk, first[0].isoformat(), first[1])
    return chosen


def archive_block(request: HttpRequest, archive: ArchiveImport) -> SafeString:
    """The archive page's block (``games.archive_extras``): the pool its matches
    count for, or none, with the choice for whoever may make it (two queries)."""
    chosen = (
        RatedArchive.objects.filter(archive_id=archive.pk)
        .select_related("pool__rated_discipline__federation", "pool__rated_discipline__discipline")
        .first()
    )
    choices = []
    if chosen is None and archive.state in OVER:
        choices = [link for link in pools_for(archive) if may_rate(request.user, link)]
    return render_to_string(
        "ratings/_archive_rating.html",
        {"archive": archive, "chosen": chosen, "choices": choices, "over": archive.state in OVER},
        request=request,
    )
