"""A local HTTP server for verify tests: fixed answers per path, on 127.0.0.1 only."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def serve(routes: dict[str, tuple[int, Any]], delay: float = 0.0) -> Iterator[str]:
    """`routes`: path -> (status, body); a dict/list body is sent as JSON, bytes as they are.
    Unknown paths answer 404 as FastAPI does. Yields the base URL."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            if delay:
                import time

                time.sleep(delay)
            status, body = routes.get(self.path, (404, {"detail": "Not Found"}))
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        serve.seen = seen  # type: ignore[attr-defined]
        yield base
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
