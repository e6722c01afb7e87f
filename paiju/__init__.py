"""paiju (牌局): an online platform for Chinese card games.

The package holds what every service shares: configuration, logging, metrics,
gRPC and NATS plumbing, the generated protobuf code (``paiju.proto``) and the
pure rules engines (``paiju.rules``).
"""

__version__ = "0.1.0"
