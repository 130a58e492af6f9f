// mcp/ reaching into storage: must be reported.
#pragma once
#include "state/AuditLogRepository.h"
