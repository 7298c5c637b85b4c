"""Go ``regexp`` (RE2) patterns in Python: Volcano matches HyperNode members with
``regexp.MatchString``, an unanchored search in RE2 syntax. Python's ``re`` accepts more
(lookarounds, backreferences) and spells a few things differently (``\\z``, POSIX classes,
``(?<name>``); those are translated or refused so that a pattern selects what Volcano's
selects, or is reported as Volcano's webhook would."""

from __future__ import annotations

import re


class RegexError(ValueError):
    """A pattern Go's ``regexp.Compile`` would reject, or one tasplan cannot translate."""


# Constructs Python's ``re`` accepts and RE2 (Go regexp) rejects.
_PYTHON_ONLY = (
    (re.compile(r"\(\?[=!]"), "lookahead"),
    (re.compile(r"\(\?<[=!]"), "lookbehind"),
    (re.compile(r"\(\?>"), "atomic group"),
    (re.compile(r"\(\?\("), "conditional"),
    (re.compile(r"\\[1-9]"), "backreference"),
    (re.compile(r"[*+?}]\+"), "possessive quantifier"),
)
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7F", "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}
_POSIX_CLASS = re.compile(r"\[:(\^?)([a-z]+):\]")


def compile_go_regex(pattern: str) -> re.Pattern[str]:
    """A Python pattern that matches what Go's ``regexp.MatchString`` matches (unanchored
    search, RE2 syntax), or RegexError with the reason."""
    stripped = re.sub(r"\\\\", "", pattern)
    for probe, what in _PYTHON_ONLY:
        if probe.search(stripped):
            raise RegexError(f"RE2 does not support {what}")
    if re.search(r"\\[pP]", stripped):
        raise RegexError("Unicode classes (\\p) are not supported by tasplan")

    def posix(m: re.Match[str]) -> str:
        if m.group(2) not in _POSIX:
            raise RegexError(f"invalid character class range: [:{m.group(2)}:]")
        if m.group(1):
            raise RegexError("negated POSIX classes are not supported by tasplan")
        return _POSIX[m.group(2)]

    _refuse_backtracking(stripped)
    translated = _POSIX_CLASS.sub(posix, pattern).replace("\\z", "\\Z")
    translated = re.sub(r"\(\?<([A-Za-z_][A-Za-z0-9_]*)>", r"(?P<\1>", translated)
    try:
        return re.compile(translated)
    except (re.error, RecursionError, OverflowError) as exc:
        raise RegexError(str(exc)) from None


def _refuse_backtracking(pattern: str) -> None:
    """RE2 matches in linear time; Python's backtracking ``re`` can take exponential time on
    a repeated group that itself repeats or alternates (``(a+)+``, ``(a|aa)*``). Such
    patterns are refused rather than risk a hang on a node name."""
    stack: list[bool] = []  # per open group: does it hold a quantifier or an alternation?
    escaped = in_class = False
    for i, ch in enumerate(pattern):
        if escaped:
            escaped = False
            continue
        if ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            stack.append(False)
        elif ch in "*+?{|" and stack:
            stack[-1] = True
        elif ch == ")" and stack:
            risky = stack.pop()
            if stack:
                stack[-1] = stack[-1] or risky
            if risky and pattern[i + 1:i + 2] in ("*", "+", "{"):
                raise RegexError("a repeated group that repeats or alternates inside is not "
                                 "evaluated by tasplan (Python's matcher could take "
                                 "exponential time where Go's RE2 does not)")
