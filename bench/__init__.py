"""daihinmin.bench: measurements of speed and memory, and servers put under stress.

``daihinmin bench ...`` runs them (``--json`` for machine-readable output): ``tcp`` (a real
server and real client processes per table, with the C and Python floors: ``floor``,
``floor_py``, ``native_client.c``, ``floor_server.c``, ``python_client``), ``mc`` (the Monte
Carlo player's playouts and decisions), ``tournament`` (a tournament's throughput),
``cluster`` (tournaments on a Ray cluster of this machine in a loopback-only namespace, and
the driver's own throughput).  ``soak``
(a long server run against misbehaving clients) and ``fault_client`` (one misbehaving client)
stress the server's fault handling.
"""
