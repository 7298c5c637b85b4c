"""kubeconfig, contexts and in-cluster config -> an authenticated connection.

Configuration goes through ``kubernetes.config``, so ``KUBECONFIG`` lists are merged the
way kubectl merges them (first file wins per name, the first ``current-context`` set),
exec credential plugins and auth providers run as the client runs them, and in a pod the
service account is used. Refreshed tokens are never written back (``persist_config`` off):
the user's kubeconfig files are only read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kubernetes import client, config
from kubernetes.config.config_exception import ConfigException

from tasplan.live.errors import ClusterError, safe_url

DEFAULT_KUBECONFIG = "~/.kube/config"


@dataclass(frozen=True)
class Connection:
    """An API client and the names that say which cluster it talks to (no credentials)."""

    api: client.ApiClient
    server: str  # URL without user info
    context: str  # "" in cluster
    cluster: str

    def close(self) -> None:
        self.api.close()


def kubeconfig_paths(kubeconfig: str | None) -> str:
    """What kubectl reads: ``--kubeconfig``, else ``$KUBECONFIG`` (a path list), else
    ``~/.kube/config``."""
    return kubeconfig or os.environ.get("KUBECONFIG") or DEFAULT_KUBECONFIG


def _existing(paths: str) -> list[str]:
    return [p for p in paths.split(os.pathsep)
            if p and os.path.exists(os.path.expanduser(p))]


def connect(kubeconfig: str | None = None, context: str | None = None) -> Connection:
    paths = kubeconfig_paths(kubeconfig)
    configuration = client.Configuration()
    if not _existing(paths):
        if kubeconfig:
            raise ClusterError(kubeconfig, "kubeconfig file not found")
        if os.environ.get("KUBERNETES_SERVICE_HOST") and not context:
            try:
                config.load_incluster_config(client_configuration=configuration)
            except ConfigException as exc:
                raise ClusterError("in-cluster config", _config_message(exc)) from None
            return Connection(client.ApiClient(configuration), safe_url(configuration.host),
                              "", "in-cluster")
        raise ClusterError(paths, "no kubeconfig found (set KUBECONFIG, pass --kubeconfig, "
                           "or run inside a pod)")
    try:
        contexts, current = config.list_kube_config_contexts(config_file=paths)
    except ConfigException as exc:
        raise ClusterError(paths, _config_message(exc)) from None
    except OSError as exc:
        raise ClusterError(paths, f"cannot read kubeconfig: {exc.strerror or exc}") from None
    names = [c.get("name") for c in contexts or ()]
    chosen = next((c for c in contexts or () if c.get("name") == context), None) \
        if context else current
    if context and chosen is None:
        raise ClusterError(paths, f"context {context!r} not found in kubeconfig "
                           f"(contexts: {', '.join(map(str, names)) or 'none'})")
    if not chosen:
        raise ClusterError(paths, "kubeconfig has no current-context; pass --context "
                           f"(contexts: {', '.join(map(str, names)) or 'none'})")
    try:
        config.load_kube_config(config_file=paths, context=chosen["name"],
                                client_configuration=configuration, persist_config=False)
    except ConfigException as exc:
        raise ClusterError(paths, _config_message(exc)) from None
    except OSError as exc:
        raise ClusterError(paths, f"cannot read a file the kubeconfig names: "
                           f"{exc.strerror or exc}") from None
    detail = chosen.get("context") or {}
    return Connection(client.ApiClient(configuration), safe_url(configuration.host),
                      str(chosen["name"]), str(detail.get("cluster", "")))


def _config_message(exc: ConfigException) -> str:
    """The client's message, which names files and fields; it never carries token values
    (tokens are read only after the config has validated)."""
    return f"invalid kubeconfig: {str(exc).splitlines()[0] if str(exc) else 'unknown error'}"
