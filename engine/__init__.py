"""Zary's rules engine: pure Python, no Django, no I/O (see the README's layout).

One convention holds across its generators.  A nested function that calls
itself (a search's ``node``, a walk's ``visit``) reaches itself through its
closure cell: a reference cycle, which keeps the function, its cells and all
they hold (the plays found, the boards met) alive after the call, until the
garbage collector's next pass finds them.  A caller making many calls then
pays for those passes, and the memory stays taken meanwhile.  So each such
function's name is set to None once it has done its work (the line marked
"a closure cycle"), and ``tests/engine/test_no_cycles.py`` checks that the
generators leave nothing for the collector.
"""
