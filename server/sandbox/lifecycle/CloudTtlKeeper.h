#pragma once

#include "state/SandboxRepository.h"

#include <QObject>
#include <QSet>

namespace chat2sbx {

class SandboxRuntimeOps;

// A cloud sandbox in use does not expire under the agent: when a tool call reaches one whose
// time-to-live has less than half of cloudDefaultTtl left, it is extended by cloudDefaultTtl
// (`sbx --cloud ttl +D`), one extension at a time per sandbox, never past its ceiling of 24 h from
// creation (the cloud refuses or clamps; what it says is recorded).
class CloudTtlKeeper : public QObject {
    Q_OBJECT
public:
    explicit CloudTtlKeeper(SandboxRuntimeOps &ops, QObject *parent = nullptr);

    // A tool call reached `r` (a running cloud sandbox).
    void inUse(const SandboxRecord &r);

private:
    SandboxRuntimeOps &m_ops;
    QSet<QString> m_extending;
};

} // namespace chat2sbx
