"""The schedulers tasplan plans for, side by side behind one interface (``interface``): the
registry that names them (``registry``), the run that plans every group with its scheduler
(``planner.plan``), kube-scheduler's KEP-5732 planner (``kube``) and the peers."""
