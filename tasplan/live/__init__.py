"""Reading a live cluster: kubeconfig, API discovery, paginated raw-JSON lists, and the
mapping of transport and auth failures to clear input errors. Only GET requests, ever."""
