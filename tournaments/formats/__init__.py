"""Tournament formats as plug-ins: one module per format, behind ``registry``.

Each format module says what its format does (its flights, knock-out or
numbered rounds, late entries, required settings, how the next round is
planned, how standings are read, what the pages and the console show); the
rest of the app asks ``registry.for_tournament(t)`` and never branches on the
format itself.  ``codes`` (the format codes, the model field's choices) and
``flights`` (the names of flights and bracket sections) import nothing of the
app, so the models can use them; the format modules sit above the models,
``adapters`` and the pure ``core``.

A new format: a module here with a ``TournamentFormat`` subclass, its code in
``codes.Format`` (the model field's choices: a migration) and its line in
``registry``.
"""
