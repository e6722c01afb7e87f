"""paiju's tests (see tests/conftest.py and tests/fixtures.py)."""

import os

# gRPC's fork handlers (on by default in grpcio) run in every child this
# process forks, and a subprocess with a ``preexec_fn`` (each service process
# here: ``die_with_parent``) is forked, not spawned. With gRPC threads busy in
# this process (a channel still trying a port nobody answers on) they abort the
# child before it execs: "pthread_create failed", "Check failed: wakeup_fd_",
# exit -6. The tests fork children and do not use gRPC in them: off, before
# gRPC is loaded.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "0")
