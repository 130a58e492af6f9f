#pragma once

#include "runtime/StatusReport.h"

namespace chat2sbx {

class Controller;

// The configuration's part of a report (bind, paths, host roots, limits); the tunnel counts as
// enabled when the configuration enables it. Counts stay unknown.
StatusReport statusFromConfig(const Config &config);

// The running server's own view, built from its services: what /healthz answers and the tray shows.
StatusReport statusFromServer(Controller &controller);

// Takes over what a running server's GET /healthz answered (full or bare; a bare answer leaves the
// counts and the sbx check unknown).
void applyHealthAnswer(StatusReport &report, const QJsonObject &health);

} // namespace chat2sbx
