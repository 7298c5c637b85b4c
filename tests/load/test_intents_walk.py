"""``find_intents`` skips the field patterns for a mapping key that cannot end a matching
path (``_ending``); it must find exactly what the plain walk finds, which matches every
registered field pattern against every path (``fnmatch.fnmatchcase``, as the patterns are
written)."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan.load.intents import _ending, _shown, find_intents
from tasplan.model.scheduling_keys import BY_KEY, FIELDS, KEYS, Intent, Where

REPO = Path(__file__).resolve().parents[2]


def plain(obj: Any, what: str, kind_id: str, *, fields_only: bool = False) -> list[Intent]:
    """The walk without the key-ending filter: every path against every pattern."""
    fields = [k for k in FIELDS if kind_id in k.kinds or not (k.kinds or fields_only)]
    found: list[Intent] = []
    stack = [(obj, "", "")]
    while stack:
        node, path, bare = stack.pop()
        if isinstance(node, dict):
            meta = node.get("metadata")
            if isinstance(meta, dict) and not fields_only:
                prefix = f"{path}.metadata" if path else "metadata"
                for where, section in ((Where.LABEL, "labels"),
                                       (Where.ANNOTATION, "annotations")):
                    values = meta.get(section)
                    if isinstance(values, dict):
                        for k, v in values.items():
                            key = BY_KEY.get((where, k)) if isinstance(k, str) else None
                            if key is not None:
                                found.append(Intent(key, what, f"{prefix}.{section}[{k}]",
                                                    _shown(v)))
            for k, v in node.items():
                if not isinstance(k, str) or (k == "metadata" and isinstance(v, dict)):
                    continue
                child = f"{path}.{k}" if path else k
                child_bare = f"{bare}.{k}" if bare else k
                for key in fields:
                    if fnmatch.fnmatchcase(child_bare, key.key) and (
                            key.when is None or key.when(v if isinstance(v, str) else "")):
                        found.append(Intent(key, what, child, _shown(v)))
                if isinstance(v, dict | list):
                    stack.append((v, child, child_bare))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, dict | list):
                    stack.append((v, f"{path}[{i}]", bare))
    found.sort(key=lambda i: i.path)
    return found


def test_ending_is_what_every_match_ends_with() -> None:
    for key in FIELDS:
        path = f"a.b.{key.key[1:]}" if key.key.startswith("*") else key.key
        assert fnmatch.fnmatchcase(path, key.key)
        assert path.rsplit(".", 1)[-1].endswith(_ending(key.key))
    assert _ending("*spec.schedulingGroup") == "schedulingGroup"
    assert _ending("spec.runPolicy.schedulingPolicy.queue") == "queue"
    assert _ending("*schedulerName") == "schedulerName"
    assert _ending("spec.a?b") == "" and _ending("*[ab]") == ""


def _documents() -> list[dict]:
    docs = []
    for path in sorted((REPO / "samples").rglob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    return docs


KINDS = [*sorted({kind for key in KEYS for kind in key.kinds}), "v1/Pod", "batch/Job"]


@pytest.mark.parametrize("fields_only", [False, True])
def test_samples_alike(fields_only: bool) -> None:
    docs = _documents()
    assert len(docs) > 50
    seen = 0
    for doc in docs:
        for kind_id in KINDS:
            got = find_intents(doc, "x", kind_id, fields_only=fields_only)
            assert got == plain(doc, "x", kind_id, fields_only=fields_only)
            seen += len(got)
    assert seen  # the samples name recognised keys


# Keys that are, end, or nearly end a registered field's path, in any nesting.
_NAMES = st.sampled_from(sorted(
    {part for key in FIELDS for part in key.key.lstrip("*").split(".")}
    | {"metadata", "labels", "annotations", "x", "spec.scheduling", "schedulerNameX",
       "aschedulerName", "gangPolicy.", "queue", "kai.scheduler/topology",
       "kueue.x-k8s.io/queue-name"}))
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from(
        ["", "default-scheduler", "volcano", "kai-scheduler", "rack"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_NAMES, inner, max_size=5)),
    max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(obj=st.dictionaries(_NAMES, _VALUES, max_size=6), kind=st.sampled_from(KINDS),
       fields_only=st.booleans())
def test_generated_alike(obj: dict, kind: str, fields_only: bool) -> None:
    assert find_intents(obj, "x", kind, fields_only=fields_only) == \
        plain(obj, "x", kind, fields_only=fields_only)
