"""The lobby's entrypoints: the gRPC servicer: protobuf in and out."""
