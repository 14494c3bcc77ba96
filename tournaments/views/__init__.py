"""Pages of the tournaments app, by audience: the organizer console
(``console``), its printable sheets (``print``) and the public pages (``public``)."""
