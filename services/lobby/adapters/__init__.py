"""The lobby's adapters: the database, NATS and gRPC clients the use cases run through."""
