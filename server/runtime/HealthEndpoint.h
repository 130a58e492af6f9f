#pragma once

class QHttpServer;

namespace chat2sbx {

class Controller;

// GET /healthz: {"status":"ok","version":..., "uptimeMs":..., "activeSandboxes":..., "maxActiveSandboxes":...,
// "pendingApprovals":..., "dataRoot":..., "tunnel":{"enabled","state","lastError","restarts","healthUrl","pid",
// "nextRestartInMs"}}. Loopback clients only (it names the data root, which tool results never do).
void installHealthEndpoint(QHttpServer &http, Controller &controller);

} // namespace chat2sbx
