"""The bottom of the product: what every app may import and that imports no app.

The event bus a lower app announces on (``events``), the one base for Celery
tasks owed by a transaction (``tasks``), row locks in one order (``locking``),
the API's bounded fields and parsers (``fields``, ``parsers``, ``nul``), and
the translated messages for the engine's codes (``engine_messages``).  The
outbox app below it stores the work a transaction owes.  ``config`` is the top:
settings and URLs, which import everything and are imported by nothing.
"""
