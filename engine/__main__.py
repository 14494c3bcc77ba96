"""``python -m engine``: see ``engine.cli``."""

from engine.cli import main

raise SystemExit(main())
