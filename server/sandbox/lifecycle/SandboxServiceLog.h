#pragma once

#include <QLoggingCategory>
#include <QString>

namespace chat2sbx {

// Shared by SandboxService and its job classes (SandboxRuntimeOps, SandboxCreator, SandboxDestroyer,
// SandboxWaker, SandboxSleeper, SandboxIdleExpiry, SandboxReconciler): the log category and the
// prefix of every runtime name they make.
Q_DECLARE_LOGGING_CATEGORY(lcSandbox)

inline const QString kRuntimePrefix = QStringLiteral("chat2sbx-");
// A cloud sandbox's name in Docker's cloud (`sbx --cloud`): chat2sbx-cloud-<hex>, so every runtime
// operation knows which backend to ask (local names are chat2sbx-<hex>, which never holds "cloud").
inline const QString kCloudRuntimePrefix = QStringLiteral("chat2sbx-cloud-");
inline bool isCloudRuntime(const QString &runtimeName)
{
    return runtimeName.startsWith(kCloudRuntimePrefix);
}

} // namespace chat2sbx
