"""How a binary snapshot is recognised: its suffix and its first bytes. Apart from
``binary`` (which imports msgspec to read one), so that every input read can ask."""

from __future__ import annotations

MAGIC = b"\x89TASPLAN\r\n\x1a\n"  # PNG's trick: a text-mode copy or 7-bit channel breaks it
SUFFIX = ".tsnap"
_NAME = MAGIC[:8]


def is_binary(data: bytes) -> bool:
    """Whether ``data`` claims to be a binary snapshot: it starts with the signature's
    name (a file cut short inside it, or with its line ends rewritten, is a broken one)."""
    return len(data) >= 4 and _NAME.startswith(data[:len(_NAME)])
