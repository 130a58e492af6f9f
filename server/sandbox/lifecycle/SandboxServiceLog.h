#pragma once

#include <QLoggingCategory>
#include <QString>

namespace chat2sbx {

// Shared by SandboxService and its job classes (SandboxRuntimeOps, SandboxCreator, SandboxDestroyer,
// SandboxWaker, SandboxSleeper, SandboxIdleExpiry, SandboxReconciler): the log category and the
// prefix of every runtime name they make.
Q_DECLARE_LOGGING_CATEGORY(lcSandbox)

inline const QString kRuntimePrefix = QStringLiteral("chat2sbx-");

} // namespace chat2sbx
