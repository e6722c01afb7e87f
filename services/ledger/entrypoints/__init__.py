"""The ledger's entrypoints: the gRPC servicer: protobuf in and out."""
