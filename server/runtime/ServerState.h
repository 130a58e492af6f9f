#pragma once

namespace chat2sbx {

// Where the server is in its life: the Controller moves through these; the tray shows them.
enum class ServerState { Stopped, Starting, Running, Stopping, Failed };

} // namespace chat2sbx
