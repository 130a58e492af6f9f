#pragma once

class QHttpServer;

namespace chat2sbx {

class Controller;

// GET /healthz: {"status":"ok","version":..., "uptimeMs":..., "activeSandboxes":...}. Loopback clients only.
void installHealthEndpoint(QHttpServer &http, Controller &controller);

} // namespace chat2sbx
