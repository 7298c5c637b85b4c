"""The exception hierarchy. Only the CLI turns these into exit codes."""

from __future__ import annotations

from tasplan.untrusted import clean

MAX_MESSAGE_CHARS = 1000


class TasplanError(Exception):
    """Base of every error tasplan raises on purpose."""


class InputError(TasplanError):
    """Something is wrong in an input file: says where (file, line when known, field path),
    what was expected and what was found."""

    def __init__(
        self,
        source: str,
        message: str,
        *,
        line: int | None = None,
        field: str = "",
        obj: str = "",
    ) -> None:
        self.source = source
        self.line = line
        self.field = field
        self.obj = obj
        self.detail = message
        super().__init__(self.render())

    def render(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        parts = [where]
        if self.obj:
            parts.append(self.obj)
        if self.field:
            parts.append(self.field)
        parts.append(self.detail)
        text = ": ".join(parts)
        if len(text) > MAX_MESSAGE_CHARS:  # a value quoted in full can be megabytes
            text = text[:MAX_MESSAGE_CHARS] + "…"
        return clean(text)  # names and values are untrusted: one printable line


class ProfileError(InputError):
    """A scheduler profile cannot be built: unknown plugin, plugin lacking the extension
    point, repeated arguments, bad weights."""


class UsageError(TasplanError):
    """Flags that do not make sense together."""


class StrictError(ValueError):
    """A document breaks a rule the API server enforces while decoding (duplicate keys,
    bad strings, too deep): the reader turns it into an InputError naming the file."""

    def __init__(self, message: str, line: int | None = None, field: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.field = field


class InternalError(TasplanError):
    """A broken invariant: a bug in tasplan, never a problem of the input."""
