"""Every write action of the one permission policy has its role matrix somewhere."""

from __future__ import annotations

from clubs import permissions
from tests.analysis import test_admin_backlog as analysis_matrix
from tests.clubs import test_permissions as clubs_matrix
from tests.games import test_archive_import as archives_matrix
from tests.games import test_permissions as games_matrix
from tests.games import test_side_permissions as side_matrix
from tests.ratings import test_permissions as ratings_matrix
from tests.tournaments import test_permissions as tournaments_matrix


def test_every_registered_action_is_in_a_role_matrix() -> None:
    covered = (
        {action for action, _target in clubs_matrix.MATRIX}
        | set(games_matrix.MATRIX)
        | side_matrix.COVERED
        | archives_matrix.COVERED
        | ratings_matrix.COVERED
        | tournaments_matrix.COVERED
        | analysis_matrix.COVERED
    )
    missing = set(permissions.actions()) - covered
    assert not missing, f"actions without a role matrix: {sorted(missing)}"
    assert not covered - set(permissions.actions()), "a matrix names an unregistered action"
