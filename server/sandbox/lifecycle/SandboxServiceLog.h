#pragma once

#include <QLoggingCategory>
#include <QString>

namespace chat2sbx {

// Shared by the files that implement SandboxService (creation, destroy, sleep and wake, idle expiry,
// reconciliation): its log category and the prefix of every runtime name it makes.
Q_DECLARE_LOGGING_CATEGORY(lcSandbox)

inline const QString kRuntimePrefix = QStringLiteral("chat2sbx-");

} // namespace chat2sbx
