"""The cyclic garbage collector held off while a command makes acyclic data in bulk.

A command decodes and builds objects by the hundred thousand (JSON-shaped dicts and lists,
rows of texts, the scheduler's PodInfos and NodeInfos) that hold no reference cycles and are
freed by their reference counts; allocating them runs young-generation collections that walk
them again and again, finding nothing. So the collector waits while they are made, and what
lives as long as the command may then leave every later collection's walk for good
(``gc.freeze``: the permanent generation). CPython: Modules/gcmodule.c.
"""

from __future__ import annotations

import gc
from typing import Self


class collector_paused:
    """``with collector_paused():`` the cyclic collector off inside the block, back as it was
    after it (a pause within a pause changes nothing). With ``freeze`` (also settable inside
    the block, once what was made is known), everything alive at its end moves to the
    permanent generation. A class, not a generator: it is entered for every piece of a kind
    read, thousands a command."""

    __slots__ = ("_enabled", "freeze")

    def __init__(self, freeze: bool = False):
        self.freeze = freeze

    def __enter__(self) -> Self:
        self._enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc) -> None:
        if self.freeze:
            gc.freeze()
        if self._enabled:
            gc.enable()
