#pragma once

#include <QString>

namespace chat2sbx {

// sbx-contract.md, behaviour 2: the sbx daemon needs a sign-in (`sbx login`) and a global network
// policy (`sbx policy init …`) before the first sandbox starts; with no terminal its prompt fails.
// Given the error of a failed sbx command, the exact command the user has to run, as a sentence;
// empty when the error is about something else.
QString sbxPreflightAdvice(const QString &sbxError);

} // namespace chat2sbx
