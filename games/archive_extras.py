"""What higher apps add to an archive's page (games.views.archives).

What becomes of an archive's matches beyond games (whether they count for a
rating pool) is a higher app's, which games must not import.  Such an app
registers a provider with ``extend`` in its ``AppConfig.ready``; the archive's
page shows, below its progress, each block a provider gives: HTML the provider
rendered from its own template, for ``request``'s user (who may open the page:
``matches.import_archive`` on the archive's federation or club), at most a
couple of queries.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.utils.safestring import SafeString

from games.models import ArchiveImport

# provider(request, archive) -> a rendered block, or "" for nothing to show.
Provider = Callable[[HttpRequest, ArchiveImport], SafeString | str]

_PROVIDERS: list[Provider] = []


def extend(provider: Provider) -> Provider:
    """Let a higher app add a block to the archive's page (see the module docstring)."""
    if provider not in _PROVIDERS:
        _PROVIDERS.append(provider)
    return provider


def blocks(request: HttpRequest, archive: ArchiveImport) -> list[SafeString | str]:
    """Every non-empty block the providers give for ``archive``, in their order."""
    return [block for provider in _PROVIDERS if (block := provider(request, archive))]
