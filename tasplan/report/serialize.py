"""JSON and YAML renderings of the PlanReport document."""

from __future__ import annotations

from typing import Any

import orjson
import yaml

try:
    _Dumper: type = yaml.CSafeDumper
except AttributeError:
    _Dumper = yaml.SafeDumper


def to_json(document: dict[str, Any]) -> str:
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def to_yaml(document: dict[str, Any]) -> str:
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, default_flow_style=False,
                     allow_unicode=True, width=100)
