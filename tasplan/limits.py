"""Every size, count and time limit tasplan applies, in one place (docs/limits.md lists them).

A limit keeps a small hostile input from making tasplan run forever or exhaust memory; each
can be raised with an environment variable when a real input is larger. Fields the API
server itself bounds (int32 counts) are validated against its bounds before any limit here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from tasplan.errors import UsageError


@dataclass(frozen=True)
class Limit:
    env: str  # the environment variable that raises it
    default: float
    what: str  # the unit, for messages
    maximum: float = float("inf")  # the most it can be raised to

    def get(self) -> float:
        raw = os.environ.get(self.env)
        if raw is None or raw.strip() == "":
            return self.default
        try:
            value = float(raw)
        except ValueError:
            raise UsageError(f"{self.env}: expected a number, got {raw[:40]!r}") from None
        if not value > 0 or value != value or value == float("inf"):
            raise UsageError(f"{self.env}: expected a positive number, got {raw[:40]!r}")
        if value > self.maximum:
            raise UsageError(f"{self.env}: expected at most {self.maximum:g} {self.what}, got "
                             f"{raw[:40]!r}")
        return value

    def get_int(self) -> int:
        return int(self.get())

    def hint(self) -> str:
        return f"set {self.env} to raise it"


# Input files
MAX_INPUT_BYTES = Limit("TASPLAN_MAX_INPUT_BYTES", 4 * 1024**3, "bytes")
# Pods synthesised from controllers (Job parallelism, JobSet/LWS/Deployment replicas), all
# inputs together: a 30-line Job with parallelism 10^8 must not run for hours.
MAX_CONTROLLER_PODS = Limit("TASPLAN_MAX_CONTROLLER_PODS", 200_000, "pods")
# Error positions: files larger than this are not parsed a second time for a line number.
MAX_LOCATE_BYTES = Limit("TASPLAN_MAX_LOCATE_BYTES", 4 * 1024**2, "bytes")

# Live clusters (``--live``)
MAX_KUBECONFIG_BYTES = Limit("TASPLAN_MAX_KUBECONFIG_BYTES", 16 * 1024**2, "bytes")  # per file
# --request-timeout default; a socket timeout must fit the C timeval: at most a day
REQUEST_TIMEOUT = Limit("TASPLAN_REQUEST_TIMEOUT", 60.0, "seconds", 86_400.0)
LIST_DEADLINE = Limit("TASPLAN_LIST_DEADLINE", 900.0, "seconds")  # one resource's listing
MAX_PAGES = Limit("TASPLAN_MAX_PAGES", 10_000, "pages")  # per listing
MAX_RESPONSE_BYTES = Limit("TASPLAN_MAX_RESPONSE_BYTES", 512 * 1024**2, "bytes")  # one answer,
# after decompression

INT32_MAX = 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
