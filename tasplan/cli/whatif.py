"""The what-if flags ``check`` and ``explain`` share, and their order on the command line.

Edits apply in the order given, across flags (``--drain a --cordon b --drain c`` is drain,
cordon, drain). Typer hands over one list per flag, so the command records the raw
arguments and ``WhatIfOptions.edits`` interleaves the lists in the order the flags appear.
``--like``, ``--in`` and ``--label`` belong to the ``--add-nodes`` before them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from tasplan.cli.params import Option
from tasplan.errors import UsageError
from tasplan.untrusted import quote

if TYPE_CHECKING:
    from tasplan.whatif.edits import Edit


_HELP = "What-if (repeatable, applied in the order given; see docs/whatif.md): "
CordonOpt = Annotated[list[str], Option(
    "--cordon", metavar="NODES|SELECTOR", show_default=False,
    help=_HELP + "mark nodes unschedulable (node names, comma-separated, or a label selector "
    "such as rack=rack-3).")]
DrainOpt = Annotated[list[str], Option(
    "--drain", metavar="NODES|SELECTOR", show_default=False,
    help=_HELP + "cordon and evict the nodes' pods except DaemonSet and mirror pods, as "
    "kubectl drain; reports PodDisruptionBudgets it would violate.")]
RemoveOpt = Annotated[list[str], Option(
    "--remove", metavar="NODES|SELECTOR", show_default=False,
    help=_HELP + "the nodes and their pods are gone.")]
AddNodesOpt = Annotated[list[int], Option(
    "--add-nodes", metavar="N", show_default=False,
    help=_HELP + "add N copies of the --like node [--in DOMAIN] [--label k=v].")]
LikeOpt = Annotated[list[str], Option(
    "--like", metavar="NODE", show_default=False,
    help="The node --add-nodes copies (allocatable, labels, taints, DaemonSet pods).")]
InOpt = Annotated[list[str], Option(
    "--in", metavar="DOMAIN", show_default=False,
    help="Topology domain of the added nodes: KEY=VALUE, or a VALUE (a new one becomes a "
    "new domain at the like-node's innermost topology level).")]
LabelOpt = Annotated[list[str], Option(
    "--label", metavar="K=V", show_default=False,
    help="A label of the added nodes (overrides the like-node's).")]
EvictOpt = Annotated[list[str], Option(
    "--evict", metavar="SELECTOR", show_default=False,
    help=_HELP + "remove running pods: priority<N, priority<=N, namespace=NS or a label "
    "selector (all namespaces).")]
SetOpt = Annotated[list[str], Option(
    "--set", metavar="GROUP.FIELD=VALUE", show_default=False,
    help=_HELP + "change a pod group: ns/name.minCount=N or ns/name.topologyKey=KEY.")]
WhatIfFileOpt = Annotated[list[Path], Option(
    "--what-if", metavar="FILE", show_default=False,
    help=_HELP + "the edits of a tasplan/v1 WhatIf file.")]

_FLAGS = {"--cordon": "cordon", "--drain": "drain", "--remove": "remove",
          "--add-nodes": "add_nodes", "--like": "like", "--in": "domain", "--label": "label",
          "--evict": "evict", "--set": "set", "--what-if": "what_if"}
_SIMPLE = {"cordon": "cordon", "drain": "drain", "remove": "remove", "evict": "evict",
           "set": "set"}


@dataclass(frozen=True)
class WhatIfOptions:
    """The what-if flags, each a list in the order given (``args``: the raw arguments,
    which interleave them)."""

    cordon: CordonOpt = field(default_factory=list)
    drain: DrainOpt = field(default_factory=list)
    remove: RemoveOpt = field(default_factory=list)
    add_nodes: AddNodesOpt = field(default_factory=list)
    like: LikeOpt = field(default_factory=list)
    domain: InOpt = field(default_factory=list)
    label: LabelOpt = field(default_factory=list)
    evict: EvictOpt = field(default_factory=list)
    set: SetOpt = field(default_factory=list)
    what_if: WhatIfFileOpt = field(default_factory=list)
    args: list[str] | None = None

    def with_args(self, args: list[str] | None) -> WhatIfOptions:
        """With the command's arguments as given (``cli/build.py`` records them)."""
        return replace(self, args=args)

    def edits(self) -> tuple[Edit, ...]:
        """Every edit in command-line order; what-if files are read here."""
        from tasplan.whatif.edits import Edit

        queues = {name: list(getattr(self, name)) for name in _FLAGS.values()}
        out: list[Edit] = []
        pending: dict[str, Any] | None = None  # the --add-nodes being assembled

        def close() -> None:
            nonlocal pending
            if pending is None:
                return
            if len(pending["like"]) != 1:
                raise UsageError(f"--add-nodes {pending['count']} needs exactly one --like NODE "
                                 f"(got {len(pending['like'])})")
            if len(pending["domain"]) > 1:
                raise UsageError(f"--add-nodes {pending['count']}: at most one --in DOMAIN")
            out.append(Edit("addNodes", count=pending["count"], like=pending["like"][0],
                            domain=pending["domain"][0] if pending["domain"] else "",
                            labels=tuple(pending["labels"])))
            pending = None

        for name in self._order(queues):
            value = queues[name].pop(0)
            if name in _SIMPLE:
                close()
                out.append(Edit(_SIMPLE[name], target=value))
            elif name == "what_if":
                close()
                # Imported here: it validates with jsonschema, which costs start-up time.
                from tasplan.lint.whatif_file import load_what_if

                out.extend(load_what_if(value))
            elif name == "add_nodes":
                close()
                pending = {"count": value, "like": [], "domain": [], "labels": []}
            else:
                if pending is None:
                    raise UsageError(f"--{'in' if name == 'domain' else name} {value} must "
                                     "follow --add-nodes N")
                if name == "label":
                    key, eq, label_value = value.partition("=")
                    if not eq or not key:
                        raise UsageError(f"--label {quote(value)}: expected KEY=VALUE")
                    pending["labels"].append((key, label_value))
                else:
                    pending[name].append(value)
        close()
        return tuple(out)

    def _order(self, queues: dict[str, list]) -> list[str]:
        """Flag names in the order they were given; per flag, Typer's list is in order."""
        order: list[str] = []
        tokens = iter(self.args or ())
        for token in tokens:
            if token == "--":
                break
            flag, eq, _ = token.partition("=")
            name = _FLAGS.get(flag)
            if name is None:
                continue
            order.append(name)
            if not eq:
                next(tokens, None)  # the flag's value
        counts = {name: len(values) for name, values in queues.items()}
        if any(order.count(name) != n for name, n in counts.items()):
            # Arguments not as recorded (a caller without the command class): flag groups
            # in a fixed order.
            order = [name for name in _FLAGS.values() for _ in range(counts[name])]
        return order
