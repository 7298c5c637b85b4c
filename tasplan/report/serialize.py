"""JSON and YAML renderings of the PlanReport document."""

from __future__ import annotations

from typing import Any

import orjson


def to_json(document: dict[str, Any]) -> str:
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def to_yaml(document: dict[str, Any]) -> str:
    import yaml  # PyYAML's import costs as much as a small check: only for -o yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(document, Dumper=dumper, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=100)
