"""The tools people run: ``paiju up`` (the whole platform on one machine), the
bots, ``paiju admin``, ``paiju replay``, and what ``paiju up`` and the tests
share (processes, ports, a local Prometheus, a local NATS cluster)."""
