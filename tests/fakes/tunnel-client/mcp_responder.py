#!/usr/bin/env python3
"""Tiny MCP Streamable HTTP responder for selftest.sh (initialize + notifications/initialized only).

usage: mcp_responder.py PORT_FILE MODE_FILE RECORD_FILE
The mode is re-read from MODE_FILE on every request (default "json"):
  json       initialize -> 200 application/json + Mcp-Session-Id; initialized -> 202
  sse        initialize -> 200 text/event-stream, one `data:` event, connection closed
  sse-open   like sse, but the stream stays open (pings) until the client goes away
  notify204  like json, initialized -> 204
  nosession  initialize answer without Mcp-Session-Id
  error500   initialize -> HTTP 500
  rpcerror   initialize -> JSON-RPC error object
  noversion  initialize result without protocolVersion
  notify200  initialized -> 200 (the client must reject it)
  garbage    initialize -> 200 application/json with a body that is not JSON
  wellknown405  like json, but GET /.well-known/* -> 405 (discovery then fails)
GET /.well-known/* -> 404 otherwise (no OAuth), GET /mcp -> 405, DELETE -> 204.
Every request is appended to RECORD_FILE as one JSON line {method, path, headers, body}.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, MODE_FILE, RECORD_FILE = sys.argv[1:4]
SESSION = "sess-0123456789abcdef"
LOCK = threading.Lock()


def mode():
    try:
        with open(MODE_FILE) as f:
            return f.read().strip() or "json"
    except OSError:
        return "json"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body):
        entry = {"method": self.command, "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
        with LOCK, open(RECORD_FILE, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def send(self, status, body=b"", ctype="application/json", session=True):
        self.send_response(status)
        if body:
            self.send_header("Content-Type", ctype)
        if session:
            self.send_header("Mcp-Session-Id", SESSION)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.record(None)
        if self.path.startswith("/.well-known/"):
            self.send(405 if mode() == "wellknown405" else 404, session=False)
            return
        self.send(405, session=False)

    def do_DELETE(self):
        self.record(None)
        self.send(204, session=False)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = raw.decode("utf-8", "replace")
        self.record(msg)
        m = mode()
        method = msg.get("method") if isinstance(msg, dict) else None
        if method == "notifications/initialized":
            if m == "notify200":
                self.send(200, b"{}")
            elif m == "notify204":
                self.send(204)
            else:
                self.send(202)
            return
        if method != "initialize":
            self.send(400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unexpected"}}')
            return
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "selftest-responder", "version": "1"}}
        if m == "noversion":
            del result["protocolVersion"]
        reply = {"jsonrpc": "2.0", "id": msg.get("id"), "result": result}
        if m == "rpcerror":
            reply = {"jsonrpc": "2.0", "id": msg.get("id"), "error": {"code": -32602, "message": "Unsupported protocol version"}}
        body = json.dumps(reply).encode()
        if m == "error500":
            self.send(500, b"internal error", "text/plain")
        elif m == "garbage":
            self.send(200, b"this is not json")
        elif m == "nosession":
            self.send(200, body, session=False)
        elif m in ("sse", "sse-open"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Mcp-Session-Id", SESSION)
            if m == "sse":
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b": comment\n\nevent: message\ndata: " + body + b"\n\n")
            self.wfile.flush()
            if m == "sse":
                self.close_connection = True
                return
            try:
                for _ in range(300):
                    time.sleep(0.1)
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
            except OSError:
                pass
            self.close_connection = True
        else:
            self.send(200, body)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402
os.rename(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
