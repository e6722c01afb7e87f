"""What every service runs on: the bootstrap (:mod:`~paiju.runtime.service`), its gRPC
server, health and metrics, logs and traces, the NATS connection and subjects, the
database, retries, the registry of table instances and the replicas of a peer."""
