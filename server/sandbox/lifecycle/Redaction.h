#pragma once

#include <QList>
#include <QString>

#include <functional>

namespace chat2sbx {

struct Config;
struct SandboxRecord;

// Stands for a path inside chat2sbx's data directory in anything an agent reads.
QString dataDirPlaceholder();

// `text` without host data-directory paths: a managed workspace folder becomes ~/workspace (the
// path the sandbox sees), anything else under the data directory becomes dataDirPlaceholder().
QString redactDataPaths(const QString &text, const Config &config);
// redactDataPaths, and internal runtime names too: those of `known` become their sandbox id, any
// other of ours "<sandbox>". `known` is asked only when the text holds a runtime name.
QString redactForAgent(const QString &text, const Config &config, const std::function<QList<SandboxRecord>()> &known);

} // namespace chat2sbx
