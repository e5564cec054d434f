"""Whether the compiled core (``engine/_fastai.c``) is built from this source.

A core built from an older ``_fastai.c`` (an editable install that was pulled but not rebuilt:
``make`` rebuilds it) would not have what the Python side calls, so it is not used: the engine
then runs its Python twins (the same results, slower).  Use::

    if CORE:
        from . import _fastai
    else:
        _fastai = None
"""

from __future__ import annotations

CORE_VERSION = 2
"""Bumped with every change of ``_fastai.c``'s interface (its ``CORE_VERSION`` must match)."""


def _usable() -> bool:
    try:
        from . import _fastai
    except ImportError:  # pragma: no cover - no C compiler
        return False
    return getattr(_fastai, "CORE_VERSION", None) == CORE_VERSION


CORE: bool = _usable()
